/**
 * Recipient changes between the base and the head of a change, read with the provider's loader:
 * by key value with a key column, by content without one; never a name or an address unless asked.
 */
import * as fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { BaseRowsKept, compareRecipients, type RecipientsSide } from "../../../../cli/review/recipients";
import { surveyList } from "../../../../provider/campaign/recipients-check";
import type { DeclaredSet } from "../../../../provider/recipients/index";
import { keyValuesByRow, recipientList } from "../../../../provider/recipients/index";
import { tempDir } from "../../campaign/fixtures";

const tmp = tempDir("directmail-review-recipients-");
afterAll(tmp.remove);

const HEADER = "customerId,firstName,lastName,address1,city,state,zipCode";
const BASE = [
  HEADER,
  "C-1,Ada,Lovelace,12 Analytical St,London,KY,40741",
  "C-2,Grace,Hopper,1 Compiler Way,Arlington,VA,22202",
  "C-3,Alan,Turing,7 Enigma Road,Portland,OR,97205",
].join("\n");
// C-2 removed, C-3 moved, C-4 added; CRLF line ends, a BOM and a blank line on the way.
const HEAD = `\uFEFF${[
  HEADER,
  "C-1,Ada,Lovelace,12 Analytical St,London,KY,40741",
  "",
  "C-3,Alan,Turing,9 Bletchley Park,Portland,OR,97209",
  "C-4,Katherine,Johnson,3 Orbit Drive,Madison,WI,53703",
].join("\r\n")}\r\n`;

const side = (file: string, keyColumn?: string): RecipientsSide => ({
  source: { file },
  shownAs: file.slice(tmp.dir.length + 1),
  keyColumn,
  identityField: undefined,
});

const PERSONAL = [
  "Lovelace",
  "Hopper",
  "Turing",
  "Johnson",
  "Analytical",
  "Compiler",
  "Bletchley",
  "Orbit",
  "London",
];

describe("recipient changes", () => {
  it("by key column: added, removed and changed by key value, with their rows and the fields that changed", async () => {
    const base = tmp.write("keyed/base.csv", BASE);
    const head = tmp.write("keyed/head.csv", HEAD);
    const changes = await compareRecipients(side(base, "customerId"), side(head, "customerId"), {
      showPersonalData: false,
    });
    expect(changes).toEqual({
      by: "key",
      keyColumn: "customerId",
      base: { shownAs: "keyed/base.csv", count: 3 },
      head: { shownAs: "keyed/head.csv", count: 3 },
      added: 1,
      removed: 1,
      changed: 1,
      addedList: [{ key: "C-4", row: 5 }],
      removedList: [{ key: "C-2", row: 3 }],
      changedList: [{ key: "C-3", row: 4, fields: ["address1", "zipCode"] }],
      notes: [],
    });
    const text = JSON.stringify(changes);
    for (const word of PERSONAL) expect(text).not.toContain(word);
  });

  it("shows names and addresses only with showPersonalData", async () => {
    const changes = await compareRecipients(
      side(tmp.write("shown/base.csv", BASE), "customerId"),
      side(tmp.write("shown/head.csv", HEAD), "customerId"),
      { showPersonalData: true },
    );
    expect(changes.addedList).toEqual([
      { key: "C-4", row: 5, personal: "Katherine Johnson, 3 Orbit Drive, Madison, WI 53703" },
    ]);
    expect(changes.changedList[0]).toMatchObject({
      before: "Alan Turing, 7 Enigma Road, Portland, OR 97205",
      personal: "Alan Turing, 9 Bletchley Park, Portland, OR 97209",
    });
  });

  it("without a key column: added and removed by content, shown by row; a moved recipient is one of each", async () => {
    // The same lists without their key column.
    const unkeyed = (csv: string) => csv.replace(/^(\uFEFF?)[^,\r\n]*,/gm, "$1");
    const changes = await compareRecipients(
      side(tmp.write("content/base.csv", unkeyed(BASE))),
      side(tmp.write("content/head.csv", unkeyed(HEAD))),
      { showPersonalData: false },
    );
    expect(changes.by).toBe("content");
    expect(changes.addedList).toEqual([{ row: 4 }, { row: 5 }]);
    expect(changes.removedList).toEqual([{ row: 3 }, { row: 4 }]);
    expect(changes.changed).toBe(0);
  });

  it("a new campaign adds every recipient; a key column changed compares by content and says why", async () => {
    const head = tmp.write("new/head.csv", HEAD);
    const added = await compareRecipients(undefined, side(head, "customerId"), { showPersonalData: false });
    expect(added).toMatchObject({ base: undefined, added: 3, removed: 0, changed: 0 });
    expect(added.addedList.map((e) => e.key)).toEqual(["C-1", "C-3", "C-4"]);
    const rekeyed = await compareRecipients(
      side(tmp.write("new/base.csv", BASE.replace("customerId", "id")), "id"),
      side(head, "customerId"),
      {
        showPersonalData: false,
      },
    );
    expect(rekeyed.by).toBe("content");
    expect(rekeyed.notes).toEqual([
      "the key column changed (id → customerId): recipients are compared by content, and every recipient is sent again under its new key",
    ]);
  });

  it("a key value of any length is shown short, its control characters escaped", async () => {
    const long = `K${"x".repeat(100_000)}`;
    const head = tmp.write(
      "long/head.csv",
      `${HEADER}\n${long},Ada,Lovelace,1 A St,London,KY,40741\n"a\tb",Al,T,2 A St,London,KY,40741\n`,
    );
    const changes = await compareRecipients(undefined, side(head, "customerId"), { showPersonalData: false });
    expect(changes.addedList).toEqual([
      { key: `K${"x".repeat(199)}…`, row: 2 },
      { key: "a\\tb", row: 3 },
    ]);
  });

  it("a side whose file has problems is not compared, and says so", async () => {
    const broken = tmp.write("broken/head.csv", `${HEADER}\nC-1,Ada,Lovelace,,London,KY,40741\n`);
    const changes = await compareRecipients(
      side(tmp.write("broken/base.csv", BASE), "customerId"),
      side(broken, "customerId"),
      {
        showPersonalData: false,
      },
    );
    expect(changes).toMatchObject({ head: undefined, added: 0, removed: 0, changed: 0 });
    expect(changes.notes).toEqual([
      "the recipients at the head (broken/head.csv) have problems; they are not compared",
    ]);
  });

  it("reads key values at the rows the loader gives, in CSV, JSON, JSON Lines and inline lists", async () => {
    const rows = [
      { customerId: "J-1", firstName: "Ada", address1: "1 A St", city: "X", state: "IL", zipCode: "62701" },
      { customerId: "J-2", firstName: "Al", address1: "2 A St", city: "X", state: "IL", zipCode: "62701" },
    ];
    const sources = [
      { file: tmp.write("formats/r.csv", HEAD) },
      { file: tmp.write("formats/r.json", JSON.stringify(rows, null, 2)) },
      { file: tmp.write("formats/r.jsonl", `${JSON.stringify(rows[0])}\n\n${JSON.stringify(rows[1])}\n`) },
      { inline: rows },
    ];
    for (const source of sources) {
      const loaded = await recipientList(source, {
        identityField: "custom6",
        keyColumn: "customerId",
      }).load();
      const values = await keyValuesByRow(source, "customerId");
      const byRow = [...loaded.byKey.values()].map((r) => values.get(r.row));
      expect(
        byRow.every((v) => v !== undefined && /^[CJ]-\d$/.test(v)),
        JSON.stringify(source),
      ).toBe(true);
      expect(new Set(byRow).size).toBe(loaded.byKey.size);
    }
  });
});

