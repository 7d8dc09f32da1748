/**
 * A CSV file's header line checked for its delimiter before its rows are read.
 */
import { SourceFileError } from "../../files/text";
import type { ColumnRules } from "../columns";
import { CSV_DELIMITERS, type CsvDelimiter } from "../declared";

/** How much of a file's start is looked at for its header line. */
const HEADER_LOOKED_AT = 64 * 1024;

/**
 * The text of a CSV file, unchanged, once its header line was found to be separated by `delimiter`.
 * A header with no `delimiter` that another one splits into known columns is a file saved with
 * that other one (a spreadsheet in a language that writes `;`, a tab-separated export): one
 * SourceFileError at its line, rather than an unknown column and a problem on every row.
 */
export async function* headerChecked(
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
