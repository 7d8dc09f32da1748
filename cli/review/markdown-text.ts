/**
 * Text in review.md, which GitHub shows as a pull-request comment. Everything that comes from a
 * campaign file, the plan, the state or the service goes in through markdownText(), or codeSpan()
 * for a value shown as code (a key, a file), so that it shows as the characters it is and does
 * nothing else: no link, image, HTML, emphasis, code, math, table cell, new line, mention, issue
 * reference or autolink. A campaign file that names its handwriting font
 * `Neat](https://x) **[Approve](https://x)** cc @team` shows exactly that, as plain text.
 *
 * How markdownText() does it:
 * - each character Markdown or HTML reads (`& < > [ ] * _ ~ $ | \` and the backtick) becomes a
 *   character reference (`[` is `&#91;`), which GitHub shows as the character and never as
 *   markup, in Markdown and in the HTML of a `<summary>` alike; `_` between two letters or digits
 *   stays (it cannot emphasize there), so `DO_NOT_MAIL` reads as it is;
 * - a line break (CR, LF, U+2028, U+2029) becomes a space: a text stays in its table cell or list
 *   item; every other control character (C0, DEL, C1, the bidirectional controls) is shown as its
 *   escape (`\u202e`) by terminalSafe (provider/text.ts), so that no text reorders or hides what
 *   the comment shows;
 * - GitHub finds mentions (`@team`), references (`#12`, `GH-12`) and links (`https://…`, `www.…`)
 *   in the text it shows, after the Markdown: a word joiner (U+2060, invisible) after `@`, `#`,
 *   `GH`, `:` of `://` and `www` breaks each of them, and a text cannot spell one out with a
 *   character reference, since its `&` is shown too;
 * - a text longer than 2,000 characters is cut.
 *
 * Its result goes inside a line (after `- `, in a table cell, in a `<summary>`), never at the
 * start of one.
 */

import { terminalSafe } from "../../provider/text";

/** U+2060 WORD JOINER: invisible, and not a letter, digit or `/`, so mentions and links stop at it. */
export const WORD_JOINER = "\u2060";

const TEXT_LIMIT = 2000;
const CODE_LIMIT = 200;

/** The characters Markdown or HTML would read as markup, each as a character reference. */
const REFERENCES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "[": "&#91;",
  "]": "&#93;",
  "*": "&#42;",
  _: "&#95;",
  "~": "&#126;",
  $: "&#36;",
  "|": "&#124;",
  "\\": "&#92;",
  "`": "&#96;",
};
const MARKUP = /[&<>[\]*_~$|\\`]/g;
const LINE_BREAKS = /\r\n|[\r\n\u2028\u2029]/g;
const ALNUM = /[A-Za-z0-9]/;

/** Where GitHub would start a mention, a reference or an autolink: a word joiner goes after each. */
const AUTOLINK_STARTS = /[@#]|gh(?=-\d)|:(?=\/\/)|www(?=\.)/gi;

export interface MarkdownTextOptions {
  /**
   * Backtick-quoted parts (`pulumi up`) are shown as code, through codeSpan(): for the report's
   * own messages, which quote commands and settings, and which may quote a file's text too.
   */
  code?: boolean;
}

/** Text shown as the characters it is, on one line (see the top of this file). */
export function markdownText(text: string, options: MarkdownTextOptions = {}): string {
  const flat = terminalSafe(cut(text, TEXT_LIMIT).replace(LINE_BREAKS, " "));
  if (!options.code) return inert(flat);
  let shown = "";
  let last = 0;
  for (const match of flat.matchAll(/`([^`]+)`/g)) {
    shown += inert(flat.slice(last, match.index)) + codeSpan(match[1] as string);
    last = match.index + match[0].length;
  }
  return shown + inert(flat.slice(last));
}

/**
 * A value in a code span, on one line: its fence is longer than any run of backticks inside, a
 * pipe shows as `¦` (a pipe ends a table cell even inside code), and it is cut at 200 characters.
 * GitHub finds no mention, reference or link inside code.
 */
export function codeSpan(text: string): string {
  const flat = terminalSafe(cut(text, CODE_LIMIT).replace(LINE_BREAKS, " ")).replace(/\|/g, "¦");
  // An empty span would be a bare run of backticks, which could pair with a later one.
  const content = flat === "" ? " " : flat;
  const longest = Math.max(0, ...[...content.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  // A space on each side, which Markdown removes, keeps a backtick inside from touching the fence.
  const pad = content.startsWith("`") || content.endsWith("`") ? " " : "";
  return `${fence}${pad}${content}${pad}${fence}`;
}

/**
 * A word joiner after each start of an autolink, then each markup character as a reference (in
 * this order: a reference has a `#` of its own).
 */
function inert(text: string): string {
  const joined = text.replace(AUTOLINK_STARTS, (start) => `${start}${WORD_JOINER}`);
  return joined.replace(MARKUP, (char, offset: number) =>
    char === "_" && ALNUM.test(joined[offset - 1] ?? "") && ALNUM.test(joined[offset + 1] ?? "")
      ? char
      : (REFERENCES[char] as string),
  );
}

/** At most `limit` characters and an ellipsis, never half of a surrogate pair. */
function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const end = /[\uD800-\uDBFF]/.test(text[limit - 1] as string) ? limit - 1 : limit;
  return `${text.slice(0, end)}…`;
}
