import { z } from "zod";
import { Profile } from "./profile";

/**
 * The response envelope of almost every JSON response. `errorCode` and `errorDetails` are absent on
 * the address-book create response, so they are optional everywhere; the spec does not show the
 * shape of `errorDetails` items.
 */
const envelopeFields = {
  errorCode: z.string().nullish().describe("Error identifier, e.g. `UNAUTHENTICATED`; full set not shown."),
  errors: z.array(z.string()).describe("Human-readable error messages."),
  hasErrors: z.boolean(),
  warnings: z.array(z.string()),
  hasWarnings: z.boolean(),
  errorDetails: z.array(z.unknown()).nullish().describe("Item shape not shown by the spec."),
  metadata: z.record(z.string(), z.unknown()).nullish().describe("Free-form map of name to value."),
};

function payloadName(payload: z.ZodType): string {
  const meta = z.globalRegistry.get(payload) as { id?: string } | undefined;
  return meta?.id ?? "the operation result";
}

/** Builds the envelope of one operation around its payload schema (one OpenAPI component each). */
export function envelope<P extends z.ZodType>(payload: P, id: string, description?: string) {
  return z.object({ profile: Profile, payload, ...envelopeFields }).meta({
    id,
    description: description ?? `Response envelope; its \`payload\` is ${payloadName(payload)}.`,
  });
}

/**
 * An error response (400, 401, 402, 404, 422, 429, 5xx). A 401 has no account to describe, so
 * `profile` may be missing; `payload` carries operation-specific detail (the 422 of an integration
 * recipient add carries an `IntegrationRecipientResult`).
 */
export const ErrorEnvelope = z
  .object({
    profile: Profile.nullish(),
    payload: z.unknown().optional(),
    ...envelopeFields,
  })
  .meta({ id: "ErrorEnvelope", description: "Error response: the envelope with `errorCode` and `errors`." });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** Error codes the spec or the design brief names. The full set is not shown. */
export const ERROR_CODES = {
  unauthenticated: "UNAUTHENTICATED",
  insufficientBalance: "INSUFFICIENT_BALANCE",
  notFound: "NOT_FOUND",
} as const;
