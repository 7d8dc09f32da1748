/**
 * CSV data files with a header row, read as a stream: every record numbered by the line it starts
 * on, and a file whose CSV format is broken reported at that line, in words a person can act on.
 */
import { Readable } from "node:stream";
import { CsvError, type InfoRecord, type Options, type Parser, parse as parseCsv } from "csv-parse";
import { shown } from "../text";
import { SourceFileError } from "./text";

/** A CSV record with the line it starts on. */
export interface CsvRecord {
  record: string[];
  line: number;
}

/** Where a CsvReader was after the last record it read: its last line, and the empty lines skipped so far. */
export interface CsvPosition {
  line: number;
  emptyLines: number;
  /** Line ends csv-parse counted twice so far: a CR LF inside a quoted value is one line end. */
  extraLines: number;
}

/**
 * A CSV parser fed `text` (textOf, say). pipe() does not pass a read error on: the parser fails with
 * it, where it would otherwise wait forever. A parser left early (destroyed, or a `break` out of its
 * records) stops the reading too, which closes the file.
 */
export function parsing<P extends Parser>(text: AsyncIterable<string>, parser: P): P {
  const input = Readable.from(text);
  input.on("error", (error) => parser.destroy(error)).pipe(parser);
  parser.once("close", () => input.destroy());
  return parser;
}

/**
 * The one way the provider reads CSV data files (recipients, their key column again, records):
 * any line end, even mixed in one file (csv-parse would keep to the first one it sees), empty lines
 * skipped, values trimmed. Records come as CsvRecord objects, numbered by the line each starts on.
 * csv-parse counts a CR LF inside a quoted value as two lines: counted once here.
 */
export function csvReader(
  text: AsyncIterable<string>,
  delimiter = ",",
): { parser: Parser; position: CsvPosition } {
  const position: CsvPosition = { line: 0, emptyLines: 0, extraLines: 0 };
  // Called as each record is read, before an error further on drops the records not yet taken.
  const numbered = ({ record }: { record: string[] }, { lines, empty_lines }: InfoRecord): CsvRecord => {
    let lineEnds = 0;
    for (const value of record) {
      // Most values have no line end: counted only in those that do.
      if (!value.includes("\n") && !value.includes("\r")) continue;
      position.extraLines += value.split("\r\n").length - 1;
      lineEnds += value.split(/\r\n|\r|\n/).length - 1;
    }
    position.line = lines - position.extraLines;
    position.emptyLines = empty_lines;
    return { record, line: position.line - lineEnds };
  };
  const parser = parseCsv({
    delimiter,
    skip_empty_lines: true,
    trim: true,
    info: true,
    record_delimiter: ["\r\n", "\n", "\r"],
    // With `info`, a record comes as { record, info }; csv-parse's types do not say so.
    on_record: numbered as unknown as NonNullable<Options["on_record"]>,
  });
  return { parser: parsing(text, parser), position };
}

/**
 * A CSV file's own format broken, as csv-parse reports it, at the line where the row in error
 * starts: the line after the last row read (`last`), past the empty lines skipped since.
 * csv-parse's own line count is off after a CR LF inside quotes, and it notices an unclosed quote
 * only at the end of the file.
 */
export function csvFileError(error: unknown, file: string, last: CsvPosition): unknown {
  if (!(error instanceof CsvError)) return error;
  const { empty_lines, record } = error as CsvError & { empty_lines?: number; record?: unknown };
  const line = last.line + 1 + (empty_lines ?? 0) - last.emptyLines;
  const reasons: Record<string, string> = {
    CSV_RECORD_INCONSISTENT_FIELDS_LENGTH:
      `this row has ${Array.isArray(record) ? record.length : "a different number of"} values but the header ` +
      'has a different number of columns (a comma inside a value needs "quotes")',
    CSV_QUOTE_NOT_CLOSED: 'a quoted value starts here and is never closed (a " is missing)',
    CSV_INVALID_CLOSING_QUOTE:
      'a quoted value in this row has more text after its closing quote (a " inside a quoted value is written "")',
    INVALID_OPENING_QUOTE:
      'a value in this row has a " inside it: put the whole value in "quotes" and write the " as ""',
  };
  reasons.CSV_RECORD_INCONSISTENT_COLUMNS = reasons.CSV_RECORD_INCONSISTENT_FIELDS_LENGTH as string;
  reasons.CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE = reasons.CSV_INVALID_CLOSING_QUOTE as string;
  // Another error: csv-parse's text, without its line (counted its way) and with user text shown safely.
  const reason = reasons[error.code] ?? shown(error.message.replace(/,? (at|on) line \d+/g, ""), 200);
  return new SourceFileError(file, reason, line);
}
