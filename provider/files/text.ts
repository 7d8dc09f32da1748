/**
 * The text of a data file (recipients, records, scans), read as a stream, and what is wrong with a
 * file that cannot be read as text: the one wording every reader of such a file reports.
 */
import { createReadStream } from "node:fs";
import * as fs from "node:fs/promises";
import { LineTracker, notTextAt } from "../text";

/**
 * A data file that cannot be read in its format, or at all: what is wrong (`reason`) and, when the
 * problem is at a place in the file (a CSV row with an extra value, a quote never closed, binary
 * data), its line and column. `message` names the file and the place too.
 */
export class SourceFileError extends Error {
  override readonly name = "SourceFileError";

  constructor(
    /** The file as the source names it. */
    readonly file: string,
    /** What is wrong, without the file's name. */
    readonly reason: string,
    /** 1-based; unset when the problem is the whole file (not found, not JSON). */
    readonly line?: number,
    /** 1-based; set with `line`. */
    readonly column?: number,
  ) {
    super(`${file}${line !== undefined ? `:${line}:${column ?? 1}` : ""}: ${reason}`);
  }
}

/**
 * Refuses a file that is missing or cannot be read, as one clear error before any stream is opened;
 * `relativeTo` is the folder its name was resolved against.
 */
export async function mustBeReadable(file: string, shownAs: string, relativeTo: string): Promise<void> {
  await fs.access(file, fs.constants.R_OK).catch((error: NodeJS.ErrnoException) => {
    const why = error.code === "ENOENT" ? "no such file" : `cannot be read (${error.code})`;
    throw new SourceFileError(shownAs, `${why} (paths are relative to ${relativeTo})`);
  });
}

/**
 * The text of a data file, decoded as it is read, without its byte-order mark. A binary file (a
 * spreadsheet, say) fails at its first byte that is not UTF-8 or is a control character, with that
 * line and column, so it is one clear problem. `opened`: the file opened already, read from its
 * start and left open (its opener closes it), so that a file looked at before its read is opened once.
 */
export async function* textOf(file: string, shownAs: string, opened?: fs.FileHandle): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8");
  const at = new LineTracker();
  const checked = (text: string) => {
    const bad = notTextAt(text);
    if (bad) {
      const { line, column } = at.positionOf(text, bad.index);
      throw new SourceFileError(shownAs, bad.message, line, column);
    }
    at.advance(text);
    return text;
  };
  try {
    const stream = opened ? opened.createReadStream({ start: 0, autoClose: false }) : createReadStream(file);
    for await (const bytes of stream) yield checked(decoder.decode(bytes, { stream: true }));
  } catch (error) {
    if (error instanceof SourceFileError) throw error;
    // Gone or locked after it was found readable.
    const { code, message } = error as NodeJS.ErrnoException;
    throw new SourceFileError(shownAs, `cannot be read (${code ?? message})`);
  }
  yield checked(decoder.decode());
}

/** The whole text of a data file, read as textOf reads it. */
export async function wholeTextOf(file: string, shownAs: string, opened?: fs.FileHandle): Promise<string> {
  let text = "";
  for await (const piece of textOf(file, shownAs, opened)) text += piece;
  return text;
}
