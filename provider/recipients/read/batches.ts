/**
 * The rows of a data file in batches, the one way recipient and record files are read: a JSON
 * array's or JSON Lines file's values, a CSV file's records. Each step of reading a list then pays
 * its await once a batch, not once a row.
 */
import type { FileHandle } from "node:fs/promises";
import { type CsvRecord, csvFileError, csvReader } from "../../files/csv";
import { jsonArrayOf, jsonLinesOf } from "../../files/json";

/** Rows handed on together. */
export const ROWS_PER_BATCH = 1000;

/**
 * The values of a JSON array file (one batch: it is read whole) or a JSON Lines file (a value a
 * non-blank line, up to line `last`), with their rows. `noun` names what a JSON array should hold;
 * `opened` and `keepText` as jsonArrayOf takes them.
 */
export async function* jsonRowBatches(
  file: string,
  shownAs: string,
  format: "json" | "jsonl",
  noun: string,
  {
    opened,
    keepText,
    last = Number.POSITIVE_INFINITY,
  }: { opened?: FileHandle | undefined; keepText?: ((text: string) => void) | undefined; last?: number } = {},
): AsyncGenerator<{ row: number; value: unknown }[]> {
  if (format === "json") {
    const parsed = await jsonArrayOf(file, shownAs, noun, { opened, keepText });
    yield parsed.map((value, index) => ({ row: index + 1, value }));
    return;
  }
  let batch: { row: number; value: unknown }[] = [];
  for await (const row of jsonLinesOf(file, shownAs, opened)) {
    if (row.row > last) break;
    batch.push(row);
    if (batch.length === ROWS_PER_BATCH) {
      yield batch;
      batch = [];
    }
  }
  yield batch;
}

/**
 * The records of a CSV text, numbered by their lines, in batches: the records csv-parse has read
 * already are taken with each one it hands on. A broken format is one SourceFileError at its place
 * (csvFileError). A reader that stops early closes the parser.
 */
export async function* csvRecordBatches(
  text: AsyncIterable<string>,
  delimiter: string,
  shownAs: string,
): AsyncGenerator<CsvRecord[]> {
  const { parser, position } = csvReader(text, delimiter);
  try {
    for await (const first of parser as AsyncIterable<CsvRecord>) {
      const records = [first];
      while (records.length < ROWS_PER_BATCH) {
        const next: CsvRecord | null = parser.read();
        if (next === null) break;
        records.push(next);
      }
      yield records;
    }
  } catch (error) {
    throw csvFileError(error, shownAs, position);
  }
}
