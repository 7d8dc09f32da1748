/**
 * The key column's value of some rows of a recipients source. The loader (source.ts) keeps only a
 * hash of each key, which is all an update needs; a plan names the recipients it changes by the
 * value itself (a customer id), so it reads the column again for those few rows, numbering rows as
 * the loader does: the line of a CSV or JSON Lines file, the position in a JSON array or inline
 * list. The source was validated by the loader already.
 */
import { createReadStream } from "node:fs";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import * as readline from "node:readline";
import { Readable } from "node:stream";
import { type CsvRecord, csvReader, formatOf, type RecipientSource } from "./source";

/**
 * Row → the key column's value (trimmed), for the `rows` asked for (every row when undefined) that
 * have one. Stops reading once every row asked for was seen.
 */
export async function keyValuesByRow(
  source: RecipientSource,
  keyColumn: string,
  rows?: ReadonlySet<number>,
): Promise<Map<number, string>> {
  const values = new Map<number, string>();
  const last = rows === undefined ? Number.POSITIVE_INFINITY : Math.max(0, ...rows);
  const keepValue = (row: number, raw: unknown) => {
    if ((rows === undefined || rows.has(row)) && raw !== undefined && raw !== null)
      values.set(row, String(raw).trim());
  };
  const keep = (row: number, value: unknown) => {
    if (typeof value === "object" && value !== null && Object.hasOwn(value, keyColumn))
      keepValue(row, (value as Record<string, unknown>)[keyColumn]);
  };
  const fromList = (list: unknown[]) => {
    for (const [index, value] of list.entries()) keep(index + 1, value);
    return values;
  };
  if ("inline" in source) return fromList(source.inline);
  const file = path.resolve(source.relativeTo ?? process.cwd(), source.file);
  const format = formatOf(file);
  if (format === "json") {
    const parsed: unknown = JSON.parse(withoutBom(await fs.readFile(file, "utf8")));
    return Array.isArray(parsed) ? fromList(parsed) : values;
  }
  const text = Readable.from(decoded(file));
  if (format === "jsonl") {
    const lines = readline.createInterface({ input: text, crlfDelay: Infinity });
    let line = 0;
    for await (const content of lines) {
      line += 1;
      if (line > last) break;
      if (content.trim() !== "") keep(line, JSON.parse(content));
    }
    lines.close();
    text.destroy();
    return values;
  }
  // The loader's reader, so that rows are numbered alike.
  const { parser } = csvReader(source.delimiter);
  text.pipe(parser);
  let column: number | undefined;
  for await (const { record, line } of parser as AsyncIterable<CsvRecord>) {
    if (column === undefined) {
      column = record.indexOf(keyColumn);
      if (column < 0) break;
      continue;
    }
    if (line > last) break;
    keepValue(line, record[column]);
  }
  parser.destroy();
  text.destroy();
  return values;
}

const withoutBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** The file's text without its byte-order mark, as the loader decodes it. */
async function* decoded(file: string): AsyncGenerator<string> {
  let first = true;
  for await (const chunk of createReadStream(file, { encoding: "utf8" })) {
    yield first ? withoutBom(chunk as string) : (chunk as string);
    first = false;
  }
}
