/**
 * The key column's value of some rows of a recipients source. The loader (source.ts) keeps only a
 * hash of each key, which is all an update needs; a plan names the recipients it changes by the
 * value itself (a customer id), so it reads the column again for those few rows, numbering rows as
 * the loader does: the line of a CSV or JSON Lines file, the position in a JSON array or inline
 * list. The source was validated by the loader already, and is read as the loader reads it
 * (provider/files/).
 */
import * as path from "node:path";
import { type CsvRecord, csvReader } from "../files/csv";
import { jsonArrayOf, jsonLinesOf } from "../files/json";
import { textOf } from "../files/text";
import { type MemoryBudget, memoryBudget } from "../memory-budget";
import { ColumnRules } from "./columns";
import { formatOf, type RecipientSource } from "./read/source";

/**
 * Row → the key column's value (trimmed), for the `rows` asked for (every row when undefined) that
 * have one. The column is found as the loader finds it (columns.ts: `Customer ID` is customerId).
 * Stops reading once every row asked for was seen.
 */
export async function keyValuesByRow(
  source: RecipientSource,
  keyColumn: string,
  rows?: ReadonlySet<number>,
  memory: MemoryBudget = memoryBudget(),
): Promise<Map<number, string>> {
  const values = new Map<number, string>();
  const columns = new ColumnRules({ keyColumn });
  const isKey = (name: string) => columns.meaning(name) === "key";
  const last = rows === undefined ? Number.POSITIVE_INFINITY : Math.max(0, ...rows);
  const keepValue = (row: number, raw: unknown) => {
    if ((rows === undefined || rows.has(row)) && raw !== undefined && raw !== null)
      values.set(row, String(raw).trim());
  };
  const keep = (row: number, value: unknown) => {
    if (typeof value !== "object" || value === null) return;
    // The key as written, else the last key that is the key column, as the loader reads an object.
    const name = Object.hasOwn(value, keyColumn) ? keyColumn : Object.keys(value).findLast(isKey);
    if (name !== undefined) keepValue(row, (value as Record<string, unknown>)[name]);
  };
  const fromList = (list: unknown[]) => {
    for (const [index, value] of list.entries()) keep(index + 1, value);
    return values;
  };
  if ("inline" in source) return fromList(source.inline);
  const file = path.resolve(source.relativeTo ?? process.cwd(), source.file);
  const format = formatOf(file);
  if (format === "json") return fromList(await jsonArrayOf(file, source.file, "recipients"));
  if (format === "jsonl") {
    for await (const { row, value } of jsonLinesOf(file, source.file)) {
      if (row > last) break;
      if (!(value instanceof Error)) keep(row, value);
    }
    return values;
  }
  // The loader's reader, so that rows are numbered alike.
  const { parser } = csvReader(textOf(file, source.file), source.delimiter);
  let column: number | undefined;
  for await (const { record, line } of parser as AsyncIterable<CsvRecord>) {
    if (column === undefined) {
      column = record.findIndex(isKey);
      if (column < 0) break;
      continue;
    }
    if (line > last) break;
    keepValue(line, record[column]);
    // A plan naming an added row reads the whole list again: its rows are garbage at once.
    memory.rowsHandled(1);
  }
  parser.destroy();
  return values;
}
