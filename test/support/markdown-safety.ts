/**
 * What a test of review.md looks for: text that GitHub would read as markup (a link, an image,
 * HTML, emphasis, a table cell, a line, a mention, a reference, an autolink) outside code spans.
 */
import { WORD_JOINER as J } from "../../cli/review/markdown-text";

/** The handwriting font of a campaign file that tries to put a link, a button and a mention in the report. */
export const HOSTILE_FONT = "Neat](https://evil.example) **[Approve](https://evil.example)** cc @team";

/** What GitHub would read as markup in a text that is not inside code. */
export function markupIn(text: string): string[] {
  const found: string[] = [];
  const shown = withoutReferences(text);
  const patterns: [string, RegExp][] = [
    ["markup character", /[<>[\]*~$|\\`\r\n\u2028\u2029]/],
    ["emphasis underscore", /(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/],
    ["character reference", /&/],
    ["mention or reference", new RegExp(`[@#](?!${J})`)],
    ["GH- reference", new RegExp(`gh(?!${J})-\\d`, "i")],
    ["autolink", /:\/\/|www\./i],
  ];
  for (const [what, pattern] of patterns) if (pattern.test(shown)) found.push(what);
  return found;
}

/** The character references markdownText() writes, each as `¤`: GitHub shows each as one character of text. */
export function withoutReferences(text: string): string {
  return text.replace(/&(?:amp|lt|gt|#91|#93|#42|#95|#126|#36|#124|#92|#96);/g, "¤");
}

/**
 * The text without its code spans, found as CommonMark finds them: a run of backticks opens one
 * that the next run of the same length closes. A run that nothing closes is an error here: the
 * report never shows a backtick outside code.
 */
export function withoutCodeSpans(text: string): string {
  let outside = "";
  let at = 0;
  for (;;) {
    const open = /`+/g;
    open.lastIndex = at;
    const start = open.exec(text);
    if (!start) return outside + text.slice(at);
    outside += text.slice(at, start.index);
    const close = new RegExp(`(?<!\`)${start[0]}(?!\`)`, "g");
    close.lastIndex = start.index + start[0].length;
    const end = close.exec(text);
    if (!end) throw new Error(`a backtick run that no run closes, at ${start.index}: ${text}`);
    at = end.index + end[0].length;
  }
}
