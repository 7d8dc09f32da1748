/**
 * A reader of a long list is held to the memory budget it was given when it was created (an
 * option or a parameter), not to a process-wide function it calls: each counts every row it reads
 * or passes over to that budget, and nothing to any other.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type MemoryBudget, memoryBudget, memoryPolicyInstalled } from "../../../provider/memory-budget";
import {
  keyValuesByRow,
  recipientsAtRows,
  recordsAtLines,
  scanRecipients,
} from "../../../provider/recipients/index";

const ROWS = 2_500;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-reader-budget-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const lines = Array.from(
  { length: ROWS },
  (_, n) => `C${n},Ada${n},Lovelace,${n + 1} Main St,Springfield,IL,62701`,
);
fs.writeFileSync(
  path.join(dir, "list.csv"),
  `customerId,firstName,lastName,address1,city,state,zipCode\n${lines.join("\n")}\n`,
);
const file = { file: "list.csv", relativeTo: dir };

/** A budget that counts the rows it is told of, and records every other call. */
function countingBudget() {
  const calls: string[] = [];
  let rows = 0;
  const budget: MemoryBudget = {
    listStarted: () => calls.push("listStarted"),
    rowsHandled: (count) => {
      rows += count;
    },
    garbageLeft: () => calls.push("garbageLeft"),
    settle: () => calls.push("settle"),
    hookStarted: () => calls.push("hookStarted"),
    hookEnded: () => calls.push("hookEnded"),
  };
  return { budget, calls, rows: () => rows };
}

describe("a reader's memory budget", () => {
  it("is the one a scan is given in its options: every row read is counted to it", async () => {
    const memory = countingBudget();
    const inline = lines.map((line) => {
      const [customerId, firstName, lastName, address1, city, state, zipCode] = line.split(",");
      return { customerId, firstName, lastName, address1, city, state, zipCode };
    });
    const scanned = await scanRecipients(
      { inline },
      { identityField: "custom1", keyColumn: "customerId", memory: memory.budget },
    );
    expect(scanned.set.size).toBe(ROWS);
    expect(memory.rows()).toBe(ROWS);
    expect(memory.calls).toEqual([]);
  });

  it("is the one a file's rows read again are given: the rows passed over count too", async () => {
    const memory = countingBudget();
    const found = await recipientsAtRows(file, { keyColumn: "customerId" }, new Set([ROWS]), memory.budget);
    expect(found.get(ROWS)?.keyValue).toBe(`C${ROWS - 2}`);
    // The CSV's records are picked by their lines, each line passed over counted, then parsed.
    expect(memory.rows()).toBeGreaterThan(ROWS / 2);
  });

  it("is the one a pick of lines and a read of key values are given", async () => {
    const picking = countingBudget();
    async function* pieces() {
      for (let n = 0; n < ROWS; n += 100) yield `${lines.slice(n, n + 100).join("\n")}\n`;
    }
    const picked = await recordsAtLines(pieces(), new Set([ROWS - 1]), picking.budget);
    expect(picked.lines.size).toBe(2);
    // Counted as each piece is read: the lines of every piece but the last one looked at.
    expect(picking.rows()).toBeGreaterThan(ROWS - 200);

    const keys = countingBudget();
    const values = await keyValuesByRow(file, "customerId", undefined, keys.budget);
    expect(values.size).toBe(ROWS);
    expect(keys.rows()).toBe(ROWS);
  });

  it("does nothing where no process entry installed the policy (a module loaded on its own)", () => {
    expect(memoryPolicyInstalled()).toBe(false);
    expect(() => memoryBudget().rowsHandled(1_000_000)).not.toThrow();
  });
});
