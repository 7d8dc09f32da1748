/**
 * The sandbox's own bounds on every value of a request (assumptions.ts `BOUNDS`), checked after the
 * request's schema: one walk over the parsed value, each node visited once, that stops at the
 * first value out of bounds and names its field.
 */
import type { z } from "zod";
import { formatPath } from "../../provider/api/schemas/issues";
import { BOUNDS } from "../assumptions";
import { ApiError } from "../domain/errors";
import { exactSchemaOf } from "./zod";

/** Names of values only looked up or paged through: any size the spec allows is answered. */
const LOOKED_UP = /^(id|recipient|pageNumber)$|Ids?$/;

/** Why `value` (at `key`) is out of bounds, or undefined. */
function problemOf(value: unknown, key: PropertyKey | undefined): string | undefined {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return "must be a finite number";
    // Own fields only: a body's key may be `constructor` or `__proto__`.
    const field =
      typeof key === "string" && Object.hasOwn(BOUNDS.fields, key) ? BOUNDS.fields[key] : undefined;
    if (field) {
      const [least, most] = field;
      if (value < least || value > most)
        return `must be from ${least} to ${most} (a bound of the sandbox; the spec states none)`;
    } else if (Math.abs(value) > BOUNDS.maxMagnitude && !(typeof key === "string" && LOOKED_UP.test(key))) {
      return `must be at most ${BOUNDS.maxMagnitude} in size (a bound of the sandbox; the spec states none)`;
    }
  } else if (typeof value === "string") {
    if (value.length > BOUNDS.maxStringLength)
      return `at most ${BOUNDS.maxStringLength} characters (a bound of the sandbox; the spec states none)`;
  } else if (Array.isArray(value)) {
    if (value.length > BOUNDS.maxArrayLength)
      return `at most ${BOUNDS.maxArrayLength} items (a bound of the sandbox; the spec states none)`;
  } else if (typeof value === "object" && value !== null) {
    let keys = 0;
    for (const _ in value) if (++keys > BOUNDS.maxObjectKeys) break;
    if (keys > BOUNDS.maxObjectKeys)
      return `at most ${BOUNDS.maxObjectKeys} properties (a bound of the sandbox; the spec states none)`;
  }
  return undefined;
}

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

/** Whether a value of a schema's exact shape is within bounds (see `boundsOf`). */
type ShapeBounds = (value: unknown) => boolean;

/**
 * The bounds of the values a schema's exact check accepts (exact-check.ts: texts, nullable,
 * numbers, arrays, objects with exactly the shape's keys), as a check built from the schema: the
 * same rules as `withinBounds`, on the same values, with the keys known beforehand (an object's
 * key count is its shape's, a number's key its field's or, in an array, the array's). Null for a
 * schema with anything else, whose values are walked.
 */
function buildShapeBounds(schema: z.core.$ZodType, key: string | undefined): ShapeBounds | null {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  switch (def.type) {
    case "string":
      return (v) => (v as string).length <= BOUNDS.maxStringLength;
    case "number":
      return (v) => problemOf(v, key) === undefined;
    case "nullable": {
      const inner = shapeBounds(def.innerType as z.core.$ZodType, key);
      return inner && ((v) => v === null || inner(v));
    }
    case "array": {
      const element = shapeBounds(def.element as z.core.$ZodType, key);
      if (!element) return null;
      return (v) => {
        const items = v as unknown[];
        if (items.length > BOUNDS.maxArrayLength) return false;
        for (let i = 0; i < items.length; i++) if (!element(items[i])) return false;
        return true;
      };
    }
    case "object": {
      const shape = def.shape as Record<string, z.core.$ZodType>;
      const keys = Object.keys(shape);
      if (keys.length > BOUNDS.maxObjectKeys) return () => false;
      const fields: (ShapeBounds | "text")[] = [];
      for (const name of keys) {
        const field = shapeBounds(shape[name] as z.core.$ZodType, name);
        if (!field) return null;
        // Texts, plain or nullable, inline: most fields are texts.
        const inner = shape[name]?._zod.def as z.core.$ZodTypeDef & { innerType?: z.core.$ZodType };
        const text =
          inner.type === "string" ||
          (inner.type === "nullable" && inner.innerType?._zod.def.type === "string");
        fields.push(text ? "text" : field);
      }
      return (v) => {
        const object = v as Record<string, unknown>;
        // for-in: the keys are the shape's, in its order (the exact check said so), and V8 reads
        // the values through the object's own key cache, faster than loads by a list of names.
        let i = 0;
        for (const name in object) {
          const item = object[name];
          const field = fields[i++] as ShapeBounds | "text";
          if (field === "text") {
            if (item !== null && (item as string).length > BOUNDS.maxStringLength) return false;
          } else if (!field(item)) return false;
        }
        return true;
      };
    }
    default:
      return null;
  }
}

const shapeBoundsOf = new WeakMap<z.core.$ZodType, Map<string | undefined, ShapeBounds | null>>();

/** The bounds check of `schema`'s exact shape at `key` (built once), or null: see buildShapeBounds. */
function shapeBounds(schema: z.core.$ZodType, key: string | undefined): ShapeBounds | null {
  let byKey = shapeBoundsOf.get(schema);
  if (!byKey) {
    byKey = new Map();
    shapeBoundsOf.set(schema, byKey);
  }
  let check = byKey.get(key);
  if (check === undefined) {
    // None while it is being built: a schema that contains itself is walked.
    byKey.set(key, null);
    check = buildShapeBounds(schema, key);
    byKey.set(key, check);
  }
  return check;
}

/** Throws the spec's 400 naming the field when any value under `value` is out of bounds. */
export function checkBounds(value: unknown, root = ""): void {
  // A body the schema's exact check took as it is: its bounds are checked along its known shape.
  const schema = exactSchemaOf(value);
  const bounds = schema && shapeBounds(schema, undefined);
  if (bounds ? bounds(value) : withinBounds(value, undefined)) return;
  const found = firstOutOfBounds(value, undefined, []);
  if (!found) return;
  const field = formatPath(found.path, root) || root || "body";
  throw new ApiError(400, "INVALID_REQUEST", [`${field}: ${found.problem}`], null, [
    { field, code: "out_of_bounds", message: found.problem },
  ]);
}
