/**
 * CSV line picking: the records at some lines of a CSV text, found without parsing the others.
 */
import type { MemoryBudget } from "../../memory-budget";

/**
 * The header record of a CSV text and the records that start on the lines `only`, found without
 * parsing the others: as one text (each record on its line or lines, in their order) and the line
 * each starts on in the file, by its line in that text. A line end ends a record unless it is inside
 * quotes, which the count of quotes before it tells (a readable file's quotes pair up, a `""` inside
 * a value too); lines are counted as csvReader counts them (a CR LF, an LF or a CR each one line),
 * and empty lines hold no record. Stops reading past the last line of `only`.
 */
export async function recordsAtLines(
  text: AsyncIterable<string>,
  only: ReadonlySet<number>,
  memory: MemoryBudget,
): Promise<{ text: string; lines: Map<number, number> }> {
  const last = Math.max(0, ...only);
  const picked: string[] = [];
  const lines = new Map<number, number>();
  let pickedLine = 1;
  let header = false;
  const take = (record: string, line: number) => {
    if (header && !only.has(line)) return;
    header = true;
    lines.set(pickedLine, line);
    // A copy: V8 makes a slice a view of the text it was cut from, and a record kept as a slice
    // would keep the whole piece read around it alive (2,000 records of a 1,000,000-row file kept
    // about 80 MB of the file's text until the join).
    picked.push(Buffer.from(record).toString());
    pickedLine += 1 + (record.match(/\r\n|\r|\n/g)?.length ?? 0);
  };
  const breaks = /["\r\n]/g;
  let buffer = "";
  let start = 0; // where the record being read starts in `buffer`
  let scanned = 0; // how much of `buffer` was looked at
  let line = 1;
  let linesHandled = 1;
  let recordLine = 1;
  let quoted = false;
  reading: for await (const piece of text) {
    // The text read is dropped as it goes: held to the memory budget as rows are.
    memory.rowsHandled(line - linesHandled);
    linesHandled = line;
    buffer = buffer.slice(start) + piece;
    scanned -= start;
    start = 0;
    breaks.lastIndex = scanned;
    scanned = buffer.length;
    for (let found = breaks.exec(buffer); found !== null; found = breaks.exec(buffer)) {
      const at = found.index;
      if (buffer[at] === '"') {
        quoted = !quoted;
        continue;
      }
      if (buffer[at] === "\r" && at + 1 === buffer.length) {
        // Its LF, if any, is in the next piece.
        scanned = at;
        break;
      }
      const end = buffer[at] === "\r" && buffer[at + 1] === "\n" ? at + 2 : at + 1;
      breaks.lastIndex = end;
      line += 1;
      if (quoted) continue;
      if (at > start) take(buffer.slice(start, at), recordLine);
      start = end;
      recordLine = line;
      if (header && recordLine > last) break reading;
    }
  }
  const rest = buffer.slice(start).replace(/\r$/, "");
  if (rest !== "" && recordLine <= last) take(rest, recordLine);
  return { text: picked.join("\n"), lines };
}
