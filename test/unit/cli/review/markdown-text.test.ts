/**
 * The text of review.md: a campaign file's or the service's text shows as the characters it is,
 * and can add no link, image, HTML, emphasis, table cell, line, mention, reference or autolink.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { codeSpan, WORD_JOINER as J, markdownText } from "../../../../cli/review/markdown-text";
import { HOSTILE_FONT, markupIn, withoutCodeSpans } from "../../../support/markdown-safety";
import { controlLaden, unsafeCharsIn } from "../../../support/unsafe-chars";

describe("markdownText", () => {
  it("shows a link, bold text and a mention as plain characters", () => {
    expect(markdownText(HOSTILE_FONT)).toBe(
      `Neat&#93;(https:${J}//evil.example) &#42;&#42;&#91;Approve&#93;(https:${J}//evil.example)&#42;&#42; cc @${J}team`,
    );
  });

  it("escapes images, HTML, comments, code, tables, math, strikethrough and backslashes", () => {
    expect(markdownText("![x](y.png) <img src=x onerror=alert(1)> <!-- hide -->")).toBe(
      "!&#91;x&#93;(y.png) &lt;img src=x onerror=alert(1)&gt; &lt;!-- hide --&gt;",
    );
    expect(markdownText("a | b `c` $x^2$ ~~gone~~ \\*")).toBe(
      "a &#124; b &#96;c&#96; &#36;x^2&#36; &#126;&#126;gone&#126;&#126; &#92;&#42;",
    );
    // `_` emphasizes only at a word's edge; inside a word it stays as written.
    expect(markdownText("_em_ DO_NOT_MAIL __init__")).toBe(
      "&#95;em&#95; DO_NOT_MAIL &#95;&#95;init&#95;&#95;",
    );
  });

  it("keeps a text on its line: every line break is a space", () => {
    expect(markdownText("one\ntwo\r\nthree\rfour\u2028five\u2029six")).toBe("one two three four five six");
    expect(markdownText("cell\n| --- |\n# Title")).toBe(`cell &#124; --- &#124; #${J} Title`);
  });

  it("shows escape sequences and bidirectional controls as their escapes, in text and in code", () => {
    expect(markdownText("invoice\u202egpj.exe \u001b[2J\u0085\u2066x\t")).toBe(
      "invoice&#92;u202egpj.exe &#92;u001b&#91;2J&#92;u0085&#92;u2066x\t",
    );
    expect(codeSpan("C-1\u202e\u001b]0;t\u0007")).toBe("`C-1\\u202e\\u001b]0;t\\u0007`");
    for (const code of [false, true]) {
      expect(unsafeCharsIn(markdownText(controlLaden("a `b` c"), { code }), { inLine: true })).toEqual([]);
    }
    expect(unsafeCharsIn(codeSpan(controlLaden("C-1")), { inLine: true })).toEqual([]);
  });

  it("breaks mentions, references and autolinks with a word joiner, and shows a character reference as written", () => {
    expect(markdownText("cc @team @org/reviewers, fixes #12, GH-7, owner/repo#3")).toBe(
      `cc @${J}team @${J}org/reviewers, fixes #${J}12, GH${J}-7, owner/repo#${J}3`,
    );
    expect(markdownText("see https://evil.example, HTTP://x.y, www.evil.example and me@evil.example")).toBe(
      `see https:${J}//evil.example, HTTP:${J}//x.y, www${J}.evil.example and me@${J}evil.example`,
    );
    expect(markdownText("&#64;team &#91;x&#93;(y) &amp;")).toBe(
      `&amp;#${J}64;team &amp;#${J}91;x&amp;#${J}93;(y) &amp;amp;`,
    );
  });

  it("cuts a long text at 2,000 characters, never inside a surrogate pair", () => {
    expect(markdownText("a".repeat(2001))).toBe(`${"a".repeat(2000)}…`);
    expect(markdownText(`${"a".repeat(1999)}😀b`)).toBe(`${"a".repeat(1999)}…`);
  });

  it("with code: a backtick-quoted part is a code span, and a lone backtick is a character", () => {
    expect(markdownText("`pulumi up` refuses it; `a](https://x)` @team ` end", { code: true })).toBe(
      `\`pulumi up\` refuses it; \`a](https://x)\` @${J}team &#96; end`,
    );
  });

  it("no text can open a link, an image, HTML, a mention, a reference, an autolink or a new cell or line", () => {
    const pieces = fc.constantFrom(
      ..."[]()!<>*_~$|\\`&#@:/.-\n\r\u2028 aZ09".split(""),
      "https://",
      "www.",
      "GH-1",
      "&#64;",
      "<!--",
      "![",
      "](",
      "@team",
      "#12",
      "\u2060",
    );
    const text = fc.oneof(fc.string({ unit: pieces, maxLength: 40 }), fc.string({ unit: "binary" }));
    fc.assert(
      fc.property(text, fc.boolean(), (input, code) => {
        const shown = markdownText(input, { code });
        // With code, what is between backticks is a code span of codeSpan(), checked below.
        const outside = code ? withoutCodeSpans(shown) : shown;
        expect(markupIn(outside), shown).toEqual([]);
        expect(unsafeCharsIn(shown), shown).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("codeSpan", () => {
  it("fences a value with backticks in a longer run, on one line, pipes shown as ¦", () => {
    expect(codeSpan("C-1005")).toBe("`C-1005`");
    expect(codeSpan("a`b")).toBe("``a`b``");
    expect(codeSpan("`a``")).toBe("``` `a`` ```");
    expect(codeSpan("a\nb|c")).toBe("`a b¦c`");
    expect(codeSpan("")).toBe("` `");
    expect(codeSpan("x".repeat(201))).toBe(`\`${"x".repeat(200)}…\``);
  });

  it("every value is one code span that ends where it should", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("`", "``", "a", " ", "|", "\n", "](x)") }), (value) => {
        const span = codeSpan(value);
        expect(span).not.toMatch(/[|\r\n]/);
        expect(withoutCodeSpans(`x${span}x`)).toBe("xx");
      }),
      { numRuns: 1000 },
    );
  });
});
