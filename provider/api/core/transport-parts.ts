/**
 * The small rules of the transport that hold no state: which connection failures mean nothing was
 * sent, an envelope parsed with its schema, an error's code, a `Date` header, a call's time.
 */
import { z } from "zod";
import { exactCheck } from "../schemas/exact-check";

/** Error codes of connection failures that happen before any byte of the request is written. */
export const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_NONAME",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_CLOSED",
  "UND_ERR_DESTROYED",
]);

export const REDACTED = "[REDACTED]";

/** Each envelope schema without its payload, made once. */
const envelopeHeads = new WeakMap<z.ZodObject, z.ZodObject>();

/**
 * A response envelope parsed with its schema. A payload that is, as it stands, what the payload
 * schema would return (its exact check: a listing page of 1,000 recipients, say) is kept as it is
 * and only the rest of the envelope goes through zod; anything else is parsed whole, as before,
 * so errors are the same.
 */
export function parseEnvelope(envelope: z.ZodType, payload: z.ZodType, data: unknown) {
  const payloadValue = (data as { payload?: unknown } | null)?.payload;
  if (envelope instanceof z.ZodObject && exactCheck(payload)?.(payloadValue)) {
    let head = envelopeHeads.get(envelope);
    if (head === undefined) {
      head = envelope.omit({ payload: true });
      envelopeHeads.set(envelope, head);
    }
    const rest = head.safeParse(data);
    if (rest.success) return { success: true as const, data: { ...rest.data, payload: payloadValue } };
  }
  return envelope.safeParse(data);
}

export function since(started: number): number {
  return Math.round(performance.now() - started);
}

/** The `code` of an error or of one of its causes (undici wraps system errors). */
export function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

/** An HTTP `Date` header as a date; undefined when absent or unreadable. */
export function dateHeader(value: string | string[] | undefined): Date | undefined {
  const time = typeof value === "string" ? Date.parse(value) : Number.NaN;
  return Number.isNaN(time) ? undefined : new Date(time);
}
