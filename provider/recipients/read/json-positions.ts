/**
 * Where the rows of a JSON recipients file and their keys were written, for problems at their
 * line and column: the scanner the campaign check runs over a JSON array file's text.
 */
import { canonicalFieldName } from "../declared";

/** A place in a text, 1-based. */
export type Position = { line: number; column: number };

/**
 * Where the wanted elements (1-based rows) of a JSON array file start, and where their keys are
 * (by key, and by the field a key's spelling means): one pass over text that JSON.parse has
 * accepted, following strings and nesting. Not a second parser: that cost the time of a YAML
 * parse of the whole file.
 */
export function jsonPositions(
  text: string,
  wanted: ReadonlySet<number>,
): Map<number, { start: Position; keys: Map<string, Position> }> {
  const found = new Map<number, { start: Position; keys: Map<string, Position> }>();
  let line = 1;
  let lineStart = 0;
  let depth = 0;
  let row = 0;
  /** The wanted element being read, with its keys so far. */
  let element: { start: Position; keys: [string, Position][] } | undefined;
  const done = () => {
    if (element) found.set(row, { start: element.start, keys: writtenKeys(element.keys) });
    element = undefined;
  };
  let elementNext = false;
  let keyNext = false;
  let inObject = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (elementNext && c !== " " && c !== "\t" && c !== "\n" && c !== "\r" && c !== "]") {
      elementNext = false;
      row += 1;
      if (wanted.has(row)) element = { start: { line, column: i - lineStart + 1 }, keys: [] };
    }
    switch (c) {
      case '"': {
        let end = i + 1;
        while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
        if (element && depth === 2 && keyNext) {
          element.keys.push([JSON.parse(text.slice(i, end + 1)), { line, column: i - lineStart + 1 }]);
          keyNext = false;
        }
        i = end;
        break;
      }
      case "[":
      case "{":
        depth += 1;
        if (depth === 1) elementNext = c === "[";
        if (depth === 2) keyNext = inObject = c === "{";
        break;
      case "]":
      case "}":
        depth -= 1;
        if (depth === 1) done();
        break;
      case ",":
        if (depth === 1) {
          done();
          elementNext = true;
        }
        if (depth === 2) keyNext = inObject;
        break;
      case "\r":
      case "\n":
        if (c === "\r" && text[i + 1] === "\n") i += 1;
        line += 1;
        lineStart = i + 1;
        break;
    }
  }
  done();
  return found;
}

/**
 * A recipient's keys (with what each gives: a key, a position) looked up by the key itself and by
 * the field its spelling means (`zip` for zipCode), so that a problem about zipCode points at the
 * `zip` the recipient wrote.
 */
export function writtenKeys<T>(entries: readonly [string, T][]): Map<string, T> {
  const byName = new Map<string, T>();
  for (const [key, value] of entries) if (!byName.has(key)) byName.set(key, value);
  for (const [key, value] of entries) {
    const field = canonicalFieldName(key);
    if (field !== undefined && !byName.has(field)) byName.set(field, value);
  }
  return byName;
}
