/**
 * Records declared inline or in a file (CSV with a header row, JSON array, JSON Lines), each with
 * its line (or position) and an identity key, for the resources that send records one set at a
 * time: `Conversions` and `AutomationRecipients`. Read by the recipient list's row reader
 * (provider/recipients/read/). Like recipients, a record
 * is identified by a key field the user names or, without one, by its content; the state keeps
 * keys and content digests (recipients/index-codec.ts), never the records of a file.
 */
import { createHash } from "node:crypto";
import * as path from "node:path";
import { chosenRoot, OutsideRootError, resolveInside } from "../../file-root";
import { mustBeReadable, SourceFileError, textOf } from "../../files/text";
import { MAX_KEPT_PROBLEMS } from "../../limits";
import { projectRoot } from "../../project";
import { csvRecordBatches, hashKey, jsonRowBatches, type RowProblem } from "../../recipients/index";
import { shown } from "../../text";
import { UserError } from "../user-error";

export interface LoadedRecord<T> {
  /** 64-bit hex: the key field's value hashed, or the content digest without a key field. */
  key: string;
  /** 64-bit hex digest of the record's content. */
  content: string;
  /** 1-based: the line of a CSV or JSON Lines file, the position in a JSON array or inline list. */
  row: number;
  /** The key field's value, when there is a key field (shown in messages). */
  keyValue?: string;
  record: T;
}

/** A problem of one row, as the recipient list's reader reports one. */
export type RecordProblem = RowProblem;

export interface LoadedRecords<T> {
  byKey: Map<string, LoadedRecord<T>>;
  /** Rows identical to an earlier row, or with its key: sent once. */
  duplicateRows: number;
  /** sha256 over the sorted (key, content) pairs: any change of any record changes it. */
  digest: string;
  problems: RecordProblem[];
  problemCount: number;
}

/** Records inline, or in a file that stays inside `fileRoot` (the resource's input; see file-root.ts). */
export type RecordSource = { file: string; fileRoot?: string | undefined } | { inline: unknown[] };

export interface RecordShape<T> {
  /** What a record is called in messages: "conversion record", "recipient". */
  noun: string;
  /**
   * A raw row (an object, CSV cells as text) as a record, or the problems that keep it from being
   * one, each naming its field. Checks only what the service would not report itself (unknown
   * fields, which it would silently drop; a value of the wrong kind).
   */
  shape(row: Record<string, unknown>): { record: T } | { problems: { field?: string; message: string }[] };
}

/** The digest of a record's content: field order and blank fields do not matter. */
export function recordDigest(value: unknown): string {
  return hashKey(JSON.stringify(canonical(value)));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== "object") return value;
  return Object.entries(value)
    .filter(([, v]) => v !== undefined && v !== null && v !== "")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => [k, canonical(v)]);
}

/**
 * Rows of a source as plain values with their row numbers. Errors of the file itself are thrown.
 * Files are read as recipient files are (provider/files/): a binary file, a CSV file's broken
 * format and a JSON Lines line are reported at the same lines, in the same words.
 */
async function* rowsOf(source: RecordSource): AsyncGenerator<{ row: number; value: unknown }> {
  if ("inline" in source) {
    for (const [index, value] of source.inline.entries()) yield { row: index + 1, value };
    return;
  }
  try {
    yield* fileRowsOf(source.file, source.fileRoot);
  } catch (error) {
    // What is wrong with the file itself: one line, naming it, without a stack trace.
    if (error instanceof SourceFileError) throw new UserError(error.message);
    if (error instanceof OutsideRootError) throw new UserError(`file: ${error.message}`);
    throw error;
  }
}

