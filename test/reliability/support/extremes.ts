/**
 * fast-check arbitraries of a request's values at their extremes, read from the zod schema of the
 * field: numbers at the edges of every integer width and of doubles, texts empty, huge, of
 * prototype names and control characters, lists empty and longer than any bound, enums off their
 * list. Each field is the schema's own shape, so a request reaches the checks behind its schema.
 */
import fc from "fast-check";
import type { z } from "zod";

/** Numbers at every edge a parser or a loop might meet. */
export const EXTREME_NUMBERS = [
  0,
  -1,
  1,
  0.5,
  -0.5,
  999,
  1_000,
  1_001,
  5_000,
  5_001,
  100_000,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  1_000_000_001,
  2 ** 53 - 1,
  -(2 ** 53 - 1),
  2 ** 53 + 2,
  1e21,
  1e308,
  -1e308,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
];

/** Texts: empty, blank, prototype names, control and astral characters, and very long. */
export const EXTREME_TEXTS = [
  "",
  " ",
  "constructor",
  "__proto__",
  "toString",
  "\u0000",
  "\u202e\u0007",
  "𝕏".repeat(3),
  "9007199254740993",
  "1e308",
  "-0",
  "0000-00-00T00:00:00Z",
  "275760-09-13T00:00:00.001Z",
  "x".repeat(10_001),
  "y".repeat(200_000),
];

/** A list longer than any bound, of one item (kept small in bytes: the item is repeated). */
const LONG_LIST = 12_000;

function defOf(schema: z.ZodType): { type: string } & Record<string, any> {
  return (schema as unknown as { _zod: { def: { type: string } & Record<string, any> } })._zod.def;
}

/**
 * An arbitrary of values for `schema`, at its extremes; `depth` bounds nested schemas. `small`
 * (the item of a long list) keeps texts short and lists short, so a request stays a few MB.
 */
export function extremeOf(schema: z.ZodType, depth = 0, small = false): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.constant(null);
  const inner = (next: z.ZodType, deeper = depth) => extremeOf(next, deeper, small);
  const def = defOf(schema);
  switch (def.type) {
    case "number":
    case "bigint":
      return fc.oneof(fc.constantFrom(...EXTREME_NUMBERS), fc.double({ noNaN: true }), fc.integer());
    case "string":
      return fc.oneof(
        fc.constantFrom(...EXTREME_TEXTS.filter((text) => !small || text.length <= 20)),
        fc.string({ maxLength: 20 }),
      );
    case "boolean":
      return fc.oneof(fc.boolean(), fc.constant("true"));
    case "enum":
      return fc.constantFrom(...Object.values(def.entries as Record<string, unknown>), "NotAnOption");
    case "literal":
      return fc.constantFrom(...(def.values as unknown[]));
    case "optional":
      return fc.oneof({ arbitrary: inner(def.innerType), weight: 4 }, fc.constant(undefined));
    case "nullable":
      return fc.oneof({ arbitrary: inner(def.innerType), weight: 4 }, fc.constant(null));
    case "default":
    case "prefault":
    case "catch":
    case "readonly":
    case "nonoptional":
      return inner(def.innerType);
    case "pipe":
      return inner(def.in);
    case "lazy":
      return inner(def.getter(), depth + 1);
    case "array": {
      const item = inner(def.element, depth + 1);
      if (small) return fc.array(item, { maxLength: 2 });
      return fc.oneof(
        { arbitrary: fc.array(item, { maxLength: 3 }), weight: 5 },
        extremeOf(def.element, depth + 1, true).map((one) => Array.from({ length: LONG_LIST }, () => one)),
      );
    }
    case "object": {
      const shape = def.shape as Record<string, z.ZodType>;
      const fields = Object.fromEntries(
        Object.entries(shape).map(([key, field]) => [key, inner(field, depth + 1)]),
      );
      return fc
        .record(fields)
        .map((value) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)));
    }
    case "record":
      return fc.dictionary(
        fc.constantFrom("constructor", "__proto__", "custom1", "k"),
        inner(def.valueType, depth + 1),
        {
          maxKeys: 3,
        },
      );
    case "union":
      return fc.oneof(...(def.options as z.ZodType[]).map((option) => inner(option, depth + 1)));
    default:
      return fc.anything({ maxDepth: 2 });
  }
}
