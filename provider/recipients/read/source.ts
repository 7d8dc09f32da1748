/**
 * The rows of a recipient source (inline, or a CSV, JSON array or JSON Lines file), read as a
 * stream in batches, before validation: the one row reader of recipient and record files.
 */
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { type FileRoot, resolveInside } from "../../file-root";
import { mustBeReadable, textOf } from "../../files/text";
import type { MemoryBudget } from "../../memory-budget";
import { type ColumnRules, headerColumns } from "../columns";
import type { CsvDelimiter } from "../declared";
import { csvRecordBatches, jsonRowBatches } from "./batches";
import { headerChecked } from "./csv-header";
import { recordsAtLines } from "./csv-lines";

export type RecipientFormat = "csv" | "json" | "jsonl";

/** A problem of one row: its row (a line, or a place in a list), the field it is about, what is wrong. */
export interface RowProblem {
  row: number;
  field?: string | undefined;
  message: string;
}

export function formatOf(file: string): RecipientFormat {
  const ext = path.extname(file).toLowerCase();
  if (ext === ".csv") return "csv";
  if (ext === ".json") return "json";
  if (ext === ".jsonl" || ext === ".ndjson") return "jsonl";
  throw new Error(`${file}: unknown recipient file type "${ext}"; use .csv, .json, .jsonl or .ndjson`);
}

/**
 * Where recipients come from: a list, or a file. A relative `file` is resolved against
 * `relativeTo` (default: the working directory) and named as written in messages. With a `root`,
 * a file outside it (after following links) is refused with an OutsideRootError, unread. A CSV
 * file's values are separated by `delimiter` (default `,`).
 */
export type RecipientSource =
  | {
      file: string;
      relativeTo?: string;
      root?: FileRoot;
      delimiter?: CsvDelimiter;
      /** The file opened already (openList): read through it, not opened again. */
      opened?: OpenedList;
    }
  | { inline: unknown[] };

/**
 * A row of a source before validation: a value as read (JSON, inline), or a CSV row already as
 * its non-blank fields under their canonical names and its key column's value.
 */
export type RawRow =
  | { row: number; value: unknown; fields?: undefined }
  | { row: number; fields: Record<string, string | undefined>; keyValue: string | undefined };

/**
 * Rows of a source as plain objects with their row numbers, in batches. A CSV header is mapped to
 * field names once (headerColumns), its problems reported once, at its line: its unknown columns
 * are skipped; without its key column no row is read.
 */
export async function* rowsOf(
  source: RecipientSource,
  columns: ColumnRules,
  problem: (p: RowProblem) => void,
  memory: MemoryBudget,
  only?: ReadonlySet<number>,
): AsyncGenerator<RawRow[]> {
  // With `only`, a CSV row not in it is not made into an object, and the reading stops past the last.
  const last = only ? Math.max(0, ...only) : Number.POSITIVE_INFINITY;
  if ("inline" in source) {
    yield source.inline.map((value, index) => ({ row: index + 1, value }));
    return;
  }
  const format = formatOf(source.file);
  const base = source.relativeTo ?? process.cwd();
  const file = source.root
    ? await resolveInside(source.root, source.file, base)
    : path.resolve(base, source.file);
  const { opened } = source;
  if (opened === undefined) await mustBeReadable(file, source.file, base);
  const handle = opened?.handle;
  if (format !== "csv") {
    yield* jsonRowBatches(file, source.file, format, "recipients", {
      opened: handle,
      keepText: opened?.keepText,
      last,
    });
    return;
  }
  const delimiter = source.delimiter ?? ",";
  // With `only`, the records at those lines are found without parsing the others, then parsed alone.
  const picked = only ? await recordsAtLines(textOf(file, source.file, handle), only, memory) : undefined;
  const lineOf = (line: number) => picked?.lines.get(line) ?? line;
  const read = picked
    ? (async function* () {
        yield picked.text;
      })()
    : textOf(file, source.file, handle);
  const text = headerChecked(read, source.file, delimiter, columns);
  // The first record is the header, read here (not by csv-parse) so that its problems carry its line.
  let header: { fields: (string | undefined)[]; keyAt: number } | undefined;
  for await (const records of csvRecordBatches(text, delimiter, source.file)) {
    const batch: RawRow[] = [];
    for (const { record, line: readAt } of records) {
      const line = lineOf(readAt);
      if (header === undefined) {
        const read = headerColumns(record, columns);
        for (const message of read.problems) problem({ row: line, message });
        if (!read.rowsReadable) return;
        header = read;
        continue;
      }
      if (line > last) {
        yield batch;
        return;
      }
      if (only && !only.has(line)) continue;
      // A plain object: every row has the same shape, which V8 reads fast. The key column (the
      // column so named, whatever a field of that name would be) is held apart: its name is user text.
      const fields: Record<string, string> = {};
      let keyValue: string | undefined;
      const { fields: names, keyAt } = header;
      for (let i = 0; i < record.length; i++) {
        const value = record[i] as string;
        // A blank value is no value (an empty key column is "empty" either way); the last one counts.
        if (value === "") continue;
        if (i === keyAt) keyValue = value;
        const name = names[i];
        if (name !== undefined) fields[name] = value;
      }
      batch.push({ row: line, fields, keyValue: keyValue?.trim() });
    }
    yield batch;
  }
}

/** What a list is read with, as far as its signature goes. */
interface SignatureOptions {
  identityField: string;
  keyColumn?: string | undefined;
  ignoreColumns?: readonly string[] | undefined;
}

/**
 * What identifies one reading of a recipients file: its absolute path, size and modification time,
 * and what the rows are read with. A file written again changes its size or its time, so two
 * readings of one signature read the same rows (undefined: the file cannot be found).
 */
export async function fileSignature(
  file: string,
  options: SignatureOptions,
  delimiter: string | undefined,
): Promise<string | undefined> {
  const stat = await fs.stat(file).catch(() => undefined);
  return stat ? signatureOf(file, stat, options, delimiter) : undefined;
}

function signatureOf(
  file: string,
  stat: { size: number; mtimeMs: number },
  options: SignatureOptions,
  delimiter: string | undefined,
): string {
  return JSON.stringify([
    file,
    stat.size,
    stat.mtimeMs,
    options.identityField,
    options.keyColumn ?? null,
    delimiter ?? null,
    options.ignoreColumns ?? null,
  ]);
}

/**
 * A recipients file opened once for a check that looks at it before its read: whether it is a
 * file, its signature as opened, and its handle, which the read goes through (RecipientSource's
 * `opened`). `keepText` is given a JSON array's text as read, for where its rows were written. The
 * opener closes it (`close`).
 */
export interface OpenedList {
  handle: fs.FileHandle;
  isFile: boolean;
  signature: string;
  keepText?: ((text: string) => void) | undefined;
  close(): Promise<void>;
}

/** Opens a recipients file (a missing or unreadable one fails with the system's error). */
export async function openList(
  file: string,
  options: SignatureOptions,
  delimiter: string | undefined,
): Promise<OpenedList> {
  const handle = await fs.open(file, "r");
  try {
    const stat = await handle.stat();
    return {
      handle,
      isFile: stat.isFile(),
      signature: signatureOf(file, stat, options, delimiter),
      close: () => handle.close(),
    };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
