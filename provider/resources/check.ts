import type { z } from "zod";
import { formatPath, plainWords } from "../api/schemas/issues";
import type { CheckResult, EngineValues } from "./context";

/**
 * The value the engine sends during a preview for an input not known yet (the output of a resource
 * still to be created), such as the `orderId` of a new order.
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function isUnknown(value: unknown): boolean {
  return value === UNKNOWN;
}

/**
 * The names of a kind's inputs, typed as its inputs' keys: `Object.keys` of the schema's shape,
 * which holds exactly those (a strict object admits no other).
 */
export function inputKeys<Shape extends z.ZodRawShape>(schema: {
  shape: Shape;
}): (keyof z.output<z.ZodObject<Shape>>)[] {
  return Object.keys(schema.shape) as (keyof z.output<z.ZodObject<Shape>>)[];
}

/**
 * Validates a resource's inputs with its zod schema. Each failure names the property and says what
 * is allowed, in the schema's words or else in plain words (api/schemas/issues.ts). Properties not known yet (preview) are not judged; the engine checks again once they
 * are. On failure the inputs go back unchanged, so the engine reports the failures and stops.
 *
 * The engine prints a failure of property `p` as `property p value <the input's value> has a
 * problem: <reason>`. A problem inside a list or an object (`recipients[0].city`) is therefore
 * reported without a property, its path leading the reason: the engine would otherwise print the
 * whole list as the value.
 */
export function checkInputs<Schema extends z.ZodType>(
  schema: Schema,
  news: EngineValues,
): CheckResult<z.output<Schema>> {
  const { __provider: _provider, ...declared } = news;
  const parsed = schema.safeParse(declared, { error: plainWords });
  if (parsed.success) return { inputs: parsed.data };
  const failures = parsed.error.issues
    .filter((issue) => !isUnknown(declared[String(issue.path[0])]))
    .map((issue) =>
      issue.path.length === 1
        ? { property: String(issue.path[0]), reason: issue.message }
        : {
            property: "",
            reason: issue.path.length === 0 ? issue.message : `${formatPath(issue.path)}: ${issue.message}`,
          },
    );
  // Only inputs not known yet failed: the known ones still get their defaults, so that a preview
  // compares the same inputs as `up` will (an `autoBill` left out is `true` either way). They are the
  // inputs as far as they are known: the others hold the engine's marker.
  if (failures.length === 0) return { inputs: withDefaults(schema, news) as z.output<Schema> };
  return { inputs: news, failures };
}

/** The inputs with each property the schema defaults, when it is left out, set to its default. */
function withDefaults(schema: z.ZodType, inputs: Record<string, unknown>): Record<string, unknown> {
  const shape = (schema as Partial<z.ZodObject>).shape as Record<string, z.ZodType> | undefined;
  if (shape === undefined) return inputs;
  const filled = { ...inputs };
  for (const [key, field] of Object.entries(shape)) {
    if (filled[key] !== undefined) continue;
    const parsed = field.safeParse(undefined);
    if (parsed.success && parsed.data !== undefined) filled[key] = parsed.data;
  }
  return filled;
}
