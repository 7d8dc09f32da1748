/** `terminalSafe`: what every message of the CLI passes through before it reaches a terminal. */
import { describe, expect, it } from "vitest";
import { terminalSafe } from "../../../provider/text";

describe("terminalSafe", () => {
  it("takes out whole escape sequences and every control character but line feed and tab", () => {
    const cases: [string, string][] = [
      ["\u001b[31mred\u001b[0m", "red"],
      ["\u009b2Jcleared", "cleared"],
      ["\u001b]0;a window title\u0007name", "name"],
      ["\u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\", "link"],
      ["\u009d0;title\u009cname", "name"],
      ["\u001bPdevice control\u001b\\x", "x"],
      ["a\u0000b\u0007c\u0008d\rE\u007fF\u0085G\u009fH", "abcdEFGH"],
      ["two\nlines\tand a tab", "two\nlines\tand a tab"],
      ["Zoë, 東京, 👋", "Zoë, 東京, 👋"],
      // Unterminated: the introducer goes, the text stays readable.
      ["\u001b]0;no end", "]0;no end"],
    ];
    for (const [text, expected] of cases) expect(terminalSafe(text), JSON.stringify(text)).toBe(expected);
  });

  it("filters a large hostile text in linear time", () => {
    const started = performance.now();
    for (const piece of ["\u009d", "\u001b]", "\u001b[0", "\u001b"]) {
      expect(terminalSafe(piece.repeat(200_000))).toMatch(/^[\]0[]*$/);
    }
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
