/**
 * Exact checks: a check derived from a zod schema's own definition that says whether a value is,
 * as it stands, what the schema's parse would return. A large valid value (an append of 5,000
 * recipients, a listing page of 1,000) is then used as it is instead of being copied object by
 * object; any other value goes through zod, which writes the errors. The rules stay the schema's.
 */
import type { z } from "zod";

/** Whether a value is, as it stands, what its schema's parse would return (see `exactCheck`). */
type ExactCheck = (value: unknown) => boolean;

/** The integer formats the check knows, with their ranges. */
const INTEGER_FORMATS: Record<string, { min: number; max: number }> = {
  int32: { min: -2_147_483_648, max: 2_147_483_647 },
  safeint: { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER },
};

const isText: ExactCheck = (v) => typeof v === "string";
const isNullableText: ExactCheck = (v) => v === null || typeof v === "string";
/** Which of the checks above a field's check is, so an object checks its texts inline. */
enum Text {
  No,
  Plain,
  Nullable,
}
const textChecks = new Map<ExactCheck, Text>([
  [isText, Text.Plain],
  [isNullableText, Text.Nullable],
]);

/**
 * A check built from a schema's own definition that accepts a value only when the schema's parse
 * would accept it and return a copy equal to it, key order included: plain strings and numbers,
 * nullable, arrays with length bounds, and objects (unknown keys stripped) whose keys are exactly
 * the shape's, in its order. Whatever else a schema holds (refinements, transforms, defaults,
 * optional keys, other checks) gives no check (null): such values always go through zod. The rules
 * stay the schema's; a value the check does not accept is parsed by zod, which writes the errors.
 */
function buildExactCheck(schema: z.core.$ZodType): ExactCheck | null {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  const checks = (def.checks ?? []) as z.core.$ZodCheck[];
  if (def.coerce) return null;
  switch (def.type) {
    case "string":
      return checks.length === 0 ? isText : null;
    case "nullable": {
      const inner = exactCheck(def.innerType as z.core.$ZodType);
      if (inner === isText) return isNullableText;
      return inner && ((v) => v === null || inner(v));
    }
    case "number": {
      const integer = def.format === undefined ? undefined : INTEGER_FORMATS[def.format as string];
      if (def.format !== undefined && integer === undefined) return null;
      let min = integer?.min ?? Number.NEGATIVE_INFINITY;
      const max = integer?.max ?? Number.POSITIVE_INFINITY;
      let above = Number.NEGATIVE_INFINITY;
      for (const check of checks) {
        const c = check._zod.def as { check: string; value?: unknown; inclusive?: boolean };
        if (c.check !== "greater_than" || typeof c.value !== "number") return null;
        if (c.inclusive) min = Math.max(min, c.value);
        else above = Math.max(above, c.value);
      }
      return (v) =>
        typeof v === "number" &&
        (integer ? Number.isInteger(v) : Number.isFinite(v)) &&
        v >= min &&
        v <= max &&
        v > above;
    }
    case "array": {
      const element = exactCheck(def.element as z.core.$ZodType);
      if (!element) return null;
      let min = 0;
      let max = Number.POSITIVE_INFINITY;
      for (const check of checks) {
        const c = check._zod.def as { check: string; minimum?: number; maximum?: number };
        if (c.check === "min_length" && c.minimum !== undefined) min = c.minimum;
        else if (c.check === "max_length" && c.maximum !== undefined) max = c.maximum;
        else return null;
      }
      return (v) => {
        if (!Array.isArray(v) || v.length < min || v.length > max) return false;
        for (const item of v) if (!element(item)) return false;
        return true;
      };
    }
    case "object": {
      if (checks.length > 0 || def.catchall !== undefined) return null;
      const shape = def.shape as Record<string, z.core.$ZodType>;
      const keys = Object.keys(shape);
      const fields: ExactCheck[] = [];
      // Most fields are texts: those are checked here, without a call each (5,000 recipients
      // have 225,000 fields).
      const texts: Text[] = [];
      for (const key of keys) {
        const field = exactCheck(shape[key] as z.core.$ZodType);
        if (!field) return null;
        fields.push(field);
        texts.push(textChecks.get(field) ?? Text.No);
      }
      return (v) => {
        if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
        const value = v as Record<string, unknown>;
        let i = 0;
        for (const key in value) {
          if (key !== keys[i]) return false;
          const item = value[key];
          const text = texts[i];
          if (
            text === Text.Nullable
              ? item !== null && typeof item !== "string"
              : text === Text.Plain
                ? typeof item !== "string"
                : !(fields[i] as ExactCheck)(item)
          )
            return false;
          i++;
        }
        return i === keys.length;
      };
    }
    default:
      return null;
  }
}

const exactChecks = new WeakMap<z.core.$ZodType, ExactCheck | null>();

/** The exact check of `schema` (built once per schema), or null when it has none. */
export function exactCheck(schema: z.core.$ZodType): ExactCheck | null {
  let check = exactChecks.get(schema);
  if (check === undefined) {
    // None while it is being built: a schema that contains itself has no check (it goes to zod).
    exactChecks.set(schema, null);
    check = buildExactCheck(schema);
    exactChecks.set(schema, check);
  }
  return check;
}

const exactDepths = new WeakMap<z.core.$ZodType, number>();

/**
 * How deep the values `schema`'s exact check accepts can nest arrays and objects (a text or number
 * is 0, an object of texts 1), or Infinity when the schema has no check: a value the check accepts
 * has the schema's shape, so it nests no deeper, whatever its size.
 */
export function exactDepth(schema: z.core.$ZodType): number {
  let depth = exactDepths.get(schema);
  if (depth === undefined) {
    // A schema with a check contains no schema without one, nor itself: the recursion ends.
    depth = exactCheck(schema) ? childDepth(schema) : Number.POSITIVE_INFINITY;
    exactDepths.set(schema, depth);
  }
  return depth;
}

function childDepth(schema: z.core.$ZodType): number {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  switch (def.type) {
    case "nullable":
      return exactDepth(def.innerType as z.core.$ZodType);
    case "array":
      return 1 + exactDepth(def.element as z.core.$ZodType);
    case "object":
      return (
        1 +
        Math.max(
          0,
          ...Object.values(def.shape as Record<string, z.core.$ZodType>).map((field) => exactDepth(field)),
        )
      );
    default:
      return 0;
  }
}
