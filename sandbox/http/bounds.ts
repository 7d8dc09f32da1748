/**
 * The sandbox's own bounds on every value of a request (assumptions.ts `BOUNDS`), checked after the
 * request's schema: one walk over the parsed value, each node visited once, that stops at the
 * first value out of bounds and names its field.
 */
import type { FastifyRequest } from "fastify";
import { formatPath } from "../../provider/api/schemas/issues";
import { BOUNDS } from "../assumptions";
import { ApiError } from "../domain/errors";
import { problemOf } from "./bound-rules";
import "./request";
import { exactSchemaOf } from "./zod";

/** The path and problem of the first value out of bounds under `value`, depth first. */
function firstOutOfBounds(
  value: unknown,
  key: PropertyKey | undefined,
  path: PropertyKey[],
): { path: PropertyKey[]; problem: string } | undefined {
  const problem = problemOf(value, key);
  if (problem) return { path: [...path], problem };
  if (typeof value !== "object" || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      const found = firstOutOfBounds(value[i], key, path);
      path.pop();
      if (found) return found;
    }
  } else {
    for (const name of Object.keys(value)) {
      path.push(name);
      const found = firstOutOfBounds((value as Record<string, unknown>)[name], name, path);
      path.pop();
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Whether every value under `value` is within bounds: the walk of `firstOutOfBounds` without its
 * path, texts checked inline (most values are texts: a 5,000-recipient append has 225,000). It
 * visits at least the values that walk visits (for-in also lists inherited keys), so a `true` here
 * means that walk finds nothing; on `false` that walk finds the first problem, if any.
 */
function withinBounds(value: unknown, key: PropertyKey | undefined): boolean {
  if (typeof value === "string") return value.length <= BOUNDS.maxStringLength;
  if (typeof value !== "object" || value === null) return problemOf(value, key) === undefined;
  if (Array.isArray(value)) {
    if (value.length > BOUNDS.maxArrayLength) return false;
    for (let i = 0; i < value.length; i++) if (!withinBounds(value[i], key)) return false;
    return true;
  }
  let keys = 0;
  const object = value as Record<string, unknown>;
  for (const name in object) {
    if (++keys > BOUNDS.maxObjectKeys) return false;
    const item = object[name];
    if (typeof item === "string" ? item.length > BOUNDS.maxStringLength : !withinBounds(item, name))
      return false;
  }
  return true;
}

/** Throws the spec's 400 naming the field when any value under `value` is out of bounds. */
export function checkBounds(value: unknown, root = ""): void {
  // A body its schema's exact check took as it stands was checked against these bounds in that
  // same walk (zod.ts, bound-rules.ts); any other value is walked here.
  if (exactSchemaOf(value) || withinBounds(value, undefined)) return;
  const found = firstOutOfBounds(value, undefined, []);
  if (!found) return;
  const field = formatPath(found.path, root) || root || "body";
  throw new ApiError(400, "INVALID_REQUEST", [`${field}: ${found.problem}`], null, [
    { field, code: "out_of_bounds", message: found.problem },
  ]);
}

/**
 * The bounds of one request, after its schemas: the query and body as they made them (a number
 * read from a query's text), then the body as it was received, when that is another value: a
 * schema drops the properties it does not know, and a body of 1,001 is refused all the same.
 * Every route (each operation of the endpoint table, each control call) runs this in its
 * preHandler hook.
 */
export function checkRequestBounds(request: FastifyRequest): void {
  checkBounds(request.query);
  checkBounds(request.body);
  if (request.receivedBody !== request.body) checkBounds(request.receivedBody);
}
