/**
 * Outside text in what a person reads, and text files that are not text. The one rule for text that
 * came from the service, a file or a path: terminalSafe() (a whole message) and oneLine() (a piece
 * inside a line) show every character a terminal or a reader would act on as its escape, so that a
 * 10 MB key, a binary byte or a template named like an escape sequence cannot flood, garble or
 * forge what is shown; a file that holds binary data is one problem, found in one pass.
 */

/** Longest piece of user text shown in a message; longer text is cut with "…". */
const SHOWN_LENGTH = 60;

/** Control characters YAML and CSV files must not hold (tab and line ends are allowed). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/** Text for a message: at most `length` characters, on one line (see oneLine). */
export function shown(text: string, length = SHOWN_LENGTH): string {
  return oneLine(text.length > length ? `${text.slice(0, length)}…` : text);
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

/** How a character is shown escaped: `\\n`, `\\r`, `\\t`, else `\\u` and four hex digits (`\\u001b`). */
const SHORT_ESCAPES: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escapeChar(c: string): string {
  return SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * What a terminal or a reader acts on rather than shows, in text that came from outside (the
 * service, a file, a path): C0 controls but line feed and tab (ESC starts every escape sequence,
 * CR rewrites a line, BEL, backspace), DEL, C1 (U+009B and U+009D start sequences too), the line and
 * paragraph separators U+2028 and U+2029 (a line break to some readers), and the bidirectional
 * controls, which reorder what is shown: the marks U+061C, U+200E and U+200F, the embeddings and
 * overrides U+202A-U+202E and the isolates U+2066-U+2069.
 */
const UNSAFE_CLASS =
  "\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F\\u061C\\u200E\\u200F\\u2028\\u2029\\u202A-\\u202E\\u2066-\\u2069";
const UNSAFE = new RegExp(`[${UNSAFE_CLASS}]`, "g");
/** The same, and line feed and tab: for a piece of outside text inside a line. */
const UNSAFE_IN_LINE = new RegExp(`[\\n\\t${UNSAFE_CLASS}]`, "g");

/**
 * Text for a person to read, whatever the service or a file put in it: each character of UNSAFE is
 * shown as its escape (`\u001b`), so that a name in a message cannot move the cursor, clear the
 * screen, retitle the window, hide a link, overwrite a line or reorder what is shown, and what it
 * tried is visible. Line feed and tab stay: a message's own lines are the message's. Every message
 * of the CLI and of the provider (its errors and progress lines) goes through it; one pass, linear.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/**
 * A piece of outside text inside a line (a name, a value, a reason, a path): as terminalSafe, and
 * its line feeds and tabs escaped too, so that it cannot start a line of its own that reads like
 * the tool's (`\nerror: …`).
 */
export function oneLine(text: string): string {
  return text.replace(UNSAFE_IN_LINE, escapeChar);
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
