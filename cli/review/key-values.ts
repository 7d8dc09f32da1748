/**
 * The key column's value of each row of a recipients source. The provider's loader
 * (`loadRecipients`) identifies a recipient by a hash of that value and keeps only the hash; the
 * review shows the value itself (a customer id), so it reads the column again, counting rows as the
 * loader does: the line of a CSV or JSON Lines file, the position in a JSON array or inline list.
 */
import { createReadStream } from "node:fs";
import * as fs from "node:fs/promises";
import * as readline from "node:readline";
import { parse as parseCsv } from "csv-parse";
import { formatOf, type RecipientSource } from "../../provider/resources/recipients/source";

/** Row → the key column's value (trimmed), for the rows that have one. */
export async function keyValuesByRow(
  source: RecipientSource,
  keyColumn: string,
): Promise<Map<number, string>> {
  const values = new Map<number, string>();
  const keep = (row: number, value: unknown) => {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, keyColumn)) return;
    const raw = (value as Record<string, unknown>)[keyColumn];
    if (raw !== undefined && raw !== null) values.set(row, String(raw).trim());
  };
  if ("inline" in source) {
    for (const [index, value] of source.inline.entries()) keep(index + 1, value);
    return values;
  }
  const format = formatOf(source.file);
  if (format === "json") {
    const parsed: unknown = JSON.parse((await fs.readFile(source.file, "utf8")).replace(/^\uFEFF/, ""));
    if (Array.isArray(parsed)) for (const [index, value] of parsed.entries()) keep(index + 1, value);
    return values;
  }
  if (format === "jsonl") {
    const lines = readline.createInterface({ input: createReadStream(source.file), crlfDelay: Infinity });
    let line = 0;
    for await (const text of lines) {
      line += 1;
      const trimmed = text.replace(/^\uFEFF/, "").trim();
      if (trimmed === "") continue;
      try {
        keep(line, JSON.parse(trimmed));
      } catch {
        // A row that is not JSON has no recipient; the loader reports it.
      }
    }
    return values;
  }
  // The loader's CSV reading: the same options give the same line numbers.
  const parser = createReadStream(source.file).pipe(
    parseCsv({
      bom: true,
      skip_empty_lines: true,
      trim: true,
      info: true,
      record_delimiter: ["\r\n", "\n", "\r"],
    }),
  );
  let column: number | undefined;
  let header = true;
  for await (const { record, info } of parser as AsyncIterable<{
    record: string[];
    info: { lines: number };
  }>) {
    if (header) {
      header = false;
      const index = record.indexOf(keyColumn);
      if (index < 0) return values;
      column = index;
      continue;
    }
    const value = column === undefined ? undefined : record[column];
    if (value !== undefined) values.set(info.lines, value.trim());
  }
  return values;
}
