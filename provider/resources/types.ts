/**
 * The public TypeScript surface of a resource, derived from its zod schemas so that every field is
 * written once, with its JSDoc, in its resource's `inputs.ts` or `outputs.ts`: the `Args` a program
 * passes, and the `Output` properties the resource object carries.
 *
 * The fields are plain objects of zod schemas (`Fields`), wrapped into a zod object where they are
 * parsed: TypeScript keeps a property's JSDoc in the emitted declarations (what a user's editor
 * reads) for a plain object, not for the type a zod object is inferred to have.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";

/**
 * A resource's arguments from the input type of its schema: each field takes its value or a
 * `pulumi.Input` of it, and so do the items of lists and the fields of nested objects. Optional
 * fields stay optional and take `undefined` too (also where a program sets
 * `exactOptionalPropertyTypes`): the engine treats it as left out. The field's JSDoc carries over.
 */
export type Inputs<T> = {
  [K in keyof T]:
    | pulumi.Input<InputValue<Exclude<T[K], undefined>>>
    | (undefined extends T[K] ? undefined : never);
};

/**
 * A value of an argument: itself, or for a list or an object, one whose items or fields are inputs.
 * (Tuple-wrapped tests: a union such as `boolean` stays one type, so that an Output<boolean> fits.)
 */
export type InputValue<T> = [T] extends [string | number | boolean | null]
  ? T
  : [T] extends [readonly (infer E)[]]
    ? pulumi.Input<InputValue<E>>[]
    : [T] extends [object]
      ? Inputs<T>
      : T;

/** The fields of a schema: a plain object of zod schemas, each with its JSDoc. */
export type Fields = Record<string, z.ZodType>;

/** The values the fields take in (defaults and optional fields may be left out). */
export type InputOf<F extends Fields> = z.input<z.ZodObject<F>>;
/** The values the fields hold once parsed. */
export type OutputOf<F extends Fields> = z.output<z.ZodObject<F>>;

/** A resource's arguments from the fields of its input schema. */
export type ArgsOf<F extends Fields> = Inputs<InputOf<F>>;

/** The keys of `T` a value must have. */
export type RequiredKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? never : K }[keyof T];

/**
 * The Output properties of a resource: every field of its outputs schema, and the inputs every
 * declaration has (the required ones), which the engine echoes back.
 */
export type OutputProperties<Outputs extends Fields, InputFields extends Fields> = {
  readonly [K in keyof OutputOf<Outputs>]-?: pulumi.Output<OutputOf<Outputs>[K]>;
} & {
  readonly [K in keyof OutputOf<InputFields> as K extends RequiredKeys<InputOf<InputFields>>
    ? K
    : never]-?: pulumi.Output<OutputOf<InputFields>[K]>;
};

/**
 * The outputs as `undefined` properties for the resource's constructor: the engine makes each of
 * them an Output property of the resource object, filled in when the provider answers.
 */
export function outputPlaceholders(outputs: Fields): Record<string, undefined> {
  return Object.fromEntries(Object.keys(outputs).map((key) => [key, undefined]));
}
