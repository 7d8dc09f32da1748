/**
 * The shared zod schemas at the HTTP boundary, as fastify's schema compilers: requests are parsed
 * by them (a 400 naming each offending field), and responses are written through them.
 */
import type { FastifySchemaCompiler, FastifySerializerCompiler } from "fastify";
import type { z } from "zod";
import { formatIssues, formatPath, readQuery } from "../../provider/api/schemas";
import { exactCheck } from "../../provider/api/schemas/exact-check";
import { ApiError } from "../domain/errors";
import { REQUEST_BOUNDS } from "./bound-rules";

function invalid(issues: readonly z.core.$ZodIssue[], errorCode: string, root: string): ApiError {
  return new ApiError(
    400,
    errorCode,
    formatIssues(issues, root),
    null,
    issues.map((i) => ({ field: formatPath(i.path, root), code: i.code, message: i.message })),
  );
}

/** Values whose schema's exact check ran, with the schema and its verdict (see `takenAsItIs`). */
const judged = new WeakMap<object, { schema: z.ZodType; exact: boolean }>();

/**
 * The schema whose exact check accepted `value` as it stands, when `parseWith` returned it so:
 * the value then has that schema's shape exactly (see exact-check.ts) and is within the sandbox's
 * bounds, which that check took in the same walk (bound-rules.ts), so bounds.ts walks it no more.
 */
export function exactSchemaOf(value: unknown): z.ZodType | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const verdict = judged.get(value);
  return verdict?.exact ? verdict.schema : undefined;
}

/**
 * Whether `schema`'s exact check, with the sandbox's bounds, accepts `value` as it stands (the
 * verdict on an object is remembered: the body parser asks first, `parseWith` then reads the
 * answer instead of checking the value again). A value out of bounds goes through zod, and its
 * copy through the bounds' walk, which names the field.
 */
export function takenAsItIs(schema: z.ZodType, value: unknown): boolean {
  const check = exactCheck(schema, REQUEST_BOUNDS);
  if (typeof value !== "object" || value === null) return check?.(value) === true;
  const verdict = judged.get(value);
  if (verdict?.schema === schema) return verdict.exact;
  const exact = check?.(value) === true;
  judged.set(value, { schema, exact });
  return exact;
}

/**
 * Parses `value` with `schema`, or throws the 400 of the spec naming each offending field. A value
 * the schema's exact check accepts is returned as it is: a valid append of 5,000 recipients is
 * not copied object by object.
 */
export function parseWith<T extends z.ZodType>(
  schema: T,
  value: unknown,
  errorCode = "INVALID_REQUEST",
  root = "",
): z.output<T> {
  if (takenAsItIs(schema, value)) return value as z.output<T>;
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(result.error.issues, errorCode, root);
  return result.data;
}

/** A raw query (names in any case, text values) read with its schema, or the 400 naming the fields. */
export function parseQuery(schema: z.ZodObject, raw: unknown): Record<string, unknown> {
  const result = readQuery(schema, (raw ?? {}) as Record<string, unknown>);
  if (!result.success) throw invalid(result.error.issues, "INVALID_REQUEST", "");
  return result.data as Record<string, unknown>;
}

/**
 * The validator compiler of the v1 routes: path parameters, query and body are parsed by the
 * endpoint table's schemas, and the handler gets the parsed values. A failure is the ApiError the
 * error handler writes as the envelope.
 */
export const v1ValidatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    try {
      return {
        value:
          httpPart === "querystring"
            ? parseQuery(schema as z.ZodObject, data)
            : parseWith(schema, data ?? null),
      };
    } catch (error) {
      if (error instanceof ApiError) return { error };
      throw error;
    }
  };

/** A response that does not match its schema: a server failure (500), never sent. */
export class ResponseSchemaError extends Error {
  override readonly name = "ResponseSchemaError";
}

/**
 * Writes a response through its schema: the body must match it, or it is not sent. The bytes are
 * the body as the handler built it, so what the sandbox adds beyond the schema on purpose (the
 * fonts' URLs, say) is kept; the schema is what the client parses, and the check that the two agree.
 */
export function serialize(schema: z.ZodType, body: unknown, what: string): string {
  const result = schema.safeParse(body);
  if (!result.success) {
    throw new ResponseSchemaError(
      `response of ${what} does not match its schema: ${formatIssues(result.error.issues).join("; ")}`,
    );
  }
  return JSON.stringify(body);
}

/** The serializer compiler of every route: each response status the route declares has its schema. */
export const serializerCompiler: FastifySerializerCompiler<z.ZodType> =
  ({ schema, method, url, httpStatus }) =>
  (body) =>
    serialize(schema, body, `${method} ${url} (${httpStatus})`);
