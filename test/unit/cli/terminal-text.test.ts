/**
 * terminalSafe and oneLine (provider/text.ts): the one cleaner of outside text that a person reads,
 * in the CLI's messages, the provider's errors and progress lines, the review and the report.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { oneLine, shown, terminalSafe } from "../../../provider/text";
import { controlLaden, isUnsafe, unsafeCharsIn } from "../../support/unsafe-chars";

/** Any UTF-16 text, unsafe characters and lone surrogates included, weighted toward the unsafe ones. */
const anyText = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
    fc.constantFrom(
      ..."\u001b\u0007\u009b\u009d\u009c\u202e\u2066\u2069\u200e\u200f\u061c\u2028\u2029\r\n\t\u007f\\",
    ),
    fc.constantFrom("a", "é", "東", "👋"),
  ),
  maxLength: 200,
});

describe("terminalSafe", () => {
  it("shows each control character as its escape, keeping line feed, tab and every other character", () => {
    const cases: [string, string][] = [
      ["\u001b[31mred\u001b[0m", "\\u001b[31mred\\u001b[0m"],
      ["\u009b2Jcleared", "\\u009b2Jcleared"],
      ["\u001b]0;a window title\u0007name", "\\u001b]0;a window title\\u0007name"],
      ["\u001b]8;;https://evil.example\u001b\\link", "\\u001b]8;;https://evil.example\\u001b\\link"],
      ["a\u0000b\u0008c\rE\u007fF\u0085G\u009fH", "a\\u0000b\\u0008c\\rE\\u007fF\\u0085G\\u009fH"],
      ["invoice\u202egpj.exe", "invoice\\u202egpj.exe"],
      [
        "\u2066\u2067\u2068\u2069\u202a\u202b\u202c\u202d",
        "\\u2066\\u2067\\u2068\\u2069\\u202a\\u202b\\u202c\\u202d",
      ],
      ["\u200e\u200f\u061c", "\\u200e\\u200f\\u061c"],
      ["one\u2028two\u2029three", "one\\u2028two\\u2029three"],
      ["two\nlines\tand a tab", "two\nlines\tand a tab"],
      ["Zoë, 東京, 👋, C:\\Users", "Zoë, 東京, 👋, C:\\Users"],
    ];
    for (const [text, expected] of cases) expect(terminalSafe(text), JSON.stringify(text)).toBe(expected);
  });

  it("turns the template name of a forged success line into its visible escape", () => {
    expect(terminalSafe("Postcard\u001b]0;owned\u0007\u001b[2J\u001b[1;32mAll checks passed\u001b[0m")).toBe(
      "Postcard\\u001b]0;owned\\u0007\\u001b[2J\\u001b[1;32mAll checks passed\\u001b[0m",
    );
  });

  it("never lets an unsafe character through, and changes nothing else (property)", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const safe = terminalSafe(text);
        expect(unsafeCharsIn(safe)).toEqual([]);
        // Each unsafe character as its escape, every other one as it was: written code unit by code unit.
        const expected = text
          .split("")
          .map((c) =>
            !isUnsafe(c.charCodeAt(0))
              ? c
              : c === "\r"
                ? "\\r"
                : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
          )
          .join("");
        expect(safe).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it("is idempotent: what it shows is shown again unchanged", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(terminalSafe(terminalSafe(text))).toBe(terminalSafe(text));
      }),
    );
  });

  it("cleans 2 million characters of any repeated piece in linear time (property)", () => {
    // Each pass is a single character class, one step a character; a quadratic cleaner would take
    // hours on 2 million characters, a linear one well under a second (seconds on a busy machine).
    fc.assert(
      fc.property(
        fc.oneof(
          anyText.filter((t) => t.length > 0),
          fc.constant(controlLaden("x")),
        ),
        (piece) => {
          const text = piece.repeat(Math.ceil(2_000_000 / piece.length));
          const started = performance.now();
          const safe = terminalSafe(text);
          const line = oneLine(text);
          expect(performance.now() - started).toBeLessThan(8_000);
          expect(unsafeCharsIn(safe)).toEqual([]);
          expect(unsafeCharsIn(line, { inLine: true })).toEqual([]);
        },
      ),
      { numRuns: 5 },
    );
  }, 60_000);
});

describe("oneLine", () => {
  it("escapes line feeds and tabs too, so a piece cannot start a line of its own", () => {
    expect(oneLine("Postcard\nerror: all checks passed\tok\r\n")).toBe(
      "Postcard\\nerror: all checks passed\\tok\\r\\n",
    );
    expect(oneLine(controlLaden("name"))).not.toMatch(/[\n\r\u2028\u2029]/);
  });

  it("never lets an unsafe character, a line feed or a tab through (property)", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(unsafeCharsIn(oneLine(text), { inLine: true })).toEqual([]);
        expect(unsafeCharsIn(shown(text, 50), { inLine: true })).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  it("cleans 4 million line breaks in linear time", () => {
    const started = performance.now();
    expect(oneLine("\n".repeat(4_000_000))).toBe("\\n".repeat(4_000_000));
    expect(performance.now() - started).toBeLessThan(8_000);
  }, 30_000);
});
