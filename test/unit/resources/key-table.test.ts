/**
 * The key table's storage (recipients/table.ts): entries grow by half again, or are made at the
 * size asked for, apart from the hash slots (a power of 2, at least twice the entries). Checked
 * against a Map of the same puts, for sizes on both sides of each growth.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KeyTable, RecipientIndex } from "../../../provider/recipients/index";

const hex = (n: number) => n.toString(16).padStart(8, "0");
/** The n-th key and content digest of a run: distinct keys, some sharing their low word. */
const keyOf = (seed: number, n: number) => hex((seed + n * 2654435761) >>> 0) + hex(n % 7 === 0 ? 5 : n);
const contentOf = (n: number) => hex(n) + hex(n * 31);

/** The table's entries in its order, with what `find` says of each key. */
function entriesOf(table: KeyTable): string[] {
  const out: string[] = [];
  for (let at = 0; at < table.size; at++) {
    const key = table.key(at);
    out.push(`${key} ${table.content(at)} ${table.rowOrId(at)} ${table.tagOrHash(at)} @${table.find(key)}`);
  }
  return out;
}

describe("KeyTable", () => {
  it("finds every key put, in the order put, whatever the size asked for and the sizes grown through", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 0, max: 0xffff_ffff }),
        (count, expected, seed) => {
          const table = new KeyTable(expected);
          const model = new Map<string, string>();
          for (let n = 0; n < count; n++) {
            table.put(keyOf(seed, n), contentOf(n), n, n + 1);
            model.set(keyOf(seed, n), `${contentOf(n)} ${n} ${n + 1}`);
          }
          // Put again: overwritten where they are, nothing added.
          for (let n = 0; n < count; n += 3) table.put(keyOf(seed, n), contentOf(n + 1), 7, 8);
          for (let n = 0; n < count; n += 3) model.set(keyOf(seed, n), `${contentOf(n + 1)} 7 8`);
          expect(table.size).toBe(model.size);
          expect(entriesOf(table)).toEqual([...model].map(([key, rest], at) => `${key} ${rest} @${at}`));
          expect(table.find(keyOf(seed, count))).toBe(-1);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("a table made for 1,100,000 entries takes their 26 MB and its slots, not room for 2^21 entries", () => {
    const before = process.memoryUsage().arrayBuffers;
    const index = new RecipientIndex(undefined, 1_100_000);
    const taken = process.memoryUsage().arrayBuffers - before;
    // 24 bytes an entry (26.4 MB) and 2^22 slots of 4 bytes (16.8 MB); room for 2^21 entries: 67 MB.
    expect(taken).toBeGreaterThan(42e6);
    expect(taken).toBeLessThan(45e6);
    expect(index.size).toBe(0);
  });
});
