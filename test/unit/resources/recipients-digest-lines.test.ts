/**
 * The digest of a recipient set hashed from its key table's words (digestOfSet, KeyTable.sortedLines)
 * is the digest of its (key, content digest) pairs as text (digestOf): stacks store it, so it must
 * not move. And contentKey, which reads each row in its own order once it knows the list's shape,
 * gives the key the declared fields always gave, whatever the shapes and their order.
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  contentKey,
  DECLARED_FIELDS,
  type DeclaredRecipient,
  DeclaredSet,
  digestOf,
  digestOfSet,
  KEY_HEX_LENGTH,
  KeyTable,
  RecipientIndex,
} from "../../../provider/recipients/index";

const hexWord = fc.integer({ min: 0, max: 0xffff_ffff }).map((word) => word.toString(16).padStart(8, "0"));
/** Keys from few high words, so that many share one (the sort's second pass). */
const key = fc
  .tuple(fc.constantFrom("00000000", "7fffffff", "80000000", "ffffffff", "0000ffff"), hexWord)
  .chain(([hi, lo]) =>
    fc.oneof(
      fc.constant(hi + lo),
      fc.tuple(hexWord, hexWord).map(([a, b]) => a + b),
    ),
  );
/** A set's pairs: each key once, its content digest its key (no key column) or another. */
const pairs = fc
  .uniqueArray(fc.tuple(key, fc.option(fc.tuple(hexWord, hexWord), { nil: undefined })), {
    selector: ([k]) => k,
    maxLength: 3000,
  })
  .map((entries) => entries.map(([k, content]) => [k, content ? content.join("") : k] as const));

describe("digestOfSet", () => {
  it("is digestOf of the same pairs, for a DeclaredSet and a RecipientIndex, in any order of adding", () => {
    fc.assert(
      fc.property(pairs, fc.constantFrom("custom6", "custom1"), (entries, identityField) => {
        const set = new DeclaredSet();
        const index = new RecipientIndex();
        entries.forEach(([k, content], i) => {
          set.add({ key: k, content, row: i + 2 });
          index.set(k, { id: i + 1, content, listed: 0 });
        });
        const expected = digestOf(entries, identityField);
        expect(digestOfSet(set, identityField)).toBe(expected);
        expect(digestOfSet(index, identityField)).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });

  it("hashes the identity field line alone for an empty set", () => {
    const expected = createHash("sha256").update("identity:custom6\n").digest("hex");
    expect(digestOfSet(new DeclaredSet(), "custom6")).toBe(expected);
    expect(digestOf([], "custom6")).toBe(expected);
  });

  it("hands the lines on in chunks of at most 64 KiB, each line whole", () => {
    const set = new DeclaredSet();
    for (let i = 0; i < 5000; i++) {
      const k = i.toString(16).padStart(KEY_HEX_LENGTH, "0");
      set.add({ key: k, content: i % 2 ? k : "f".repeat(KEY_HEX_LENGTH), row: i + 2 });
    }
    const chunks: string[] = [];
    set.sortedLines((chunk) => chunks.push(Buffer.from(chunk).toString("latin1")));
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(1 << 16);
      expect(chunk.endsWith("\n")).toBe(true);
    }
    const lines = chunks.join("").split("\n").slice(0, -1);
    expect(lines).toHaveLength(5000);
    expect(lines[0]).toBe(`${"0".repeat(KEY_HEX_LENGTH)} ${"f".repeat(KEY_HEX_LENGTH)}`);
    expect(lines[1]).toBe("1".padStart(KEY_HEX_LENGTH, "0"));
  });
});

describe("KeyTable.sorted", () => {
  it("gives the positions in the order of the keys as text, keys that share a high word included", () => {
    fc.assert(
      fc.property(pairs, (entries) => {
        const table = new KeyTable();
        for (const [k, content] of entries) table.put(k, content, 0, 0);
        const keys = [...table.sorted()].map((at) => table.key(at));
        expect(keys).toEqual(entries.map(([k]) => k).sort());
      }),
      { numRuns: 200 },
    );
  });
});

/** contentKey as it was written before it learnt a list's shape: each declared field looked up by name. */
function contentKeyByName(recipient: DeclaredRecipient): string {
  const fields = [...DECLARED_FIELDS].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const pairs: [string, string][] = [];
  for (const name of fields) {
    const value = recipient[name];
    if (value !== undefined && value !== "") pairs.push([name, value]);
  }
  return createHash("sha256").update(JSON.stringify(pairs)).digest("hex").slice(0, KEY_HEX_LENGTH);
}

const value = fc.oneof(
  fc.constantFrom(
    "",
    "Ada",
    "1 Main St",
    'say "hi"',
    "back\\slash",
    "tab\there",
    "\u00e9t\u00e9",
    "\ud83d\ude00",
  ),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 6 }),
);
/** Recipients of a few shapes (which fields, in which order), as the rows of lists are. */
const recipients = fc
  .array(fc.shuffledSubarray([...DECLARED_FIELDS], { minLength: 1, maxLength: 8 }), {
    minLength: 1,
    maxLength: 3,
  })
  .chain((shapes) =>
    fc.array(
      fc
        .tuple(fc.constantFrom(...shapes), fc.array(value, { minLength: 8, maxLength: 8 }))
        .map(
          ([names, values]) =>
            Object.fromEntries(names.map((name, i) => [name, values[i]])) as DeclaredRecipient,
        ),
      { maxLength: 40 },
    ),
  );

describe("contentKey", () => {
  it("gives each recipient the key its fields gave by name, as the shapes of the rows change", () => {
    fc.assert(
      fc.property(recipients, (rows) => {
        for (const recipient of rows) expect(contentKey(recipient)).toBe(contentKeyByName(recipient));
      }),
      { numRuns: 300 },
    );
  });

  it("does not depend on the order of the fields or on blank ones", () => {
    const a = { firstName: "Ada", city: "Springfield", zipCode: "62701" } as DeclaredRecipient;
    const b = { zipCode: "62701", lastName: "", city: "Springfield", firstName: "Ada" } as DeclaredRecipient;
    expect(contentKey(a)).toBe(contentKey(b));
    expect(contentKey(b)).toBe(contentKey(a));
    expect(contentKey({ ...a, city: "Shelbyville" } as DeclaredRecipient)).not.toBe(contentKey(a));
  });
});
