import { inflateSync } from "node:zlib";

/**
 * The text a PDF draws, line by line: every content stream is inflated and the strings of its
 * `Tj` operators are decoded (pdf-lib writes standard-font text as hex strings). Enough to check
 * that a proof shows the merge fields, with no PDF library in the test.
 */
export function pdfText(pdf: Buffer): string[] {
  const source = pdf.toString("latin1");
  const lines: string[] = [];
  const stream = /stream\r?\n/g;
  for (let match = stream.exec(source); match; match = stream.exec(source)) {
    const start = match.index + match[0].length;
    const end = source.indexOf("endstream", start);
    if (end < 0) break;
    const raw = pdf.subarray(start, end);
    let content: string;
    try {
      content = inflateSync(raw).toString("latin1");
    } catch {
      content = raw.toString("latin1");
    }
    for (const m of content.matchAll(/<([0-9A-Fa-f]*)>\s*Tj|\(((?:\\.|[^\\)])*)\)\s*Tj/g)) {
      lines.push(m[1] !== undefined ? Buffer.from(m[1], "hex").toString("latin1") : (m[2] ?? ""));
    }
    stream.lastIndex = end;
  }
  return lines;
}
