/**
 * A reader of a long list is held to the memory budget it was given when it was created (an
 * option or a parameter), not to a process-wide function it calls: each counts every row it reads
 * or passes over to that budget, and nothing to any other.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type BudgetedReader,
  installMemoryBudget,
  type MemoryBudget,
  memoryBudget,
  memoryPolicyInstalled,
} from "../../../provider/memory-budget";
import {
  keyValuesByRow,
  type RecipientList,
  recipientList,
  recordsAtLines,
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
  it("is the one a list is made with: every row its survey reads is counted to it", async () => {
    const memory = countingBudget();
    const inline = lines.map((line) => {
      const [customerId, firstName, lastName, address1, city, state, zipCode] = line.split(",");
      return { customerId, firstName, lastName, address1, city, state, zipCode };
    });
    const scanned = await recipientList(
      { inline },
      { identityField: "custom1", keyColumn: "customerId", memory: memory.budget },
    ).survey();
    expect(scanned.set.size).toBe(ROWS);
    expect(memory.rows()).toBe(ROWS);
    expect(memory.calls).toEqual([]);
  });

  it("is the one a file's rows read again are given: the rows passed over count too", async () => {
    const memory = countingBudget();
    const list = recipientList(file, {
      identityField: "custom1",
      keyColumn: "customerId",
      memory: memory.budget,
    });
    const found = await list.fieldsAt(new Set([ROWS]));
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

/**
 * Installs the process's policy (which the tests above must not find installed: they run first): every budget it hands out counts to `given`, and each request is recorded in `asked`.
 */
function installCountingPolicy() {
  const policy = { asked: [] as BudgetedReader[], given: countingBudget() };
  installMemoryBudget((reader) => {
    policy.asked.push(reader);
    return policy.given.budget;
  });
  return policy;
}

/** Every read of a list, each row counted once or more: survey, load, read again (whole and some rows), fields at rows. */
async function readEveryWay(list: RecipientList): Promise<void> {
  const surveyed = await list.survey();
  expect(surveyed.set.size).toBe(ROWS);
  expect((await list.load()).byKey.size).toBe(ROWS);
  let again = 0;
  for await (const _ of list.readAgain(surveyed.set, () => new Error("changed"))) again += 1;
  expect(again).toBe(ROWS);
  for await (const _ of list.readAgain(surveyed.set, () => new Error("changed"), new Set([ROWS]))) again += 1;
  expect(again).toBe(ROWS + 1);
  expect((await list.fieldsAt(new Set([2, ROWS]))).size).toBe(2);
}

describe("a recipient list's budget, taken when the list is made", () => {
  // Installed when these tests start, not as the file is collected: the ones above find none.
  let policy: ReturnType<typeof installCountingPolicy>;
  beforeAll(() => {
    policy = installCountingPolicy();
  });
  beforeEach(() => {
    policy.asked = [];
    policy.given = countingBudget();
  });
  const keyed = { identityField: "custom1" as const, keyColumn: "customerId" };

  it("is the one it is made with, in every read: none asks the process's policy for another", async () => {
    const memory = countingBudget();
    const list = recipientList(file, { ...keyed, memory: memory.budget });
    await readEveryWay(list);
    // Survey, load and the whole read again: each row once; the others, the rows up to the last asked.
    expect(memory.rows()).toBeGreaterThan(3 * ROWS);
    expect(policy.asked).toEqual([]);
    expect(policy.given.rows()).toBe(0);
  });

  it("is the one it is made with when a survey without content digests reads repeated keys again", async () => {
    const memory = countingBudget();
    const repeated = { file: "repeated.csv", relativeTo: dir };
    fs.writeFileSync(
      path.join(dir, repeated.file),
      `customerId,firstName,lastName,address1,city,state,zipCode
${lines.join("\n")}
${lines[0]}
`,
    );
    const list = recipientList(repeated, { ...keyed, contentDigests: false, memory: memory.budget });
    const surveyed = await list.survey();
    expect(surveyed.duplicateRows).toBe(1);
    // The read, then the earlier row of the repeated key read again.
    expect(memory.rows()).toBeGreaterThan(ROWS + 1);
    expect(policy.asked).toEqual([]);
    expect(policy.given.rows()).toBe(0);
  });

  it("is the provider's, asked for once when the list is made without one, and kept for every read", async () => {
    const list = recipientList(file, keyed);
    expect(policy.asked).toEqual(["provider"]);
    await readEveryWay(list);
    expect(policy.asked).toEqual(["provider"]);
    expect(policy.given.rows()).toBeGreaterThan(3 * ROWS);
  });
});