async function* fileRowsOf(
  shownAs: string,
  fileRoot: string | undefined,
): AsyncGenerator<{ row: number; value: unknown }> {
  // Relative to the project folder (the state stays the same on every machine), inside the root.
  const file = await resolveInside(chosenRoot(fileRoot, projectRoot()), shownAs, projectRoot());
  const ext = path.extname(file).toLowerCase();
  await mustBeReadable(file, shownAs, projectRoot());
  const format = ext === ".json" ? "json" : ext === ".jsonl" || ext === ".ndjson" ? "jsonl" : undefined;
  if (format !== undefined) {
    for await (const batch of jsonRowBatches(file, shownAs, format, "records")) yield* batch;
    return;
  }
  if (ext !== ".csv")
    throw new SourceFileError(
      shownAs,
      `unknown file type "${shown(ext)}"; use .csv, .json, .jsonl or .ndjson`,
    );
  let columns: string[] | undefined;
  for await (const records of csvRecordBatches(textOf(file, shownAs), ",", shownAs)) {
    for (const { record, line } of records) {
      if (columns === undefined) {
        columns = record;
        continue;
      }
      const value: Record<string, string> = Object.create(null);
      record.forEach((cell, i) => {
        const name = columns?.[i];
        if (name !== undefined && cell !== "") value[name] = cell;
      });
      yield { row: line, value };
    }
  }
}

/**
 * Reads and shapes every record of a source. Problems are collected, not thrown, so the user sees
 * all of them at once (the first 20, and their count); the caller refuses to send anything when
 * there is any. `keyField` names the field that identifies a record (it is sent, as it is part of
 * the record).
 */
export async function loadRecords<T>(
  source: RecordSource,
  shape: RecordShape<T>,
  keyField: string | undefined,
): Promise<LoadedRecords<T>> {
  const byKey = new Map<string, LoadedRecord<T>>();
  const problems: RecordProblem[] = [];
  let problemCount = 0;
  let duplicateRows = 0;
  const problem = (p: RecordProblem) => {
    problemCount += 1;
    if (problems.length < MAX_KEPT_PROBLEMS) problems.push(p);
  };
  for await (const { row, value } of rowsOf(source)) {
    if (value instanceof Error) {
      problem({ row, message: value.message });
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      problem({ row, message: `expected an object: one ${shape.noun}` });
      continue;
    }
    const shaped = shape.shape(value as Record<string, unknown>);
    if ("problems" in shaped) {
      for (const p of shaped.problems) problem({ row, ...p });
      continue;
    }
    const content = recordDigest(shaped.record);
    let key = content;
    let keyValue: string | undefined;
    if (keyField !== undefined) {
      const raw = (value as Record<string, unknown>)[keyField];
      keyValue = raw === undefined || raw === null ? "" : String(raw).trim();
      if (keyValue === "") {
        problem({ row, field: keyField, message: `${keyField} (the key field) is empty` });
        continue;
      }
      key = hashKey(`key:${keyValue}`);
    }
    const earlier = byKey.get(key);
    if (earlier) {
      if (earlier.content === content) duplicateRows += 1;
      else
        problem({
          row,
          field: keyField,
          message: `${keyField} "${shown(keyValue ?? "")}" is used by row ${earlier.row} too, with different details`,
        });
      continue;
    }
    byKey.set(key, {
      key,
      content,
      row,
      ...(keyValue !== undefined ? { keyValue } : {}),
      record: shaped.record,
    });
  }
  const pairs = [...byKey.values()].map((r) => `${r.key} ${r.content}`).sort();
  const hash = createHash("sha256");
  for (const line of pairs) hash.update(`${line}\n`);
  return { byKey, duplicateRows, digest: hash.digest("hex"), problems, problemCount };
}

/** How a record is named in a message: its row, and its key when there is a key field. */
export function recordLabel(
  sourceName: string,
  record: Pick<LoadedRecord<unknown>, "row" | "keyValue">,
): string {
  return `${sourceName} row ${record.row}${record.keyValue !== undefined ? ` (key "${shown(record.keyValue)}")` : ""}`;
}

/** Refuses a source with problems: every problem on one line each, with its row and field. */
export function refuseProblems(
  sourceName: string,
  loaded: Pick<LoadedRecords<unknown>, "problems" | "problemCount">,
): void {
  if (loaded.problemCount === 0) return;
  const lines = loaded.problems.map(
    (p) => `${sourceName} row ${p.row}${p.field ? `, ${shown(p.field)}` : ""}: ${p.message}`,
  );
  if (loaded.problemCount > loaded.problems.length)
    lines.push(`... and ${loaded.problemCount - loaded.problems.length} more problems`);
  throw new UserError(
    `${lines.join("\n")}\nNothing was sent; fix the records and run the command again.`,
    true,
  );
}

/** The name of a source in messages: its file, or "records" for an inline list. */
export const sourceName = (source: RecordSource, inlineName: string) =>
  "file" in source ? source.file : inlineName;
