/**
 * A campaign file's YAML: parsed into documents, each with its value and what is needed to point
 * at its nodes (file, line, column). The work stays linear in the size of the file, whatever it
 * holds: nesting is bounded before anything recursive sees a document, aliases are resolved
 * without a scan and counted (an alias bomb stops), and duplicate keys are found by lookup.
 */
import {
  type Alias,
  Composer,
  type CST,
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type Pair,
  Parser,
  type YAMLMap,
} from "yaml";
import { shown } from "../text";
import type { CampaignProblem, Path, Position } from "./problem";

/** How deep sections and lists may nest in a campaign document (docs/campaign-format.md). */
export const MAX_NESTING = 64;

/**
 * How many values the aliases (`*name`) of one document may repeat in all, or as many as the
 * document writes if that is more: an alias bomb stops here, and what is checked stays within
 * twice what is written.
 */
export const MAX_ALIAS_VALUES = 10_000;

/** One parsed document with what is needed to point at its nodes. */
export interface ParsedDocument {
  file: string;
  index: number;
  doc: Document.Parsed;
  lines: LineCounter;
  value: unknown;
  /** The entries of each mapping by key, so that finding a key is a lookup, not a scan. */
  entries: Map<YAMLMap, Map<string, Pair>>;
  /** The node each alias stands for. */
  sources: Map<Alias, Node>;
}

/** A file's documents, without the ones with syntax problems (those go to `problems`). */
export function parseFile(file: string, text: string, problems: CampaignProblem[]): ParsedDocument[] {
  // A lone CR ends a line for editors, not for yaml: as a LF, with every offset unchanged.
  const source = text.replace(/\r(?!\n)/g, "\n");
  // Line starts from the text itself: the parser reports only the line ends it reads as such, not
  // those inside a token it could not read (a plain scalar over several lines, in an error).
  const lines = new LineCounter();
  lines.addNewLine(0);
  for (const end of source.matchAll(/\n/g)) lines.addNewLine(end.index + 1);
  const at = (offset: number): Position => {
    const { line, col } = lines.linePos(offset);
    return { line, column: col };
  };
  // Duplicate keys are found while converting, in linear time (yaml's own check scans the mapping
  // for each key).
  const deepFlow = flowNestingBeyond(source, FLOW_NESTING_SCAN_LIMIT);
  if (deepFlow !== undefined) {
    // The parser's tree of lists nested this deep outgrows memory (a 10 MB file of `[` takes
    // gigabytes): only the text before that point is parsed, enough to find where it first nests
    // too deep, and the file gets that one problem.
    const head = [...new Parser().parse(source.slice(0, deepFlow))];
    const offset = head
      .flatMap((token) => (token.type === "document" ? [tooDeepAt(token)] : []))
      .find((o) => o !== undefined);
    problems.push({ file, ...at(offset ?? deepFlow), message: tooDeepMessage() });
    return [];
  }
  const composer = new Composer({ uniqueKeys: false });
  const docs: Document.Parsed[] = [];
  /** Per document, where it nests too deep, if it does. */
  const tooDeep: (number | undefined)[] = [];
  for (const token of new Parser().parse(source)) {
    if (token.type === "document") {
      const offset = tooDeepAt(token);
      tooDeep.push(offset);
      // Composing recurses into every level: a document nested too deep is composed empty.
      if (offset !== undefined) delete token.value;
    }
    docs.push(...composer.next(token));
  }
  docs.push(...composer.end());
  if (docs.length === 0) {
    for (const issue of composer.streamInfo().errors) {
      problems.push({ file, ...at(issue.pos[0]), message: syntaxMessage(issue.code, issue.message) });
    }
  }
  const parsed: ParsedDocument[] = [];
  for (const [index, doc] of docs.entries()) {
    const deep = tooDeep[index];
    if (deep !== undefined) {
      problems.push({ file, ...at(deep), message: tooDeepMessage() });
      continue;
    }
    for (const issue of [...doc.errors, ...doc.warnings]) {
      problems.push({ file, ...at(issue.pos[0]), message: syntaxMessage(issue.code, issue.message) });
    }
    // The values of a document with syntax errors (or an unknown tag) are guesses: checking them
    // would add noise.
    if (doc.errors.length > 0 || doc.warnings.length > 0) continue;
    // An empty document (a trailing `---`, say) declares nothing; it is skipped, as kubectl does.
    if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) continue;
    const converted = toValue(doc);
    for (const { offset, message } of converted.problems) problems.push({ file, ...at(offset), message });
    if (converted.problems.length > 0) continue;
    parsed.push({ file, index, doc, lines, ...converted });
  }
  if (parsed.length === 0 && problems.length === 0) {
    problems.push({
      file,
      line: 1,
      column: 1,
      message:
        "the file is empty; a campaign file holds one or more campaigns (apiVersion, kind, metadata, spec)",
    });
  }
  return parsed;
}

