/**
 * Building blocks shared by every wire schema. The client parses responses with these schemas, the
 * sandbox validates requests and shapes responses with them, and `scripts/generate-openapi.ts`
 * turns them into the OpenAPI document, so each rule here is stated once for all three.
 *
 * Objects are plain `z.object`s: every listed key is checked (required, type, nullability) and keys
 * the spec does not list are dropped on parse rather than rejected, because the service may add
 * fields in a non-breaking release and a deployment must not fail over a field nobody reads.
 */
import { z } from "zod";

/**
 * ISO 8601 date-time. The service is free to send an offset (`Z`, `+02:00`) or none; both parse.
 * Kept as a string: converting would lose the exact text for diffs and round trips.
 */
export const dateTime = () => z.iso.datetime({ offset: true, local: true });

/** A JSON integer that fits a JavaScript number exactly. */
export const int = () => z.int();

/** A non-negative count. */
export const count = () => z.int().nonnegative();

/** A positive identifier (orders, recipients, conversions, integration orders). */
export const id = () => z.int().positive();

/**
 * An enumeration whose full set the spec does not show: the listed values are known, any other
 * string is accepted (a new status from the service must not crash a deployment). The TypeScript
 * type keeps the listed literals for completion while still allowing any string. The OpenAPI
 * generator reads `knownValues` to emit `anyOf: [enum, string]`.
 */
export function openEnum<const T extends readonly [string, ...string[]]>(
  values: T,
): z.ZodType<T[number] | (string & {}), string> {
  return z.string().meta({ knownValues: [...values] }) as unknown as z.ZodType<
    T[number] | (string & {}),
    string
  >;
}

/** Known values of an open enumeration built with {@link openEnum}, for tests and documentation. */
export function knownValues(schema: z.ZodType): string[] | undefined {
  const meta = z.globalRegistry.get(schema) as { knownValues?: string[] } | undefined;
  return meta?.knownValues;
}

/** ASCII digits, at least one, and nothing else: see {@link wholeNumberFromText}. */
export const DIGITS = /^\d+$/;

/**
 * The one rule for a whole number written as text (path ids, query integers, the entries of an id
 * list, a QR scan's `statisticValue`): ASCII digits and nothing else. Nothing is trimmed, and a sign,
 * a decimal point, an exponent or a hex prefix is refused (`" 7"`, `"+7"`, `"7.0"`, `"1e3"`,
 * `"0x10"`). Strict on purpose: what the sandbox accepts, any reading of "parses as a whole number"
 * accepts too. Returns the number, or undefined when the text breaks the rule or is not a safe integer.
 */
export function wholeNumberFromText(text: string): number | undefined {
  // 16 digits bound the work and the value before conversion; the safe-integer check does the rest.
  if (text.length > 16 || !DIGITS.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** A value as an error message shows it: JSON text, cut short so a hostile value cannot flood the answer. */
export function showValue(value: unknown): string {
  const text = value === undefined ? "nothing" : (JSON.stringify(value) ?? String(value));
  return text.length > 40 ? `${text.slice(0, 40)}… (${text.length} characters)` : text;
}

/** The message of every whole-number rule: the range and the offending value. */
export function wholeNumberMessage(min: number, max: number, value: unknown): string {
  return `${showValue(value)} is not a whole number from ${min} to ${max} written in digits only`;
}

/** The largest value of a 32-bit signed integer, the service's `int32`. */
export const MAX_INT32 = 2_147_483_647;

/**
 * A whole number in a path or query, from `min` to `max` (default: the largest safe integer): a
 * JSON number (the client) or text following {@link wholeNumberFromText} (the server). The error
 * names the value.
 */
export function wholeNumber({ min, max = Number.MAX_SAFE_INTEGER }: { min: number; max?: number }) {
  const error = (issue: { input?: unknown }) =>
    issue.input === undefined ? undefined : wholeNumberMessage(min, max, issue.input);
  return z.preprocess<unknown, z.ZodInt, string | number>(
    (value) => (typeof value === "string" ? (wholeNumberFromText(value) ?? value) : value),
    z.int({ error }).min(min, { error }).max(max, { error }),
  );
}

/**
 * Query-string boolean: `true`/`false` as booleans (client side) or as text (server side, any case).
 * Anything else is rejected, so `paid=yes` is an error rather than a silent `true`.
 */
export const queryBool = () =>
  z.union(
    [
      z.boolean(),
      z
        .string()
        .regex(/^(true|false)$/i, "expected true or false")
        .transform((v) => v.toLowerCase() === "true"),
    ],
    { error: "expected true or false" },
  );

/** Path parameter `{id}`: an integer in the path template. */
export const IdPathParams = z
  .object({ id: wholeNumber({ min: 1 }) })
  .meta({ id: "IdPathParams", description: "Path parameter `{id}` (a positive integer)." });
export type IdPathParams = z.infer<typeof IdPathParams>;

/**
 * Reads a raw query object (as a web framework gives it: text values, names in any case) with a
 * query schema. The spec says query parameter names match case-insensitively, so `PostageType`
 * and `postagetype` both land on `postageType`. Unknown names are ignored; for a repeated name the
 * first value wins.
 */
export function readQuery<S extends z.ZodObject>(
  schema: S,
  raw: Record<string, unknown>,
): z.ZodSafeParseResult<z.output<S>> {
  const byLower = new Map(Object.keys(schema.shape).map((k) => [k.toLowerCase(), k]));
  const normalized: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    const key = byLower.get(name.toLowerCase());
    if (key === undefined || key in normalized) continue;
    normalized[key] = Array.isArray(value) ? value[0] : value;
  }
  return schema.safeParse(normalized) as z.ZodSafeParseResult<z.output<S>>;
}

/** Path parameters `{id}` and `{recipient}` of the recipient proof. */
export const RecipientProofPathParams = z
  .object({
    id: wholeNumber({ min: 1 }),
    recipient: wholeNumber({ min: 1 }),
  })
  .meta({ id: "RecipientProofPathParams", description: "Order id and recipient id." });
export type RecipientProofPathParams = z.infer<typeof RecipientProofPathParams>;
