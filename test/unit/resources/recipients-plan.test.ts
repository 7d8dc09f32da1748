import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  changesKnown,
  type DeclaredKey,
  DeclaredSet,
  describePlan,
  firstChanges,
  type IndexEntry,
  planSync,
  RecipientIndex,
  UNKNOWN_CONTENT,
} from "../../../provider/recipients/index";

/** Keys and content digests are 64-bit hex: `k1`, `c2-new` stand for the hex of their hash. */
const names = new Map<string, string>();
const hex = (name: string) => {
  const value =
    name === UNKNOWN_CONTENT ? name : createHash("sha256").update(name).digest("hex").slice(0, 16);
  names.set(value, name);
  return value;
};
const named = (value: string) => names.get(value) ?? value;

/** A declared recipient under a key column: key `k<n>`, content `c<version>`. */
function declared(entries: [key: string, content: string][]): DeclaredSet {
  const set = new DeclaredSet();
  entries.forEach(([key, content], i) => {
    set.add({ key: hex(key), content: hex(content), row: i + 2 });
  });
  return set;
}
const entry = (id: number, content: string): IndexEntry => ({ id, content: hex(content), listed: 7 });
const index = (entries: [string, IndexEntry][]) =>
  new RecipientIndex(entries.map(([key, e]) => [hex(key), e] as const));
const keys = (recipients: Iterable<DeclaredKey> | RecipientIndex) =>
  [...(recipients instanceof RecipientIndex ? recipients.keys() : [...recipients].map((r) => r.key))].map(
    named,
  );

describe("the plan of an update", () => {
  const current = index([
    ["k1", entry(101, "c1")],
    ["k2", entry(102, "c2")],
    ["k3", entry(103, "c3")],
    ["k4", entry(0, "c4")], // dropped by the service, not on the order
  ]);

  it("keeps unchanged keys, and replaces a key whose content changed: old id deleted, new row appended", () => {
    const plan = planSync(
      declared([
        ["k1", "c1"],
        ["k2", "c2-new"],
        ["k3", "c3"],
        ["k4", "c4"],
      ]),
      current,
    );
    expect(keys(plan.keep)).toEqual(["k1", "k3", "k4"]);
    expect(plan.removeIds).toEqual([102]);
    expect([...plan.append].map((r) => [named(r.key), named(r.content)])).toEqual([["k2", "c2-new"]]);
    expect(plan.appendCount).toBe(1);
    expect(plan).toMatchObject({ added: 0, removed: 0, changed: 1, unknown: 0 });
    expect(describePlan(plan)).toBe("0 added, 0 removed, 1 changed");
    expect(changesKnown(plan)).toBe(true);
  });

  it("works together with rows added and removed in the same edit", () => {
    const plan = planSync(
      declared([
        ["k1", "c1-new"],
        ["k3", "c3"],
        ["k5", "c5"],
        ["k4", "c4-new"],
      ]),
      current,
    );
    expect(keys(plan.keep)).toEqual(["k3"]);
    expect(plan.removeIds.sort()).toEqual([101, 102]); // k1 changed, k2 removed; k4 has no id to delete
    expect(keys(plan.append)).toEqual(["k1", "k5", "k4"]);
    expect(describePlan(plan)).toBe("1 added, 1 removed, 2 changed");
  });

  it("tells its kept recipients from those the sync records in its table after them", () => {
    const list = declared([
      ["k1", "c1-new"],
      ["k3", "c3"],
      ["k5", "c5"],
    ]);
    const plan = planSync(list, current);
    // What the sync does with each recipient it appends: recorded in the plan's own table.
    for (const appended of [...plan.append]) plan.keep.set(appended.key, entry(500, named(appended.content)));
    expect(keys(plan.keep)).toEqual(["k3", "k1", "k5"]);
    expect(["k1", "k3", "k5", "k9"].map((key) => plan.isKept(hex(key)))).toEqual([false, true, false, false]);
    expect(keys(plan.append)).toEqual(["k1", "k5"]);
  });

  it("an unchanged list is an empty plan", () => {
    const plan = planSync(
      declared([
        ["k1", "c1"],
        ["k2", "c2"],
        ["k3", "c3"],
        ["k4", "c4"],
      ]),
      current,
    );
    expect(plan.removeIds).toEqual([]);
    expect([...plan.append]).toEqual([]);
    expect(plan.appendCount).toBe(0);
    expect(changesKnown(plan)).toBe(false);
  });

  it("counts recipients recorded without their content apart: replaced unless settled first", () => {
    const unknown = index([
      ["k1", entry(101, UNKNOWN_CONTENT)],
      ["k2", entry(102, "c2")],
    ]);
    const plan = planSync(
      declared([
        ["k1", "c1"],
        ["k2", "c2"],
      ]),
      unknown,
    );
    expect(plan).toMatchObject({ added: 0, removed: 0, changed: 0, unknown: 1, removeIds: [101] });
    expect(describePlan(plan)).toBe("0 added, 0 removed, 0 changed, 1 whose content was not recorded");
    expect(changesKnown(plan)).toBe(false);
  });

  it("names the first few added and changed recipients apart, in the list's order, leaving out those of unknown content", () => {
    const recorded = index([
      ["k1", entry(101, "c1")],
      ["k2", entry(102, UNKNOWN_CONTENT)],
      ["k3", entry(103, "c3")],
      ["k4", entry(104, "c4")],
    ]);
    const list = declared([
      ["k1", "c1-new"],
      ["k2", "c2"],
      ["k5", "c5"],
      ["k3", "c3-new"],
      ["k6", "c6"],
      ["k4", "c4-new"],
      ["k7", "c7"],
    ]);
    const plan = planSync(list, recorded);
    const rows = (recipients: DeclaredKey[]) => recipients.map((r) => `${named(r.key)}@${r.row}`);
    const two = firstChanges(plan, recorded, 2);
    expect({ added: rows(two.added), changed: rows(two.changed) }).toEqual({
      added: ["k5@4", "k6@6"],
      changed: ["k1@2", "k3@5"],
    });
    const all = firstChanges(plan, recorded, 10);
    expect(all.added).toHaveLength(plan.added);
    expect(all.changed).toHaveLength(plan.changed);
  });
});
