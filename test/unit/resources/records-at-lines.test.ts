/**
 * Rows of a CSV file read again at their lines (RecipientList.fieldsAt, recordsAtLines): found without
 * parsing the rows between, they are what a whole read finds at those lines, whatever the quotes,
 * the line ends inside values, the empty lines and the line ends of the file.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { memoryBudget } from "../../../provider/memory-budget";
import { recipientList, recordsAtLines } from "../../../provider/recipients/index";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-records-at-lines-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A CSV value: plain, or quoted with a comma, a doubled quote or a line end inside. */
const value = fc.oneof(
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,7}$/),
  fc
    .tuple(
      fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,4}$/),
      fc.constantFrom(",", '""', "\n", "\r\n", "\r"),
      fc.stringMatching(/^[A-Za-z]{1,5}$/),
    )
    .map(([a, inside, b]) => `"${a}${inside}${b}"`),
);

const file = fc.record({
  rows: fc.array(fc.tuple(value, value, fc.boolean()), { minLength: 1, maxLength: 25 }),
  lineEnd: fc.constantFrom("\n", "\r\n", "\r"),
  bom: fc.boolean(),
  finalLineEnd: fc.boolean(),
});

let written = 0;

describe("rows read again at their lines", () => {
  it("are the rows a whole read finds at those lines", async () => {
    await fc.assert(
      fc.asyncProperty(file, fc.array(fc.nat(40)), async ({ rows, lineEnd, bom, finalLineEnd }, wanted) => {
        const lines = [
          "customerId,firstName,address1,city,state,zipCode",
          ...rows.map(([name, street, emptyBefore], n) => {
            const row = `C${n},${name},${street},Springfield,IL,62701`;
            return emptyBefore ? `${lineEnd}${row}` : row;
          }),
        ];
        const text = `${bom ? "\uFEFF" : ""}${lines.join(lineEnd)}${finalLineEnd ? lineEnd : ""}`;
        const csv = path.join(dir, `f${written++}.csv`);
        fs.writeFileSync(csv, text);
        const whole = new Map<number, unknown>();
        const options = { identityField: "custom6" as const, keyColumn: "customerId" };
        const list = recipientList({ file: csv }, options);
        await list.survey(({ row, recipient, keyValue }) => {
          whole.set(row, { recipient, keyValue });
          return 0;
        });
        expect(whole.size).toBe(rows.length);
        const at = new Set([...wanted, ...[...whole.keys()].filter((_, i) => i % 3 === 0)]);
        const found = await list.fieldsAt(at);
        const expected = new Map([...whole].filter(([row]) => at.has(row)));
        expect(new Map([...found].sort(([a], [b]) => a - b))).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });

  it("across the many pieces a large file is read in", async () => {
    for (const lineEnd of ["\r\n", "\r"]) {
      const rows = Array.from({ length: 20000 }, (_, n) => {
        const street = n % 5 === 0 ? `"${n} Main${lineEnd}St, ""B"""` : `${n} Main St`;
        return `C${n},Ada${n},${street},Springfield,IL,62701`;
      });
      const csv = path.join(dir, `large${lineEnd.length}.csv`);
      fs.writeFileSync(
        csv,
        `customerId,firstName,address1,city,state,zipCode${lineEnd}${rows.join(lineEnd)}`,
      );
      const whole = new Map<number, unknown>();
      const list = recipientList({ file: csv }, { identityField: "custom6", keyColumn: "customerId" });
      await list.survey((r) => {
        whole.set(r.row, { recipient: r.recipient, keyValue: r.keyValue });
        return 0;
      });
      const at = new Set([...whole.keys()].filter((_, i) => i % 7 === 3));
      const found = await list.fieldsAt(at);
      expect(found.size).toBe(at.size);
      for (const [row, read] of found) expect(read).toEqual(whole.get(row));
    }
  });

  it("finds the same records wherever the text is cut into pieces, a CR LF or a quote at a cut too", async () => {
    const text = 'id,firstName\r\n\r\nC1,"A\r\nB"\rC2,"x""y"\nC3,z\r\n';
    const pieces = async function* (cut: number) {
      yield text.slice(0, cut);
      yield text.slice(cut);
    };
    const whole = await recordsAtLines(pieces(text.length), new Set([3, 5, 6, 7]), memoryBudget());
    expect(whole).toEqual({
      text: 'id,firstName\nC1,"A\r\nB"\nC2,"x""y"\nC3,z',
      lines: new Map([
        [1, 1],
        [2, 3],
        [4, 5],
        [5, 6],
      ]),
    });
    for (let cut = 0; cut <= text.length; cut++)
      expect(await recordsAtLines(pieces(cut), new Set([3, 5, 6, 7]), memoryBudget())).toEqual(whole);
  });
});