function syntaxMessage(code: string, message: string): string {
  // The parser appends " at line L, column C:" and a source excerpt; the position is printed anyway.
  const text = message.replace(/ at line \d+, column \d+:?[\s\S]*$/, "");
  if (code === "DUPLICATE_KEY") return DUPLICATE_KEY;
  if (code === "BLOCK_AS_IMPLICIT_KEY") return `YAML: ${text} (put a value that contains ": " in quotes)`;
  // The composer reports a JavaScript error (a stack overflow) as this; tooDeepAt keeps it from
  // happening, and its text would mean nothing to a marketer.
  if (code === "RESOURCE_EXHAUSTION") return tooDeepMessage();
  // An error token quotes the source it could not read, which may be a whole line of anything.
  return `YAML: ${shown(text, 200)}`;
}

const DUPLICATE_KEY = "YAML: this key appears twice in the same section; keep one";

function tooDeepMessage(): string {
  return (
    `YAML: sections and lists are nested more than ${MAX_NESTING} levels deep here; ` +
    "a campaign needs a few levels (see docs/campaign-format.md)"
  );
}

/** Far more flow nesting than MAX_NESTING allows: the text is not handed whole to the parser. */
const FLOW_NESTING_SCAN_LIMIT = 1_000;

/**
 * The offset where flow lists and maps (`[`, `{`) are open more than `limit` deep, read from the
 * text in one pass. Quoted scalars and comments are skipped; a quote counts only where a scalar
 * can start (after a space, a line start or a flow indicator), as in YAML, so `don't` opens none.
 */
export function flowNestingBeyond(text: string, limit: number): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const before = i === 0 ? 10 : text.charCodeAt(i - 1);
    const tokenStart =
      before === 10 ||
      before === 32 ||
      before === 9 ||
      before === 91 ||
      before === 123 ||
      before === 44 ||
      before === 58;
    if (c === 91 || c === 123) {
      if (++depth > limit) return i;
    } else if ((c === 93 || c === 125) && depth > 0) depth--;
    else if (c === 35 && tokenStart) {
      // A comment, to the end of its line.
      const end = text.indexOf("\n", i);
      i = end < 0 ? text.length : end;
    } else if (c === 39 && tokenStart) {
      // 'single quoted', where '' is a quote.
      let j = i + 1;
      while (j < text.length && !(text.charCodeAt(j) === 39 && text.charCodeAt(j + 1) !== 39))
        j += text.charCodeAt(j) === 39 ? 2 : 1;
      i = j;
    } else if (c === 34 && tokenStart) {
      // "double quoted", with backslash escapes.
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== 34) j += text.charCodeAt(j) === 92 ? 2 : 1;
      i = j;
    }
  }
  return undefined;
}

/**
 * Where a document nests sections and lists more than MAX_NESTING deep: the offset of the first
 * one too deep, in text order. Read from the parser's tokens with a stack, not recursion, before
 * anything recursive (composing, converting, the schema) sees the document.
 */
