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

/**
 * Bounds a caller adds to a schema's own rules, checked in the same walk (the sandbox's bounds on a
 * request): a value the check accepts with them is also within them.
 */
export interface ExactBounds {
  maxStringLength: number;
  maxArrayLength: number;
  maxObjectKeys: number;
  /** Whether a number is within bounds, by the name of the field it stands in (an array's items: the array's). */
  numberWithin: (value: number, key: string | undefined) => boolean;
}

/** Whether a value is a text, and of at most `longest` characters. */
const textCheck =
  (longest: number): ExactCheck =>
  (v) =>
    typeof v === "string" && v.length <= longest;
const nullableTextCheck =
  (longest: number): ExactCheck =>
  (v) =>
    v === null || (typeof v === "string" && v.length <= longest);
/** Which kind of text check a field's check is, so an object checks its texts inline. */
enum Text {
  No,
  Plain,
  Nullable,
}
/** The text checks of one set of bounds (or of none), each known for what it is. */
interface TextChecks {
  longest: number;
  plain: ExactCheck;
  nullable: ExactCheck;
  kinds: Map<ExactCheck, Text>;
}
function textChecks(longest: number): TextChecks {
  const plain = textCheck(longest);
  const nullable = nullableTextCheck(longest);
  return {
    longest,
    plain,
    nullable,
    kinds: new Map([
      [plain, Text.Plain],
      [nullable, Text.Nullable],
    ]),
  };
}
const UNBOUNDED_TEXTS = textChecks(Number.POSITIVE_INFINITY);

/** How one set of checks is built: the caller's bounds (none: the schema's rules alone) and its text checks. */
interface Build {
  bounds: ExactBounds | undefined;
  texts: TextChecks;
  cache: WeakMap<z.core.$ZodType, Map<string | undefined, ExactCheck | null>>;
}
const UNBOUNDED: Build = { bounds: undefined, texts: UNBOUNDED_TEXTS, cache: new WeakMap() };
const builds = new WeakMap<ExactBounds, Build>();

/**
 * A check built from a schema's own definition that accepts a value only when the schema's parse
 * would accept it and return a copy equal to it, key order included: plain strings and numbers,
 * nullable, arrays with length bounds, and objects (unknown keys stripped) whose keys are exactly
 * the shape's, in its order. Whatever else a schema holds (refinements, transforms, defaults,
 * optional keys, other checks) gives no check (null): such values always go through zod. The rules
 * stay the schema's; a value the check does not accept is parsed by zod, which writes the errors.
 * With bounds, it also accepts only values within them; `key` is the field the value stands in.
 */
function buildExactCheck(schema: z.core.$ZodType, build: Build, key: string | undefined): ExactCheck | null {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  const checks = (def.checks ?? []) as z.core.$ZodCheck[];
  const { bounds, texts } = build;
  if (def.coerce) return null;
  switch (def.type) {
    case "string":
      return checks.length === 0 ? texts.plain : null;
    case "nullable": {
      const inner = checkOf(def.innerType as z.core.$ZodType, build, key);
      if (inner === texts.plain) return texts.nullable;
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
      const within = (v: unknown): v is number =>
        typeof v === "number" &&
        (integer ? Number.isInteger(v) : Number.isFinite(v)) &&
        v >= min &&
        v <= max &&
        v > above;
      if (!bounds) return within;
      return (v) => within(v) && bounds.numberWithin(v, key);
    }
    case "array": {
      const element = checkOf(def.element as z.core.$ZodType, build, key);
      if (!element) return null;
      let min = 0;
      let max = bounds ? bounds.maxArrayLength : Number.POSITIVE_INFINITY;
      for (const check of checks) {
        const c = check._zod.def as { check: string; minimum?: number; maximum?: number };
        if (c.check === "min_length" && c.minimum !== undefined) min = c.minimum;
        else if (c.check === "max_length" && c.maximum !== undefined) max = Math.min(max, c.maximum);
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
      const kinds: Text[] = [];
      for (const name of keys) {
        const field = checkOf(shape[name] as z.core.$ZodType, build, name);
        if (!field) return null;
        fields.push(field);
        kinds.push(texts.kinds.get(field) ?? Text.No);
      }
      // Every value of this shape has as many keys: beyond the bounds, none is accepted.
      if (bounds && keys.length > bounds.maxObjectKeys) return () => false;
      const longest = texts.longest;
      return (v) => {
        if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
        const value = v as Record<string, unknown>;
        let i = 0;
        for (const name in value) {
          if (name !== keys[i]) return false;
          const item = value[name];
          const kind = kinds[i];
          if (
            kind === Text.Nullable
              ? item !== null && (typeof item !== "string" || item.length > longest)
              : kind === Text.Plain
                ? typeof item !== "string" || item.length > longest
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

/** The check of `schema` at `key` in one build, made once. */
function checkOf(schema: z.core.$ZodType, build: Build, key: string | undefined): ExactCheck | null {
  let byKey = build.cache.get(schema);
  if (!byKey) {
    byKey = new Map();
    build.cache.set(schema, byKey);
  }
  // Without bounds a check does not depend on its field's name.
  const at = build.bounds ? key : undefined;
  let check = byKey.get(at);
  if (check === undefined) {
    // None while it is being built: a schema that contains itself has no check (it goes to zod).
    byKey.set(at, null);
    check = buildExactCheck(schema, build, at);
    byKey.set(at, check);
  }
  return check;
}

/**
 * The exact check of `schema` (built once per schema and bounds), or null when it has none. With
 * `bounds`, it accepts only values that are also within them.
 */
export function exactCheck(schema: z.core.$ZodType, bounds?: ExactBounds): ExactCheck | null {
  let build = UNBOUNDED;
  if (bounds) {
    build = builds.get(bounds) ?? { bounds, texts: textChecks(bounds.maxStringLength), cache: new WeakMap() };
    builds.set(bounds, build);
  }
  return checkOf(schema, build, undefined);
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
