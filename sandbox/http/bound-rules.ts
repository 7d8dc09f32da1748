/**
 * The rules of the sandbox's own bounds on the values of a request (assumptions.ts `BOUNDS`): what
 * makes one value out of bounds, and the same bounds as an exact check takes them, so that a body
 * its schema takes as it stands is checked against them in that one walk (bounds.ts walks the rest).
 */
import type { ExactBounds } from "../../provider/api/schemas/exact-check";
import { BOUNDS } from "../assumptions";

/** Names of values only looked up or paged through: any size the spec allows is answered. */
const LOOKED_UP = /^(id|recipient|pageNumber)$|Ids?$/;

/** Why `value` (at `key`) is out of bounds, or undefined. */
export function problemOf(value: unknown, key: PropertyKey | undefined): string | undefined {
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

/** The bounds as exact checks take them (exact-check.ts): the same verdict as `problemOf` on each value. */
export const REQUEST_BOUNDS: ExactBounds = {
  maxStringLength: BOUNDS.maxStringLength,
  maxArrayLength: BOUNDS.maxArrayLength,
  maxObjectKeys: BOUNDS.maxObjectKeys,
  numberWithin: (value, key) => problemOf(value, key) === undefined,
};
