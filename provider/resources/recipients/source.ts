/**
 * Reads the recipients a campaign declares, inline or from a file (CSV with a header row, JSON
 * array, or JSON Lines), streaming the file formats, and gives each one its identity key and its
 * content digest.
 *
 * Identity: the service standardizes addresses, so the recipients it returns never compare equal
 * to the ones sent. Each declared recipient therefore gets a key, either a hash of its declared
 * content or a hash of a key column the user names, and the key travels with the recipient in
 * one custom field (the identity field, `custom6` unless chosen otherwise), which the service
 * echoes unchanged. Updates compare keys and content digests, never addresses: under a key column
 * the same key with another content digest is a changed recipient.
 */
import { createHash, hash } from "node:crypto";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { type FileRoot, resolveInside } from "../../file-root";
import { type CsvRecord, csvFileError, csvReader } from "../../files/csv";
import { jsonArrayOf, jsonLinesOf } from "../../files/json";
import { mustBeReadable, SourceFileError, textOf } from "../../files/text";
import { HASH_CHUNK_BYTES, MAX_KEPT_PROBLEMS } from "../../limits";
import { type MemoryBudget, memoryBudget } from "../../memory-budget";
import { shown } from "../../text";
import { type ColumnOptions, ColumnRules, headerColumns } from "./columns";
import {
  CSV_DELIMITERS,
  type CsvDelimiter,
  DECLARED_FIELDS,
  DeclaredRecipient,
  type IdentityField,
  plainlyValid,
} from "./declared";
import { type DeclaredKey, DeclaredSet, KEY_HEX_LENGTH } from "./table";

export { KEY_HEX_LENGTH };

export type RecipientFormat = "csv" | "json" | "jsonl";

/** How a list is read: its columns (columns.ts) and what is worked out of each row. */
export interface RecipientSourceOptions extends ColumnOptions {
  /** The custom field that carries each recipient's key to the service and back. */
  identityField: IdentityField;
  /** Stop collecting problems after this many (the count of all of them is still reported). */
  maxProblems?: number;
  /** The memory budget the read is held to (memory-budget.ts); the provider's by default. */
  memory?: MemoryBudget;
  /**
   * false for a caller that shows no digest (`directmail validate`): under a key column no row's
   * content is hashed as it is read (its content digest is then its key), and a row whose key an
   * earlier row has is judged against that row read again once the read is done
   * (surveyRecipients). Default true.
   */
  contentDigests?: boolean;
}

/**
 * `content` is the digest of the declared content (contentKey); equal to `key` when there is no
 * key column.
 */
export interface LoadedRecipient extends DeclaredKey {
  recipient: DeclaredRecipient;
}

export interface RecipientProblem {
  row: number;
  field?: string | undefined;
  message: string;
}

export interface LoadedRecipients {
  byKey: Map<string, LoadedRecipient>;
  /** Rows identical to (or with the same key column as) an earlier row; sent once. */
  duplicateRows: number;
  /** sha256 over the sorted (key, content) pairs and the identity field: see digestOf. */
  digest: string;
  problems: RecipientProblem[];
  problemCount: number;
}

function hashKey(text: string): string {
  // One call per recipient, twice a sync: the one-shot hash is several times cheaper than a Hash object.
  return hash("sha256", text, "hex").slice(0, KEY_HEX_LENGTH);
}

/** The key of a recipient under a key column, from the column's value (trimmed). */
export const columnKey = (value: string) => hashKey(`column:${value}`);

/** The declared fields in the order content keys list them, and each one's opening as JSON. */
const FIELDS_IN_KEY_ORDER = [...DECLARED_FIELDS].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const FIELD_OPENINGS = new Map(FIELDS_IN_KEY_ORDER.map((name) => [name, `[${JSON.stringify(name)},`]));

/** Text that JSON writes as it is, between quotes: no quote, backslash, control character or lone surrogate. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes them, so finding them is the point.
const PLAIN_JSON_TEXT = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * The names of the last recipient contentKey read, in its own order, and which of them it lists,
 * in key order (their places in that order, and their openings). The rows of a list are objects of
 * one shape, so this is worked out once a list, not once a row: each row's values are then read in
 * its own order, without looking up each declared field by its name.
 */
const lastShape = { names: [] as string[], listed: [] as number[], openings: [] as string[] };
/** The values of the recipient being read, in its own order (reused: one call a recipient). */
const valuesInOrder: (string | undefined)[] = [];

