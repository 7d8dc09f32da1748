/**
 * DeclaredSet.eachDifference, which the review compares two sides' recipients with, finds what a
 * comparison of the sets' keys and content digests as text finds: the recipients the other set has
 * not, and those it has with another content digest (with its row there), in the set's order.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DeclaredSet } from "../../../provider/recipients/index";

const hexWord = fc.integer({ min: 0, max: 0xffff_ffff }).map((word) => word.toString(16).padStart(8, "0"));
/** Keys from few high and low words, so that the two sides share many and tables collide. */
const key = fc
  .tuple(
    fc.constantFrom("00000000", "7fffffff", "ffffffff"),
    fc.constantFrom("00000001", "0000ffff", "80000000"),
  )
  .chain(([hi, lo]) =>
    fc.oneof(
      fc.constant(hi + lo),
      fc.tuple(hexWord, fc.constantFrom(lo)).map(([a, b]) => a + b),
      fc.tuple(hexWord, hexWord).map(([a, b]) => a + b),
    ),
  );
const content = fc.constantFrom("0000000000000001", "00000000ffffffff", "ffffffff00000000");
const side = fc.uniqueArray(fc.tuple(key, content), { selector: ([k]) => k, maxLength: 400 });

const setOf = (entries: readonly (readonly [string, string])[], firstRow: number) => {
  const set = new DeclaredSet();
  for (const [i, [k, c]] of entries.entries()) set.add({ key: k, content: c, row: firstRow + i });
  return set;
};

describe("DeclaredSet.eachDifference", () => {
  it("finds what comparing the keys and content digests as text finds, in the set's order", () => {
    fc.assert(
      fc.property(side, side, (a, b) => {
        const one = setOf(a, 2);
        const other = setOf(b, 7);
        const expected: [number, number | undefined][] = [];
        for (const recipient of one.values()) {
          const there = other.get(recipient.key);
          if (there === undefined) expected.push([recipient.row, undefined]);
          else if (there.content !== recipient.content) expected.push([recipient.row, there.row]);
        }
        const found: [number, number | undefined][] = [];
        one.eachDifference(other, (row, otherRow) => found.push([row, otherRow]));
        expect(found).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("finds nothing between a set and itself, and every recipient against an empty set", () => {
    const set = setOf(
      [
        ["0000000000000001", "0000000000000001"],
        ["0000000100000001", "ffffffff00000000"],
      ],
      2,
    );
    const found: [number, number | undefined][] = [];
    set.eachDifference(set, (row, otherRow) => found.push([row, otherRow]));
    expect(found).toEqual([]);
    set.eachDifference(new DeclaredSet(), (row, otherRow) => found.push([row, otherRow]));
    expect(found).toEqual([
      [2, undefined],
      [3, undefined],
    ]);
  });
});