describe("the base's rows kept as the loader reads the base", () => {
  /** Rows 0..count-1 with every `changeEvery`th one changed, those from `from` on only. */
  const list = (count: number, changeEvery: number, from = 0) =>
    `${[
      HEADER,
      ...Array.from({ length: count - from }, (_, i) => {
        const n = i + from;
        const changed = n % changeEvery === 0 ? "Byron" : "Lovelace";
        return `C-${n},Ada${n},${changed},${n + 1} Main St,Springfield,IL,62701`;
      }),
    ].join("\n")}\n`;

  it("list what reading the base again lists, beyond MAX_LISTED of each kind, and spare that read", async () => {
    for (const keyColumn of ["customerId", undefined]) {
      const dir = keyColumn ? "kept-keyed" : "kept-content";
      const baseFile = tmp.write(`${dir}/base.csv`, list(3000, 1000, 0).replaceAll("Byron", "Lovelace"));
      // 1,200 removed (the first rows), every 2nd one changed, 1 added at the end.
      const headFile = tmp.write(`${dir}/head.csv`, list(3001, 2, 1200));
      const options = { identityField: "custom6" as const, ...(keyColumn ? { keyColumn } : {}) };
      const head = await surveyList({ file: headFile }, options);
      const keeper = new BaseRowsKept(head.list.set as DeclaredSet);
      const base = await surveyList({ file: baseFile }, options, keeper.seen);
      const sides = (rowsKept?: BaseRowsKept) =>
        [
          { ...side(baseFile, keyColumn), list: base.list, rowsKept },
          { ...side(headFile, keyColumn), list: head.list },
        ] as const;
      for (const showPersonalData of [false, true]) {
        const reread = await compareRecipients(...sides(), { showPersonalData });
        // By content, a changed recipient is one removed and one added.
        expect([reread.removed, reread.changed]).toEqual(keyColumn ? [1200, 900] : [2100, 0]);
        fs.renameSync(baseFile, `${baseFile}.away`);
        try {
          expect(await compareRecipients(...sides(keeper), { showPersonalData })).toEqual(reread);
        } finally {
          fs.renameSync(`${baseFile}.away`, baseFile);
        }
      }
    }
  });
});
