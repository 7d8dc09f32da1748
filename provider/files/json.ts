/**
 * JSON data files: a JSON array read whole, and JSON Lines read as a stream, a value a line.
 */

import type { FileHandle } from "node:fs/promises";
import * as readline from "node:readline";
import { Readable } from "node:stream";
import { shown } from "../text";
import { SourceFileError, textOf, wholeTextOf } from "./text";

/**
 * The elements of a file that holds one JSON array; `noun` names what it should hold in the error
 * of a file that holds anything else ("recipients", "records"). `opened`: the file opened already
 * (textOf); `keepText` is given the text read, for a caller that looks at it again (where each
 * element was written) without a second read.
 */
export async function jsonArrayOf(
  file: string,
  shownAs: string,
  noun: string,
  {
    opened,
    keepText,
  }: { opened?: FileHandle | undefined; keepText?: ((text: string) => void) | undefined } = {},
): Promise<unknown[]> {
  const text = await wholeTextOf(file, shownAs, opened);
  keepText?.(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // JSON.parse quotes the text it could not read, line ends and all: shown on one line.
    throw new SourceFileError(shownAs, `not valid JSON: ${shown((error as Error).message, 200)}`);
  }
  if (!Array.isArray(parsed)) throw new SourceFileError(shownAs, `expected a JSON array of ${noun}`);
  return parsed;
}

/**
 * The values of a JSON Lines file, one a non-blank line, with their line numbers; a line that is
 * not JSON is a SyntaxError value at its line (a problem of that row, not of the file). A reader
 * that stops early (a `break`) closes the file.
 */
export async function* jsonLinesOf(
  file: string,
  shownAs: string,
  opened?: FileHandle,
): AsyncGenerator<{ row: number; value: unknown }> {
  const input = Readable.from(textOf(file, shownAs, opened));
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  // readline does not pass a read error on: it ends the lines, and is thrown after them.
  let failure: unknown;
  input.on("error", (error) => {
    failure = error;
    lines.close();
  });
  let line = 0;
  try {
    for await (const text of lines) {
      line += 1;
      if (text.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        value = new SyntaxError(`not valid JSON: ${shown((error as Error).message, 200)}`);
      }
      yield { row: line, value };
    }
  } finally {
    lines.close();
    input.destroy();
  }
  if (failure !== undefined) throw failure;
}
