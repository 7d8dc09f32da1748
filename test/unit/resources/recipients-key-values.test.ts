/**
 * The key column's values as a plan names recipients by them: read for the rows asked for, with the
 * loader's row numbers in every format, so that each value is the one whose hash is that row's key.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { keyValuesByRow, type RecipientSource, recipientList } from "../../../provider/recipients/index";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-key-values-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const row = (id: string, n: number) => ({
  id,
  firstName: `Ada${n}`,
  address1: `${n} Main St`,
  city: "Springfield",
  state: "IL",
  zipCode: "62701",
});
const ids = ["C-1", " C-2 ", "C 3, west", 'say "4"', "C-5"];
const rows = ids.map((id, i) => row(id, i + 1));

function write(name: string, text: string): RecipientSource {
  fs.writeFileSync(path.join(dir, name), text);
  return { file: name, relativeTo: dir };
}
const quoted = (v: string) => (/[",\n\s]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
const columns = Object.keys(rows[0] as object);

const sources: [string, () => RecipientSource][] = [
  [
    // A byte-order mark, blank lines, a quoted value over two lines and CR LF line ends.
    "CSV",
    () =>
      write(
        "list.csv",
        `\uFEFF${columns.join(",")}\r\n\r\n` +
          rows
            .map((r, i) =>
              Object.values(r)
                .map((v, j) => (i === 1 && j === 2 ? `"${v}\nrear"` : quoted(v)))
                .join(","),
            )
            .join("\r\n\r\n"),
      ),
  ],
  ["JSON", () => write("list.json", JSON.stringify(rows, null, 2))],
  ["JSON Lines", () => write("list.jsonl", rows.map((r) => `${JSON.stringify(r)}\n\n`).join(""))],
  ["an inline list", () => ({ inline: rows })],
];

describe("key column values by row", () => {
  it.each(sources)(
    "in %s, each value is the one whose hash is the loader's key of that row",
    async (_what, make) => {
      const source = make();
      const loaded = await recipientList(source, { identityField: "custom6", keyColumn: "id" }).load();
      expect(loaded.problemCount).toBe(0);
      expect(loaded.byKey.size).toBe(ids.length);
      const values = await keyValuesByRow(source, "id");
      expect(values.size).toBe(ids.length);
      for (const recipient of loaded.byKey.values()) {
        const value = values.get(recipient.row) as string;
        expect(createHash("sha256").update(`column:${value}`).digest("hex").slice(0, 16)).toBe(recipient.key);
      }
      expect([...values.values()]).toEqual(ids.map((id) => id.trim()));
    },
  );

  it.each(sources)("in %s, only the rows asked for are read", async (_what, make) => {
    const source = make();
    const loaded = await recipientList(source, { identityField: "custom6", keyColumn: "id" }).load();
    const [first, , third] = [...loaded.byKey.values()].map((r) => r.row);
    const values = await keyValuesByRow(source, "id", new Set([first as number, third as number]));
    expect([...values.values()]).toEqual(["C-1", "C 3, west"]);
  });
});