function tooDeepAt(document: CST.Document): number | undefined {
  const stack: [CST.Token | null | undefined, number][] = [[document.value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [token, depth] = next;
    if (!token || !("items" in token)) continue;
    if (depth >= MAX_NESTING) return token.offset;
    // Reversed, so that the first item is the next one taken: the first too deep in text order.
    for (const item of [...token.items].reverse()) stack.push([item.value, depth + 1], [item.key, depth + 1]);
  }
  return undefined;
}

interface Converted {
  value: unknown;
  entries: Map<YAMLMap, Map<string, Pair>>;
  sources: Map<Alias, Node>;
  problems: { offset: number; message: string }[];
}

/**
 * A document's value, in one pass over its nodes: yaml's toJS resolves each alias by a scan of the
 * document (quadratic with many aliases) and turns a JavaScript error into an alias problem.
 * Mappings become objects without a prototype, so that every key (`constructor`, `__proto__`) is
 * data. The problems: a key twice in a mapping, a key that is a section or list, an alias without
 * its anchor or inside it, aliases repeating more than MAX_ALIAS_VALUES values in all (an alias
 * bomb), and nesting deeper than MAX_NESTING through aliases or `[key: value]` entries.
 */
function toValue(doc: Document.Parsed): Converted {
  const entries = new Map<YAMLMap, Map<string, Pair>>();
  const sources = new Map<Alias, Node>();
  const problems: Converted["problems"] = [];
  const problem = (node: unknown, message: string) =>
    problems.push({ offset: (node as Node | null)?.range?.[0] ?? doc.range[0], message });
  /** Anchor name → the last node that set it so far, in document order (as YAML resolves aliases). */
  const anchors = new Map<string, Node>();
  /** Anchored nodes: their value, once converted, with its nesting height and count of values. */
  const anchored = new Map<Node, { value: unknown; height: number; size: number } | "converting">();
  /** Values written, and each alias with the values repeated up to it, for the alias bomb check. */
  let written = 0;
  const repeated: { node: Alias; values: number }[] = [];

  type Result = { value: unknown; height: number; size: number };
  // Recursion is bounded: tooDeepAt and the depth check below keep it within MAX_NESTING levels.
  const convert = (node: unknown, depth: number): Result => {
    if (isAlias(node)) return alias(node, depth);
    const anchor = (node as Node | null)?.anchor;
    if (anchor) {
      anchors.set(anchor, node as Node);
      anchored.set(node as Node, "converting");
    }
    const result = convertNode(node, depth);
    if (anchor) anchored.set(node as Node, result);
    return result;
  };
  const convertNode = (node: unknown, depth: number): Result => {
    written += 1;
    if (isScalar(node)) return { value: node.toJSON(), height: 0, size: 1 };
    if (!isMap(node) && !isSeq(node)) return { value: null, height: 0, size: 1 };
    if (depth >= MAX_NESTING) {
      problem(node, tooDeepMessage());
      return { value: null, height: 0, size: 1 };
    }
    let height = 0;
    let size = 1;
    const add = (result: Result) => {
      height = Math.max(height, result.height);
      size += result.size;
      return result.value;
    };
    if (isSeq(node)) {
      const value = node.items.map((item) => add(convert(item, depth + 1)));
      return { value, height: height + 1, size };
    }
    const byKey = new Map<string, Pair>();
    entries.set(node, byKey);
    const value: Record<string, unknown> = Object.create(null);
    for (const pair of node.items) {
      const written = convert(pair.key, depth + 1).value;
      // As yaml's toJS does: a number or true is the key's text; an empty key is "".
      const key = typeof written === "object" && written !== null ? undefined : String(written ?? "");
      if (key === undefined) {
        problem(pair.key, "YAML: a key must be a word or text, not a section or list");
      } else if (byKey.has(key)) {
        problem(pair.key, DUPLICATE_KEY);
      } else {
        byKey.set(key, pair);
        value[key] = add(convert(pair.value, depth + 1));
      }
    }
    return { value, height: height + 1, size };
  };
  const alias = (node: Alias, depth: number): Result => {
    const source = anchors.get(node.source);
    const found = source && anchored.get(source);
    if (!source || !found) {
      problem(
        node,
        `YAML: Unresolved alias (the anchor must be set before the alias): ${shown(node.source)}`,
      );
    } else if (found === "converting") {
      problem(
        node,
        `YAML: the alias *${shown(node.source)} is inside the value it names, which would repeat forever`,
      );
    } else if (depth + found.height > MAX_NESTING) {
      problem(node, tooDeepMessage());
    } else {
      sources.set(node, source);
      repeated.push({ node, values: (repeated.at(-1)?.values ?? 0) + found.size });
      return found;
    }
    return { value: null, height: 0, size: 1 };
  };
  const { value } = convert(doc.contents, 0);
  const limit = Math.max(MAX_ALIAS_VALUES, written);
  const bomb = repeated.find((r) => r.values > limit);
  if (bomb) {
    problem(
      bomb.node,
      `YAML: the aliases (*name) of this document repeat more than ${limit} values in all; write the values out`,
    );
  }
  return { value, entries, sources, problems };
}

/**
 * The node at `path` in a document, or the deepest one on the way when the path ends early (a
 * missing key: its parent). `key` is the key node of the last map entry on the way.
 */
export function nodeAt(parsed: ParsedDocument, path: Path): { node: Node | null; key?: Node } {
  let node: unknown = parsed.doc.contents;
  let key: Node | undefined;
  for (const segment of path) {
    if (isAlias(node)) node = parsed.sources.get(node) ?? node;
    if (isMap(node)) {
      const pair = parsed.entries.get(node)?.get(String(segment));
      if (!pair) return { node, ...(key ? { key } : {}) };
      key = pair.key as Node;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === "number" && node.items[segment] !== undefined) {
      node = node.items[segment];
      key = undefined;
    } else {
      return { node: node as Node | null, ...(key ? { key } : {}) };
    }
  }
  return { node: node as Node | null, ...(key ? { key } : {}) };
}

export function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return key === null || key === undefined ? undefined : String(key);
}

/** The position of a node; an empty value (`key:` and nothing) points at its key. */
export function nodePosition(parsed: ParsedDocument, node: Node | null, key?: Node): Position {
  const emptyValue = node === null || (isScalar(node) && node.value === null && !node.source);
  const target = emptyValue ? key : node;
  const offset = target?.range?.[0] ?? parsed.doc.contents?.range?.[0] ?? parsed.doc.range[0];
  const { line, col } = parsed.lines.linePos(offset);
  return { line, column: col };
}

export function positionOf(parsed: ParsedDocument, path: Path): Position {
  const { node, key } = nodeAt(parsed, path);
  return nodePosition(parsed, node, key);
}

export function valueAt(value: unknown, at: Path): unknown {
  let current = value;
  for (const segment of at) {
    if (Array.isArray(current) && typeof segment === "number") current = current[segment];
    else if (isPlainObject(current) && Object.hasOwn(current, String(segment)))
      current = current[String(segment)];
    else return undefined;
  }
  return current;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
