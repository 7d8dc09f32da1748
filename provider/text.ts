/**
 * User text in messages, and text files that are not text. A name or value taken from a file is
 * shown short and with its control characters escaped, so that a 10 MB key or a binary byte
 * cannot flood or garble a terminal; a file that holds binary data is one problem, found in one
 * pass.
 */

/** Longest piece of user text shown in a message; longer text is cut with "…". */
const SHOWN_LENGTH = 60;

/** Control characters YAML and CSV files must not hold (tab and line ends are allowed). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
const ALL_CONTROL = new RegExp(CONTROL.source, "g");

/** Text for a message: at most `length` characters, control characters escaped (\u0000). */
export function shown(text: string, length = SHOWN_LENGTH): string {
  const short = text.length > length ? `${text.slice(0, length)}…` : text;
  return short.replace(/[\n\r\t]/g, (c) => JSON.stringify(c).slice(1, -1)).replace(ALL_CONTROL, escapeChar);
}

/** `a, b, c` of `total` items, the ones not given counted: `a, b, c and 4 more`. */
export function listed(items: readonly string[], total: number): string {
  const more = total - items.length;
  return more > 0 ? `${items.join(", ")} and ${more} more` : items.join(", ");
}

/** Rows named in a message: `row 7`, `rows 7, 9, 12`, `rows 7, 9, 12 and 5 more` (of `total`). */
export function rowsText(rows: readonly number[], total: number = rows.length): string {
  return `${total === 1 ? "row" : "rows"} ${listed(rows.map(String), total)}`;
}

function escapeChar(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * A terminal's escape sequences: CSI (`ESC [` or U+009B, then parameters and a final byte), and the
 * strings OSC, DCS, SOS, PM and APC up to their terminator (BEL, ESC and a backslash, or U+009C), with what
 * they carry (a window title, a link's target).
 */
const TERMINAL_SEQUENCE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
  /(?:\u001B\[|\u009B)[\u0030-\u003F]*[\u0020-\u002F]*[\u0040-\u007E]|(?:\u001B[\]PX^_]|[\u0090\u0098\u009D\u009E\u009F])[^\u0007\u001B\u0080-\u009F]*(?:\u0007|\u001B\\|\u009C)/g;
/** What a terminal acts on rather than shows: C0 but line feed and tab, DEL, C1. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
const TERMINAL_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/**
 * Text for a terminal, whatever the service or a file put in it: escape sequences and control
 * characters are taken out (line feed and tab stay), so that a name in a message cannot move the
 * cursor, clear the screen, retitle the window or hide a link. Every message of the CLI goes
 * through it.
 */
export function terminalSafe(text: string): string {
  return text.replace(TERMINAL_SEQUENCE, "").replace(TERMINAL_CONTROL, "");
}

/**
 * Where decoded text shows it was not UTF-8 text: the index of the first U+FFFD (what a byte
 * that is not UTF-8 decodes to) or control character, with what to say about it.
 */
export function notTextAt(text: string): { index: number; message: string } | undefined {
  const control = text.search(CONTROL);
  const replacement = text.indexOf("\uFFFD");
  if (control < 0 && replacement < 0) return undefined;
  if (replacement >= 0 && (control < 0 || replacement < control)) {
    return {
      index: replacement,
      message:
        "not UTF-8 text: a byte here is not UTF-8 (is it a binary or a spreadsheet file?); save the file as UTF-8 text",
    };
  }
  return {
    index: control,
    message: `not text: a control character (${escapeChar(text[control] as string)}) here; remove it, or save the file as UTF-8 text`,
  };
}

/** Line and column (1-based) at the end of the text advanced over; CRLF, CR and LF end a line. */
export class LineTracker {
  line = 1;
  column = 1;
  /** The text so far ends with CR: a LF that starts the next piece is part of the same line end. */
  #pendingCr = false;

  advance(text: string): void {
    const start = this.#pendingCr && text.startsWith("\n") ? 1 : 0;
    let lineStart = -1;
    for (const match of text.slice(start).matchAll(/\r\n|\r|\n/g)) {
      this.line += 1;
      lineStart = start + match.index + match[0].length;
    }
    this.column = lineStart < 0 ? this.column + text.length - start : text.length - lineStart + 1;
    if (text.length > 0) this.#pendingCr = text.endsWith("\r");
  }

  /** The position of `text[index]`, `text` being the piece that follows what was advanced over. */
  positionOf(text: string, index: number): { line: number; column: number } {
    const copy = new LineTracker();
    copy.line = this.line;
    copy.column = this.column;
    copy.#pendingCr = this.#pendingCr;
    copy.advance(text.slice(0, index));
    return { line: copy.line, column: copy.column };
  }
}