function learnShape(recipient: DeclaredRecipient): void {
  const names: string[] = [];
  for (const name in recipient) names.push(name);
  const listed = FIELDS_IN_KEY_ORDER.map((name) => names.indexOf(name)).filter((at) => at >= 0);
  lastShape.names = names;
  lastShape.listed = listed;
  lastShape.openings = listed.map((at) => FIELD_OPENINGS.get(names[at] as keyof DeclaredRecipient) as string);
}

/**
 * The key of a recipient from its declared content: field order and blank fields do not matter.
 * It hashes `JSON.stringify` of the non-blank [name, value] pairs sorted by name, written here
 * without the pairs, and without JSON.stringify for a value that JSON writes as it is (once per
 * recipient, twice a sync).
 */
export function contentKey(recipient: DeclaredRecipient): string {
  let count = 0;
  let sameShape = true;
  for (const name in recipient) {
    if (lastShape.names[count] !== name) sameShape = false;
    valuesInOrder[count++] = recipient[name as keyof DeclaredRecipient];
  }
  if (!sameShape || count !== lastShape.names.length) learnShape(recipient);
  const { listed, openings } = lastShape;
  let json = "[";
  for (let i = 0; i < listed.length; i++) {
    const value = valuesInOrder[listed[i] as number];
    if (value === undefined || value === "") continue;
    const text = PLAIN_JSON_TEXT.test(value) ? `"${value}"` : JSON.stringify(value);
    json += `${json.length > 1 ? "," : ""}${openings[i]}${text}]`;
  }
  return hashKey(`${json}]`);
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
  | { file: string; relativeTo?: string; root?: FileRoot; delimiter?: CsvDelimiter }
  | { inline: unknown[] };

/**
 * A row of a source before validation: a value as read (JSON, inline), or a CSV row already as
 * its non-blank fields under their canonical names and its key column's value.
 */
type RawRow =
  | { row: number; value: unknown; fields?: undefined }
  | { row: number; fields: Record<string, string | undefined>; keyValue: string | undefined };

/** Rows handed on together: each step of reading a list then pays its await once per batch, not per row. */
const ROWS_PER_BATCH = 1000;

/**
 * Rows of a source as plain objects with their row numbers, in batches. A CSV header is mapped to
 * field names once (headerColumns), its problems reported once, at its line: its unknown columns
 * are skipped; without its key column no row is read.
 */
async function* rowsOf(
  source: RecipientSource,
  columns: ColumnRules,
  problem: (p: RecipientProblem) => void,
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
  await mustBeReadable(file, source.file, base);
  if (format === "json") {
    const parsed = await jsonArrayOf(file, source.file, "recipients");
    yield parsed.map((value, index) => ({ row: index + 1, value }));
    return;
  }
  if (format === "jsonl") {
    let batch: RawRow[] = [];
    for await (const row of jsonLinesOf(file, source.file)) {
      if (row.row > last) break;
      batch.push(row);
      if (batch.length === ROWS_PER_BATCH) {
        yield batch;
        batch = [];
      }
    }
    yield batch;
    return;
  }
  const delimiter = source.delimiter ?? ",";
  // With `only`, the records at those lines are found without parsing the others, then parsed alone.
  const picked = only ? await recordsAtLines(textOf(file, source.file), only, memory) : undefined;
  const lineOf = (line: number) => picked?.lines.get(line) ?? line;
  const read = picked
    ? (async function* () {
        yield picked.text;
      })()
    : textOf(file, source.file);
  const text = headerChecked(read, source.file, delimiter, columns);
  const { parser, position } = csvReader(text, delimiter);
  // The first record is the header, read here (not by csv-parse) so that its problems carry its line.
  let header: { fields: (string | undefined)[]; keyAt: number } | undefined;
  try {
    for await (const first of parser as AsyncIterable<CsvRecord>) {
      // The records csv-parse has read already are taken with this one, as one batch.
      const records = [first];
      while (records.length < ROWS_PER_BATCH) {
        const next: CsvRecord | null = parser.read();
        if (next === null) break;
        records.push(next);
      }
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
  } catch (error) {
    throw csvFileError(error, source.file, position);
  }
}

/**
 * The header record of a CSV text and the records that start on the lines `only`, found without
 * parsing the others: as one text (each record on its line or lines, in their order) and the line
 * each starts on in the file, by its line in that text. A line end ends a record unless it is inside
 * quotes, which the count of quotes before it tells (a readable file's quotes pair up, a `""` inside
 * a value too); lines are counted as csvReader counts them (a CR LF, an LF or a CR each one line),
 * and empty lines hold no record. Stops reading past the last line of `only`.
 */
export async function recordsAtLines(
  text: AsyncIterable<string>,
  only: ReadonlySet<number>,
  memory: MemoryBudget = memoryBudget(),
): Promise<{ text: string; lines: Map<number, number> }> {
  const last = Math.max(0, ...only);
  const picked: string[] = [];
  const lines = new Map<number, number>();
  let pickedLine = 1;
  let header = false;
  const take = (record: string, line: number) => {
    if (header && !only.has(line)) return;
    header = true;
    lines.set(pickedLine, line);
    // A copy: V8 makes a slice a view of the text it was cut from, and a record kept as a slice
    // would keep the whole piece read around it alive (2,000 records of a 1,000,000-row file kept
    // about 80 MB of the file's text until the join).
    picked.push(Buffer.from(record).toString());
    pickedLine += 1 + (record.match(/\r\n|\r|\n/g)?.length ?? 0);
  };
  const breaks = /["\r\n]/g;
  let buffer = "";
  let start = 0; // where the record being read starts in `buffer`
  let scanned = 0; // how much of `buffer` was looked at
  let line = 1;
  let linesHandled = 1;
  let recordLine = 1;
  let quoted = false;
  reading: for await (const piece of text) {
    // The text read is dropped as it goes: held to the memory budget as rows are.
    memory.rowsHandled(line - linesHandled);
    linesHandled = line;
    buffer = buffer.slice(start) + piece;
    scanned -= start;
    start = 0;
    breaks.lastIndex = scanned;
    scanned = buffer.length;
    for (let found = breaks.exec(buffer); found !== null; found = breaks.exec(buffer)) {
      const at = found.index;
      if (buffer[at] === '"') {
        quoted = !quoted;
        continue;
      }
      if (buffer[at] === "\r" && at + 1 === buffer.length) {
        // Its LF, if any, is in the next piece.
        scanned = at;
        break;
      }
      const end = buffer[at] === "\r" && buffer[at + 1] === "\n" ? at + 2 : at + 1;
      breaks.lastIndex = end;
      line += 1;
      if (quoted) continue;
      if (at > start) take(buffer.slice(start, at), recordLine);
      start = end;
      recordLine = line;
      if (header && recordLine > last) break reading;
    }
  }
  const rest = buffer.slice(start).replace(/\r$/, "");
  if (rest !== "" && recordLine <= last) take(rest, recordLine);
  return { text: picked.join("\n"), lines };
}

/** How much of a file's start is looked at for its header line. */
const HEADER_LOOKED_AT = 64 * 1024;

/**
 * The text of a CSV file, unchanged, once its header line was found to be separated by `delimiter`.
 * A header with no `delimiter` that another one splits into known columns is a file saved with
 * that other one (a spreadsheet in a language that writes `;`, a tab-separated export): one
 * SourceFileError at its line, rather than an unknown column and a problem on every row.
 */
async function* headerChecked(
  text: AsyncGenerator<string>,
  shownAs: string,
  delimiter: CsvDelimiter,
  columns: ColumnRules,
): AsyncGenerator<string> {
  let start = "";
  for await (const piece of text) {
    start += piece;
    const end = start.search(/[\r\n]/);
    if (end >= 0 || start.length >= HEADER_LOOKED_AT) {
      const header = end >= 0 ? start.slice(0, end) : "";
      const other = header === "" ? undefined : otherDelimiter(header, delimiter, columns);
      if (other !== undefined) throw new SourceFileError(shownAs, delimiterAdvice(other, delimiter), 1, 1);
      yield start;
      yield* text;
      return;
    }
  }
  const other = otherDelimiter(start, delimiter, columns);
  if (other !== undefined) throw new SourceFileError(shownAs, delimiterAdvice(other, delimiter), 1, 1);
  yield start;
}

/** The delimiter a header line is separated by when it is not `delimiter`: one that gives two known columns. */
export function otherDelimiter(
  header: string,
  delimiter: CsvDelimiter,
  columns: ColumnRules,
): CsvDelimiter | undefined {
  if (header.includes(delimiter)) return undefined;
  const known = (name: string) => columns.meaning(name.trim().replace(/^"(.*)"$/, "$1")) !== undefined;
  return CSV_DELIMITERS.find((other) => other !== delimiter && header.split(other).filter(known).length >= 2);
}

/** A delimiter as the campaign file writes it: `";"`, `"\t"`. */
const written = (delimiter: CsvDelimiter) => JSON.stringify(delimiter);

/** What to do about a file separated by `found` and read as separated by `expected`. */
function delimiterAdvice(found: CsvDelimiter, expected: CsvDelimiter): string {
  const looks = `this file looks separated by ${written(found)}`;
  if (found === ",")
    return `${looks}; remove delimiter: ${written(expected)} (commas are the default) or save it separated by ${written(expected)}`;
  const save = expected === "," ? "save it with commas" : `save it separated by ${written(expected)}`;
  return `${looks}; write delimiter: ${written(found)} (an option of the recipients, beside file) or ${save}`;
}

/** A valid row, before it is judged against the rows before it. */
interface ValidRow extends LoadedRecipient {
  /** The key column's value, under a key column. */
  keyValue?: string;
}

/**
 * What judging a row against an earlier row of its key takes of it, and the count of problems found
 * before its turn (a batch's rows are judged after the batch's other problems are found).
 */
type RepeatedRow = Omit<ValidRow, "recipient"> & { problemsBefore: number };

/**
 * A row's fields under their canonical names, non-blank and not yet trimmed, and its key column's
 * value (trimmed); undefined for a row that is not an object. Each field that is not a recipient
 * field, or not text, is a problem (and left out).
 */
function fieldsOf(
  raw: RawRow,
  columns: ColumnRules,
  problem: (p: RecipientProblem) => void,
): { fields: Record<string, string | undefined>; keyValue: string | undefined } | undefined {
  if (raw.fields !== undefined) return raw;
  const { row, value } = raw;
  if (value instanceof Error) {
    problem({ row, message: value.message });
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    problem({ row, message: "expected an object with recipient fields" });
    return undefined;
  }
  let keyValue: string | undefined;
  const fields: Record<string, string | undefined> = {};
  for (const name of Object.keys(value)) {
    const given = (value as Record<string, unknown>)[name];
    const meaning = columns.meaning(name);
    if (meaning === "key") {
      keyValue = given === undefined || given === null ? undefined : String(given).trim();
      continue;
    }
    if (meaning === "ignored") continue;
    if (meaning === undefined) {
      problem({ row, field: name, message: `unknown field "${shown(name)}"` });
      continue;
    }
    const canonical = meaning.field;
    if (given === null || given === undefined || given === "") continue;
    if (typeof given !== "string" && typeof given !== "number") {
      problem({ row, field: canonical, message: `${canonical} must be text` });
      continue;
    }
    fields[canonical] = String(given);
  }
  return { fields, keyValue };
}

/**
 * Some rows of a source found valid already, with their fields (trimmed, as the schema leaves
 * them) and key column's value, by row, read as validRows reads them: no digest, no check, and no
 * row kept but these. Stops reading past the last one.
 */
export async function recipientsAtRows(
  source: RecipientSource,
  columnOptions: ColumnOptions,
  rows: ReadonlySet<number>,
  memory: MemoryBudget = memoryBudget(),
): Promise<Map<number, { recipient: DeclaredRecipient; keyValue: string | undefined }>> {
  const found = new Map<number, { recipient: DeclaredRecipient; keyValue: string | undefined }>();
  if (rows.size === 0) return found;
  const ignore = () => {};
  const columns = new ColumnRules(columnOptions);
  for await (const batch of rowsOf(source, columns, ignore, memory, rows)) {
    // The rows passed over are garbage at once: a row added at the end reads a million of them.
    memory.rowsHandled(batch.length);
    for (const raw of batch) {
      if (!rows.has(raw.row)) continue;
      const read = fieldsOf(raw, columns, ignore);
      if (read === undefined) continue;
      const recipient: Record<string, string> = {};
      for (const [name, value] of Object.entries(read.fields))
        if (value !== undefined) recipient[name] = value.trim();
      found.set(raw.row, { recipient: recipient as DeclaredRecipient, keyValue: read.keyValue });
    }
  }
  return found;
}

/**
 * Every valid recipient row of a source, in order, its problems reported (duplicates included).
 * `validated`: the source was found valid already, so the schema's only change to a row, trimming
 * its values, is done without it (a row edited since then has another content digest).
 */
async function* validRows(
  source: RecipientSource,
  options: RecipientSourceOptions,
  problem: (p: RecipientProblem) => void,
  validated = false,
  only?: ReadonlySet<number>,
): AsyncGenerator<ValidRow[]> {
  const columns = new ColumnRules(options);
  const { keyColumn } = columns;
  const hashContent = keyColumn === undefined || options.contentDigests !== false;
  const memory = options.memory ?? memoryBudget();
  for await (const rows of rowsOf(source, columns, problem, memory, only)) {
    memory.rowsHandled(rows.length);
    const valid: ValidRow[] = [];
    for (const raw of rows) {
      const { row } = raw;
      const read = fieldsOf(raw, columns, problem);
      if (read === undefined) continue;
      const { fields, keyValue } = read;
      if (fields[options.identityField] !== undefined) {
        problem({
          row,
          field: options.identityField,
          message:
            `${options.identityField} carries each recipient's identity key to the service; ` +
            "move this data to another custom field, or choose another identityField",
        });
        continue;
      }
      if (validated) for (const name of Object.keys(fields)) fields[name] = fields[name]?.trim();
      const plain = validated ? (fields as DeclaredRecipient) : plainlyValid(fields);
      const parsed = plain ? { success: true as const, data: plain } : DeclaredRecipient.safeParse(fields);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          const field = issue.path.map(String).join(".") || undefined;
          problem({ row, ...(field ? { field } : {}), message: issue.message });
        }
        continue;
      }
      if (keyColumn === undefined) {
        const content = contentKey(parsed.data);
        valid.push({ key: content, content, row, recipient: parsed.data });
        continue;
      }
      if (!keyValue) {
        problem({ row, field: keyColumn, message: `${keyColumn} (the key column) is empty` });
        continue;
      }
      const key = columnKey(keyValue);
      const content = hashContent ? contentKey(parsed.data) : key;
      valid.push({ key, content, row, recipient: parsed.data, keyValue });
    }
    yield valid;
  }
}

/**
 * A row whose key an earlier row has: a duplicate (same content, sent once) or, under a key column,
 * a problem. Says whether it is a duplicate.
 */
function isDuplicate(
  earlier: DeclaredKey,
  later: Omit<ValidRow, "recipient">,
  options: RecipientSourceOptions,
  problem: (p: RecipientProblem) => void,
): boolean {
  if (earlier.content === later.content) return true;
  const keyColumn = options.keyColumn?.trim();
  problem({
    row: later.row,
    field: keyColumn,
    message: `${keyColumn} "${later.keyValue}" is used by row ${earlier.row} too, with different details`,
  });
  return false;
}

/**
 * Problems collected up to `maxProblems`, all of them counted. `mergeLater` takes problems judged
 * after the read, in the order they would have been found, each with the count of the problems
 * found before its turn (`before`), and places them as if found then.
 */
function problemCollector(options: RecipientSourceOptions) {
  const maxProblems = options.maxProblems ?? MAX_KEPT_PROBLEMS;
  const collected = { problems: [] as RecipientProblem[], problemCount: 0 };
  const problem = (p: RecipientProblem) => {
    collected.problemCount += 1;
    if (collected.problems.length < maxProblems) collected.problems.push(p);
  };
  const mergeLater = (later: readonly { problem: RecipientProblem; before: number }[]) => {
    const merged: RecipientProblem[] = [];
    let taken = 0;
    for (const { problem, before } of later) {
      while (taken < before && taken < collected.problems.length)
        merged.push(collected.problems[taken++] as RecipientProblem);
      merged.push(problem);
    }
    for (; taken < collected.problems.length; taken++)
      merged.push(collected.problems[taken] as RecipientProblem);
    collected.problems = merged.slice(0, maxProblems);
    collected.problemCount += later.length;
  };
  return { collected, problem, mergeLater };
}

/**
 * Reads and validates every recipient of a source, keeping each one's fields. Problems are
 * collected, not thrown, so a user sees all of them at once; the caller refuses to change anything
 * when there is any. For lists of any size the provider uses scanRecipients instead.
 */
export async function loadRecipients(
  source: RecipientSource,
  options: RecipientSourceOptions,
): Promise<LoadedRecipients> {
  const byKey = new Map<string, LoadedRecipient>();
  const { collected, problem } = problemCollector(options);
  let duplicateRows = 0;
  for await (const rows of validRows(source, options, problem)) {
    for (const row of rows) {
      const { keyValue: _, ...recipient } = row;
      const earlier = byKey.get(recipient.key);
      if (earlier === undefined) byKey.set(recipient.key, recipient);
      else if (isDuplicate(earlier, row, options, problem)) duplicateRows += 1;
    }
  }
  return {
    byKey,
    duplicateRows,
    digest: digestOf(
      [...byKey.values()].map((r) => [r.key, r.content] as const),
      options.identityField,
    ),
    ...collected,
  };
}

/** A recipient source read as scanRecipients reads it: keys, content digests and rows only. */
export interface ScannedRecipients extends Omit<LoadedRecipients, "byKey"> {
  set: DeclaredSet;
}

/** A recipient as read, with its fields, handed to a reader of a survey and then dropped. */
export interface SurveyedRecipient extends LoadedRecipient {
  /** The key column's value (trimmed), under a key column. */
  keyValue?: string | undefined;
}

/**
 * Reads and validates every recipient of a source as a stream, once, keeping only each one's key,
 * content digest and row (DeclaredSet), so that its memory stays a few dozen bytes a recipient.
 * `each` sees every recipient the set takes, with its fields, in the list's order; what it returns
 * (a number, 0 by default) is kept beside the recipient (DeclaredSet.tagOf). Rows with problems and
 * later duplicates are not handed to it.
 *
 * With `contentDigests: false` under a key column, the set's content digests are its keys: a row
 * whose key an earlier row has gets its content hashed then, and the earlier rows of such keys are
 * read again after the read (only when there are any) to tell a duplicate from a problem, exactly
 * as a read with digests does.
 */
export async function surveyRecipients(
  source: RecipientSource,
  options: RecipientSourceOptions,
  each?: (recipient: SurveyedRecipient) => number | undefined,
): Promise<Omit<ScannedRecipients, "digest">> {
  const set = new DeclaredSet();
  const { collected, problem, mergeLater } = problemCollector(options);
  const repeated: RepeatedRow[] | undefined =
    options.contentDigests === false && options.keyColumn?.trim() !== undefined ? [] : undefined;
  let duplicateRows = 0;
  for await (const rows of validRows(source, options, problem)) {
    for (const recipient of rows) {
      const earlier = set.addNew(recipient, () => each?.(recipient) ?? 0);
      if (earlier === undefined) continue;
      // Held with its content digest, not its fields: only rows with a repeated key are.
      if (repeated) {
        const { recipient: fields, ...judged } = recipient;
        repeated.push({ ...judged, content: contentKey(fields), problemsBefore: collected.problemCount });
      } else if (isDuplicate(earlier, recipient, options, problem)) duplicateRows += 1;
    }
  }
  if (repeated !== undefined && repeated.length > 0) {
    const later: { problem: RecipientProblem; before: number }[] = [];
    duplicateRows += await judgeRepeatedKeys(source, options, set, repeated, (problem, { problemsBefore }) =>
      later.push({ problem, before: problemsBefore }),
    );
    mergeLater(later);
  }
  return { set, duplicateRows, ...collected };
}

/**
 * Rows whose key an earlier row has (in row order, each with its content digest), judged against
 * that earlier row, read again with its content digest: how many are duplicates; the others are
 * problems. A source whose earlier rows are no longer as read is a file changed meanwhile.
 */
async function judgeRepeatedKeys(
  source: RecipientSource,
  options: RecipientSourceOptions,
  set: DeclaredSet,
  repeated: readonly RepeatedRow[],
  problem: (p: RecipientProblem, of: RepeatedRow) => void,
): Promise<number> {
  const earlierRows = new Set(repeated.map((later) => (set.get(later.key) as DeclaredKey).row));
  const contents = new Map<number, DeclaredKey>();
  const ignore = () => {};
  for await (const rows of validRows(
    source,
    { ...options, contentDigests: true },
    ignore,
    false,
    earlierRows,
  ))
    for (const { key, content, row } of rows)
      if (earlierRows.has(row)) contents.set(row, { key, content, row });
  let duplicates = 0;
  for (const later of repeated) {
    const { row, key } = set.get(later.key) as DeclaredKey;
    const earlier = contents.get(row);
    if (earlier?.key !== key) {
      const shownAs = "file" in source ? source.file : "the recipients";
      throw new SourceFileError(shownAs, "the file changed while it was read; check it again");
    }
    if (isDuplicate(earlier, later, options, (p) => problem(p, later))) duplicates += 1;
  }
  return duplicates;
}

/**
 * What identifies one reading of a recipients file: its absolute path, size and modification time,
 * and what the rows are read with. A file written again changes its size or its time, so two
 * readings of one signature read the same rows (undefined: the file cannot be found).
 */
export async function fileSignature(
  file: string,
  options: RecipientSourceOptions,
  delimiter: string | undefined,
): Promise<string | undefined> {
  const stat = await fs.stat(file).catch(() => undefined);
  return stat
    ? JSON.stringify([
        file,
        stat.size,
        stat.mtimeMs,
        options.identityField,
        options.keyColumn ?? null,
        delimiter ?? null,
        options.ignoreColumns ?? null,
      ])
    : undefined;
}

/** surveyRecipients, with the set's digest: what the provider plans with. */
export async function scanRecipients(
  source: RecipientSource,
  options: RecipientSourceOptions,
): Promise<ScannedRecipients> {
  const surveyed = await surveyRecipients(source, options);
  return { ...surveyed, digest: digestOfSet(surveyed.set, options.identityField) };
}

/**
 * The recipients of a set, with their fields, read again from their source as a stream, in the
 * list's order. A row the set does not hold as it is (a later duplicate) is skipped; a source
 * that no longer yields every recipient of the set as scanned fails with `changed` (the file was
 * edited since), as soon as that shows. With `only` (rows of the set), just those rows are read,
 * a CSV's others passed over unparsed (recordsAtLines), and each must still be as scanned.
 */
export async function* declaredRows(
  source: RecipientSource,
  options: RecipientSourceOptions,
  set: DeclaredSet,
  changed: () => Error,
  only?: ReadonlySet<number>,
): AsyncGenerator<LoadedRecipient> {
  let seen = 0;
  for await (const rows of validRows(source, options, () => {}, true, only)) {
    for (const { keyValue: _, ...recipient } of rows) {
      // Inline and JSON lists are read whole, `only` or not.
      if (only && !only.has(recipient.row)) continue;
      if (set.holds(recipient)) {
        seen += 1;
        yield recipient;
      } else if (only || !set.has(recipient.key) || set.get(recipient.key)?.row === recipient.row) {
        throw changed();
      }
    }
  }
  if (seen !== (only?.size ?? set.size)) throw changed();
}

/**
 * The digest of a recipient set: its (key, content digest) pairs and the field that carries the
 * keys, so any change of any recipient's content changes it. A pair whose content digest is its key
 * (no key column) counts as the key alone, which keeps the digest of such a set what it was before
 * content digests were recorded.
 */
export function digestOf(
  entries: Iterable<readonly [key: string, content: string]>,
  identityField: string,
): string {
  const lines = [...entries].map(([key, content]) => (content === key ? key : `${key} ${content}`));
  return hashLines(lines.sort(), identityField);
}

/** A set whose digest lines (digestOf's, in key order) come in chunks: a DeclaredSet, a RecipientIndex. */
export interface DigestLines {
  sortedLines(take: (chunk: Uint8Array) => void): void;
}

/** digestOf of a set's pairs, hashed from its digest lines as they are written, without a string a pair. */
export function digestOfSet(set: DigestLines, identityField: string): string {
  const digest = createHash("sha256").update(`identity:${identityField}\n`);
  set.sortedLines((chunk) => digest.update(chunk));
  return digest.digest("hex");
}

/** The lines, hashed a chunk of about 64 KiB at a time: a million calls to update cost more than the hash. */
function hashLines(sortedLines: Iterable<string>, identityField: string): string {
  const digest = createHash("sha256").update(`identity:${identityField}\n`);
  let chunk = "";
  for (const line of sortedLines) {
    chunk += `${line}\n`;
    if (chunk.length >= HASH_CHUNK_BYTES) {
      digest.update(chunk);
      chunk = "";
    }
  }
  return digest.update(chunk).digest("hex");
}

/** Problems as lines a person can act on, with the source's name. */
export function describeProblems(
  sourceName: string,
  loaded: Pick<LoadedRecipients, "problems" | "problemCount">,
) {
  const lines = loaded.problems.map(
    (p) => `${sourceName} row ${p.row}${p.field ? `, ${shown(p.field)}` : ""}: ${p.message}`,
  );
  if (loaded.problemCount > loaded.problems.length) {
    lines.push(`... and ${loaded.problemCount - loaded.problems.length} more problems`);
  }
  return lines;
}
