/**
 * Loads campaign files (YAML, one or several `---`-separated documents each) and checks them:
 * YAML syntax, the campaign schema, recipient files and their rows, unique campaign names.
 *
 * Nothing here throws for bad input: every problem is collected with its file, line and column,
 * so a marketer sees all of them at once, and the caller (the Pulumi program, `directmail
 * validate`) refuses to change anything while there is any.
 */
import * as fs from "node:fs/promises";
import * as path from "node:path";
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
import { z } from "zod";
import { canonicalFieldName } from "../resources/recipients/declared";
import { formatOf, loadRecipients, type RecipientSourceOptions } from "../resources/recipients/source";
import { LineTracker, notTextAt, shown } from "../text";
import { CampaignDocument, CampaignRecipients } from "./schema";

export interface LoadedCampaign {
  /** Absolute path of the campaign file. */
  file: string;
  /** 0-based position of the document in its file (documents are separated by `---`). */
  documentIndex: number;
  document: CampaignDocument;
  /** Absolute path of the recipients file, resolved relative to the campaign file; unset for inline recipients. */
  recipientsFile?: string;
}

export interface CampaignProblem {
  /** The file the problem is in: a campaign file, a recipients file or a campaign folder. */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  message: string;
}

export interface LoadResult {
  /** The documents that passed every check, in file order then document order. */
  campaigns: LoadedCampaign[];
  problems: CampaignProblem[];
  /** The campaign files with a problem, in themselves or in a recipients file they name. */
  invalidFiles: string[];
}

export interface LoadOptions {
  /** The folder that paths inside messages are relative to; default the working directory. */
  relativeTo?: string;
}

/** Problems reported per recipient source; the rest are counted in one more problem. */
export const MAX_RECIPIENT_PROBLEMS = 100;

/** Problems formatProblems prints per file; the rest are counted in one more line. */
export const MAX_PRINTED_PROBLEMS = 100;

/** How deep sections and lists may nest in a campaign document (docs/campaign-format.md). */
export const MAX_NESTING = 64;

/**
 * How many values the aliases (`*name`) of one document may repeat in all, or as many as the
 * document writes if that is more: an alias bomb stops here, and what is checked stays within
 * twice what is written.
 */
export const MAX_ALIAS_VALUES = 10_000;

const CAMPAIGN_FILE = /\.ya?ml$/i;

type Path = readonly PropertyKey[];
type Position = { line: number; column: number };

/** One parsed document with what is needed to point at its nodes. */
interface ParsedDocument {
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

/** What checking one recipients file found, kept for the other documents that name it. */
interface RecipientsCheck {
  /** Problems in the recipients file. */
  late: CampaignProblem[];
  /** Problems reported at each naming document's `file` value, given the file as it was written there. */
  atFileValue: ((declared: string) => string)[];
}

/** Every `*.yaml`/`*.yml` file under `dir`, recursively, sorted by path. Hidden folders (`.git`, `.github`) are skipped. */
export async function listCampaignFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (folder: string) => {
    for (const entry of await fs.readdir(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      // A campaign repository's CI workflows (.github/workflows/*.yml) are YAML too, but not campaigns.
      if (entry.isDirectory() && !entry.name.startsWith(".")) await walk(full);
      else if ((entry.isFile() || entry.isSymbolicLink()) && CAMPAIGN_FILE.test(entry.name)) found.push(full);
    }
  };
  await walk(path.resolve(dir));
  return found.sort(compareStrings);
}

/** Loads every campaign file under `dir` (see listCampaignFiles); a missing folder is a problem. */
export async function loadCampaignsDir(dir: string, options: LoadOptions = {}): Promise<LoadResult> {
  const absolute = path.resolve(dir);
  let files: string[];
  try {
    const stat = await fs.stat(absolute);
    if (!stat.isDirectory()) {
      return problemOnly(absolute, "is not a folder; give the folder that holds the campaign files");
    }
    files = await listCampaignFiles(absolute);
  } catch (error) {
    return problemOnly(absolute, folderError(error));
  }
  return loadCampaignFiles(files, options);
}

/** Loads and checks the given campaign files (paths relative to the cwd or absolute). */
export async function loadCampaignFiles(paths: string[], options: LoadOptions = {}): Promise<LoadResult> {
  const campaigns: LoadedCampaign[] = [];
  const problems: CampaignProblem[] = [];
  const invalidFiles: string[] = [];
  /** metadata.name → where it was first declared. */
  const names = new Map<string, { file: string; position: Position }>();
  /** A recipients file named by several documents is read once (per key column and identity field). */
  const recipientChecks = new Map<string, Promise<RecipientsCheck>>();

  for (const file of [...new Set(paths.map((p) => path.resolve(p)))]) {
    let text: string;
    try {
      // Decoding drops a byte-order mark; a byte that is not UTF-8 becomes U+FFFD, found just below.
      text = new TextDecoder().decode(await fs.readFile(file));
    } catch (error) {
      problems.push({ file, line: 1, column: 1, message: fileError(error, "campaign file") });
      invalidFiles.push(file);
      continue;
    }
    const binary = notTextAt(text);
    if (binary) {
      problems.push({ file, ...new LineTracker().positionOf(text, binary.index), message: binary.message });
      invalidFiles.push(file);
      continue;
    }
    const fileProblems: CampaignProblem[] = [];
    const lateProblems: CampaignProblem[] = [];
    const documents = parseFile(file, text, fileProblems);
    for (const parsed of documents) {
      const before = fileProblems.length + lateProblems.length;
      checkDocument(parsed, fileProblems);
      const name = nameOf(parsed.value);
      if (name !== undefined) {
        const position = positionOf(parsed, ["metadata", "name"]);
        const first = names.get(name);
        if (first) {
          fileProblems.push({
            file,
            ...position,
            message:
              `metadata.name: the campaign name "${name}" is already used in ` +
              `${displayPath(first.file, options.relativeTo)}:${first.position.line}:${first.position.column}; ` +
              "each campaign needs its own name (it names the campaign's resources)",
          });
        } else {
          names.set(name, { file, position });
        }
      }
      const recipientsFile = await checkRecipients(
        parsed,
        fileProblems,
        lateProblems,
        recipientChecks,
        options.relativeTo,
      );
      if (fileProblems.length + lateProblems.length === before) {
        const document = CampaignDocument.parse(parsed.value);
        campaigns.push({
          file,
          documentIndex: parsed.index,
          document,
          ...(recipientsFile !== undefined ? { recipientsFile } : {}),
        });
      }
    }
    fileProblems.sort((a, b) => a.line - b.line || a.column - b.column);
    problems.push(...fileProblems, ...lateProblems);
    if (fileProblems.length + lateProblems.length > 0) invalidFiles.push(file);
  }
  return { campaigns, problems: dedupe(problems), invalidFiles };
}

/**
 * Problems as `path:line:column: message` lines, paths relative to `relativeTo` (default the
 * working directory) when that is shorter,
 * grouped by file: the first MAX_PRINTED_PROBLEMS of a file, then one line that counts the rest.
 * `line` writes each line another way (`directmail validate --format github`: annotations).
 */
export function formatProblems(
  problems: readonly CampaignProblem[],
  relativeTo?: string,
  line: (problem: CampaignProblem, shownPath: string) => string = (p, shownPath) =>
    `${shownPath}:${p.line}:${p.column}: ${p.message}`,
): string {
  const byFile = new Map<string, CampaignProblem[]>();
  for (const problem of problems) {
    const list = byFile.get(problem.file);
    if (list) list.push(problem);
    else byFile.set(problem.file, [problem]);
  }
  const lines: string[] = [];
  const print = (p: CampaignProblem, message: string) =>
    lines.push(line({ ...p, message }, displayPath(p.file, relativeTo)));
  for (const list of byFile.values()) {
    for (const problem of list.slice(0, MAX_PRINTED_PROBLEMS)) print(problem, problem.message);
    const next = list[MAX_PRINTED_PROBLEMS];
    if (next) {
      const more = list.length - MAX_PRINTED_PROBLEMS;
      print(
        next,
        `${more} more problem${more === 1 ? "" : "s"} in this file from here on, not listed ` +
          `(${MAX_PRINTED_PROBLEMS} are listed per file); fix the ones above and check again`,
      );
    }
  }
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------
// YAML

function parseFile(file: string, text: string, problems: CampaignProblem[]): ParsedDocument[] {
  const lines = new LineCounter();
  const at = (offset: number): Position => {
    const { line, col } = lines.linePos(offset);
    return { line, column: col };
  };
  // Duplicate keys are found while converting, in linear time (yaml's own check scans the mapping
  // for each key).
  const composer = new Composer({ uniqueKeys: false });
  const docs: Document.Parsed[] = [];
  /** Per document, where it nests too deep, if it does. */
  const tooDeep: (number | undefined)[] = [];
  // A lone CR ends a line for editors, not for yaml: as a LF, with every offset unchanged.
  for (const token of new Parser(lines.addNewLine).parse(text.replace(/\r(?!\n)/g, "\n"))) {
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
function nodeAt(parsed: ParsedDocument, path: Path): { node: Node | null; key?: Node } {
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

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return key === null || key === undefined ? undefined : String(key);
}

/** The position of a node; an empty value (`key:` and nothing) points at its key. */
function nodePosition(parsed: ParsedDocument, node: Node | null, key?: Node): Position {
  const emptyValue = node === null || (isScalar(node) && node.value === null && !node.source);
  const target = emptyValue ? key : node;
  const offset = target?.range?.[0] ?? parsed.doc.contents?.range?.[0] ?? parsed.doc.range[0];
  const { line, col } = parsed.lines.linePos(offset);
  return { line, column: col };
}

function positionOf(parsed: ParsedDocument, path: Path): Position {
  const { node, key } = nodeAt(parsed, path);
  return nodePosition(parsed, node, key);
}

// ---------------------------------------------------------------------------------------------
// Schema

function checkDocument(parsed: ParsedDocument, problems: CampaignProblem[]): void {
  // Some other YAML (a Pulumi.yaml, a CI workflow): one problem says so, not one per key.
  if (isPlainObject(parsed.value) && !("apiVersion" in parsed.value) && !("kind" in parsed.value)) {
    problems.push({
      file: parsed.file,
      ...positionOf(parsed, []),
      message:
        "not a campaign: a campaign document starts with apiVersion: directmail/v1 and kind: Campaign " +
        "(a campaigns folder holds campaign files only)",
    });
    return;
  }
  const result = CampaignDocument.safeParse(parsed.value);
  if (result.success) return;
  for (const issue of result.error.issues) {
    if (issue.code === "unrecognized_keys") {
      const { node } = nodeAt(parsed, issue.path);
      const keys = isMap(node) ? parsed.entries.get(node) : undefined;
      for (const name of issue.keys) {
        const pair = keys?.get(name);
        problems.push({
          file: parsed.file,
          ...nodePosition(parsed, (pair?.key as Node | undefined) ?? node),
          message: unknownKeyMessage(issue.path, name),
        });
      }
      continue;
    }
    const parent = valueAt(parsed.value, issue.path.slice(0, -1));
    const last = issue.path[issue.path.length - 1];
    const missing = issue.path.length > 0 && isPlainObject(parent) && !Object.hasOwn(parent, String(last));
    if (missing) {
      const { node } = nodeAt(parsed, issue.path.slice(0, -1));
      problems.push({
        file: parsed.file,
        ...nodePosition(parsed, node),
        message: `${label(issue.path.slice(0, -1))}: ${String(last)} is required (${allowedText(issue.path)})`,
      });
      continue;
    }
    const { node, key } = nodeAt(parsed, issue.path);
    problems.push({
      file: parsed.file,
      ...nodePosition(parsed, node, key),
      message: `${label(issue.path)}: ${issueText(issue, valueAt(parsed.value, issue.path), node)}`,
    });
  }
}

function nameOf(value: unknown): string | undefined {
  const name = valueAt(value, ["metadata", "name"]);
  return typeof name === "string" ? name : undefined;
}

function unknownKeyMessage(at: Path, name: string): string {
  const allowed = keysAt(at);
  const near = allowed.find((k) => k.toLowerCase() === name.toLowerCase() || isNear(k, name));
  const where = at.length > 0 ? `${label(at)}: ` : "";
  return (
    `${where}unknown key "${shown(name)}"` +
    (near ? ` (did you mean "${near}"?)` : "") +
    (allowed.length > 0 ? `; allowed keys: ${allowed.join(", ")}` : "")
  );
}

/** What the schema allows at `at`, in words, for a missing key. */
function allowedText(at: Path): string {
  const schema = schemaAt(at);
  if (!schema) return "see docs/campaign-format.md";
  if (schema instanceof z.ZodLiteral)
    return `write ${String(at[at.length - 1])}: ${[...schema.values].join(", ")}`;
  if (schema instanceof z.ZodEnum) return `one of ${schema.options.join(", ")}`;
  if (schema instanceof z.ZodObject) return `a section with ${Object.keys(schema.shape).join(", ")}`;
  // Descriptions are sentences; inside the parentheses they read as a clause.
  const description = schema.description?.replace(/\.$/, "");
  return description ? description.charAt(0).toLowerCase() + description.slice(1) : describeType(schema);
}

function isIntSchema(schema: z.ZodType | undefined): boolean {
  return schema instanceof z.ZodNumber && Boolean(schema.format?.includes("int"));
}

function describeType(schema: z.ZodType): string {
  if (schema instanceof z.ZodString) return "text";
  if (schema instanceof z.ZodNumber) return isIntSchema(schema) ? "a whole number" : "a number";
  if (schema instanceof z.ZodBoolean) return "true or false";
  if (schema instanceof z.ZodArray) return "a list";
  return "see docs/campaign-format.md";
}

const EXPECTED: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "a section of key: value lines",
  record: "a section of key: value lines",
  array: 'a list (lines starting with "- ")',
};

function issueText(issue: z.core.$ZodIssue, value: unknown, node: Node | null): string {
  const found = describeValue(value);
  switch (issue.code) {
    case "invalid_type": {
      // z.int() checks the type first: "ten" fails as "expected number" where a whole number is meant.
      const expected =
        issue.expected === "number" && isIntSchema(schemaAt(issue.path)) ? "int" : issue.expected;
      const text = `must be ${EXPECTED[expected] ?? expected}; found ${found}`;
      // YAML reads 02134 as the number 2134: a ZIP code or an id written bare loses its zeros.
      if (issue.expected === "string" && isScalar(node) && typeof value === "number") {
        return `${text}; write it in quotes: "${node.source ?? String(value)}"`;
      }
      return text;
    }
    case "invalid_value":
      return issue.values.length === 1
        ? `must be ${String(issue.values[0])}; found ${found}`
        : `must be one of ${issue.values.map(String).join(", ")}; found ${found}`;
    case "too_small":
      if (issue.origin === "string" && Number(issue.minimum) === 1) return "must not be empty";
      if (issue.origin === "string") return `must be at least ${issue.minimum} characters long`;
      if (issue.origin === "array") return `must have at least ${issue.minimum} items`;
      return `must be ${issue.inclusive ? "at least" : "greater than"} ${issue.minimum}; found ${found}`;
    case "too_big":
      if (issue.origin === "string") return `must be at most ${issue.maximum} characters long`;
      if (issue.origin === "array") return `must have at most ${issue.maximum} items`;
      return `must be ${issue.inclusive ? "at most" : "less than"} ${issue.maximum}; found ${found}`;
    case "invalid_format":
      if (issue.format === "url")
        return `must be a web address such as https://example.com/offer; found ${found}`;
      if (issue.format === "datetime") {
        return `must be a date and time with a time zone, such as 2026-05-01T09:00:00Z; found ${found}`;
      }
      return `${issue.message}; found ${found}`;
    case "invalid_union":
      return `must be text or a number; found ${found}`;
    default:
      return issue.message;
  }
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return "nothing (an empty value)";
  if (typeof value === "string") return `"${shown(value, 40)}"`;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return "a list";
  if (isPlainObject(value)) return "a section of key: value lines";
  return typeof value;
}

/** The zod schema at a document path (optional wrappers removed), for allowed keys and descriptions. */
function schemaAt(at: Path): z.ZodType | undefined {
  let schema: z.ZodType | undefined = CampaignDocument;
  for (const segment of at) {
    schema = unwrap(schema);
    if (schema instanceof z.ZodObject) {
      const shape = schema.shape as Record<string, z.ZodType>;
      schema = Object.hasOwn(shape, String(segment)) ? shape[String(segment)] : undefined;
    } else if (schema instanceof z.ZodArray) schema = schema.element as z.ZodType;
    else if (schema instanceof z.ZodRecord) schema = schema.valueType as z.ZodType;
    else return undefined;
  }
  return unwrap(schema);
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  while (current instanceof z.ZodOptional) current = current.unwrap() as z.ZodType;
  return current;
}

function keysAt(at: Path): string[] {
  const schema = schemaAt(at);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/** A path as a marketer reads it: spec.addressBook[0].zip; the document itself when empty. */
function label(at: Path): string {
  if (at.length === 0) return "the campaign";
  return at
    .map((s, i) => (typeof s === "number" ? `[${s}]` : i === 0 ? shown(String(s)) : `.${shown(String(s))}`))
    .join("");
}

// ---------------------------------------------------------------------------------------------
// Recipients

/**
 * Checks the recipients of one document (when its recipients section itself is valid) and
 * returns the absolute recipients file, if any. Problems inside the campaign file go to
 * `problems`; problems in the recipients file, to `late` (printed after the campaign file's).
 * `checks` keeps what each recipients file gave, so that a file named by many documents is read once.
 */
async function checkRecipients(
  parsed: ParsedDocument,
  problems: CampaignProblem[],
  late: CampaignProblem[],
  checks: Map<string, Promise<RecipientsCheck>>,
  relativeTo: string | undefined,
): Promise<string | undefined> {
  const section = CampaignRecipients.safeParse(valueAt(parsed.value, ["spec", "recipients"]));
  if (!section.success) return undefined;
  const options = {
    identityField: section.data.identityField ?? "custom6",
    maxProblems: MAX_RECIPIENT_PROBLEMS,
    ...(section.data.keyColumn !== undefined ? { keyColumn: section.data.keyColumn } : {}),
  };
  const at = (p: Path) => ({ file: parsed.file, ...positionOf(parsed, ["spec", "recipients", ...p]) });

  if (section.data.inline !== undefined) {
    numbersLosingDigits(parsed, problems);
    // The recipients as written, not zod's copies of them: those lose a key such as `__proto__`.
    const inline = valueAt(parsed.value, ["spec", "recipients", "inline"]) as Record<string, unknown>[];
    const loaded = await loadRecipients({ inline }, options);
    const written = new Map<number, Map<string, string>>();
    for (const problem of loaded.problems) {
      const item: Path = ["inline", problem.row - 1];
      let keys = written.get(problem.row);
      if (!keys) {
        keys = writtenKeys(Object.keys(inline[problem.row - 1] ?? {}).map((k) => [k, k]));
        written.set(problem.row, keys);
      }
      const field = problem.field && keys.get(problem.field);
      // At the field's key: the field is the subject (its value may be missing or fine on its own).
      const { node, key } = nodeAt(parsed, ["spec", "recipients", ...item, ...(field ? [field] : [])]);
      problems.push({
        file: parsed.file,
        ...nodePosition(parsed, field && key ? key : node),
        message: `${label(["spec", "recipients", ...item, ...(problem.field ? [field || problem.field] : [])])}: ${problem.message}`,
      });
    }
    if (loaded.problemCount > loaded.problems.length) {
      problems.push({
        ...at(["inline"]),
        message: `spec.recipients.inline: ${loaded.problemCount - loaded.problems.length} more problems besides the ${loaded.problems.length} listed`,
      });
    }
    return undefined;
  }

  const declared = section.data.file as string;
  const file = path.resolve(path.dirname(parsed.file), declared);
  const fileProblem = (message: string) =>
    problems.push({ ...at(["file"]), message: `spec.recipients.file: ${message}` });
  try {
    formatOf(file);
  } catch {
    fileProblem(
      `"${shown(declared)}" is not a recipients file type; use a .csv, .json, .jsonl or .ndjson file`,
    );
    return undefined;
  }
  const key = JSON.stringify([file, options.identityField, options.keyColumn]);
  let check = checks.get(key);
  if (!check) {
    check = checkRecipientsFile(file, options, relativeTo);
    checks.set(key, check);
  }
  const { late: found, atFileValue } = await check;
  // Found once, pushed for each document that names the file: they are deduplicated in the end.
  late.push(...found);
  for (const message of atFileValue) fileProblem(message(`"${shown(declared)}"`));
  return file;
}

/** Reads and checks one recipients file; see checkRecipients. */
async function checkRecipientsFile(
  file: string,
  options: RecipientSourceOptions,
  relativeTo: string | undefined,
): Promise<RecipientsCheck> {
  const late: CampaignProblem[] = [];
  const atFileValue: RecipientsCheck["atFileValue"] = [];
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile())
      return { late, atFileValue: [(declared) => `${declared} is a folder, not a recipients file`] };
    await fs.access(file, fs.constants.R_OK);
  } catch (error) {
    const where = `looked for ${shown(displayPath(file, relativeTo), 200)}; the path is relative to the campaign file`;
    return {
      late,
      atFileValue: [(declared) => `${fileError(error, `recipients file ${declared}`)} (${where})`],
    };
  }
  try {
    const loaded = await loadRecipients({ file }, options);
    // A row of a CSV or JSON Lines file is its line; in a JSON array it is the element's index.
    const json =
      formatOf(file) === "json" && loaded.problems.length > 0
        ? jsonPositions(
            (await fs.readFile(file, "utf8")).replace(/^\uFEFF/, ""),
            new Set(loaded.problems.map((p) => p.row)),
          )
        : undefined;
    for (const problem of loaded.problems) {
      const element = json?.get(problem.row);
      const position =
        (problem.field !== undefined ? element?.keys.get(problem.field) : undefined) ?? element?.start;
      late.push({
        file,
        ...(position ?? { line: problem.row, column: 1 }),
        message: `${problem.field ? `${shown(problem.field)}: ` : ""}${problem.message}`,
      });
    }
    if (loaded.problemCount > loaded.problems.length) {
      const more = loaded.problemCount - loaded.problems.length;
      atFileValue.push(
        (declared) => `${declared} has ${more} more problems besides the ${loaded.problems.length} listed`,
      );
    }
  } catch (error) {
    // The file's own format is broken (a CSV row with an extra column, JSON that does not parse,
    // binary data). `lines` is csv-parse's name for the line; `character`, the column of binary data.
    const { lines: reported, character } = error as { lines?: unknown; character?: unknown };
    const message = recipientFileError(error);
    if (typeof reported === "number" && reported > 0) {
      const text = await fs.readFile(file, "utf8").catch(() => "");
      // csv-parse reports an unclosed quote at the end of the file (even a line past it); the
      // quote that opened it is where the fix goes.
      const opened =
        (error as { code?: unknown }).code === "CSV_QUOTE_NOT_CLOSED" ? unclosedQuoteLine(text) : undefined;
      const line = Math.min(opened ?? reported, lineCount(text));
      late.push({ file, line, column: typeof character === "number" ? character : 1, message });
    } else {
      atFileValue.push((declared) => `${declared} cannot be read: ${message}`);
    }
  }
  return { late, atFileValue };
}

/**
 * YAML reads a bare 02134 as the number 2134, and 1e3 as 1000: an inline ZIP code or id written
 * without quotes would be sent changed. Reported where the number's text and its value differ.
 */
function numbersLosingDigits(parsed: ParsedDocument, problems: CampaignProblem[]): void {
  const { node } = nodeAt(parsed, ["spec", "recipients", "inline"]);
  if (!isSeq(node)) return;
  for (const [index, item] of node.items.entries()) {
    if (!isMap(item)) continue;
    for (const pair of item.items) {
      const value = pair.value;
      if (!isScalar(value) || typeof value.value !== "number" || value.source === undefined) continue;
      if (value.source === String(value.value)) continue;
      problems.push({
        file: parsed.file,
        ...nodePosition(parsed, value),
        message:
          `${label(["spec", "recipients", "inline", index, keyText(pair.key) ?? ""])}: ${value.source} is read ` +
          `as the number ${value.value}; write it in quotes: "${value.source}"`,
      });
    }
  }
}

/** The line of the quote that opens a CSV value never closed, as csv-parse reads quotes. */
function unclosedQuoteLine(text: string): number | undefined {
  let line = 1;
  let quoted = false;
  let openedAt = 1;
  let fieldStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const newline = c === "\n" || (c === "\r" && text[i + 1] !== "\n");
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') i++;
      else if (c === '"') quoted = false;
      else if (newline) line++;
    } else if (c === '"' && fieldStart) {
      quoted = true;
      openedAt = line;
    } else if (newline) {
      line++;
      fieldStart = true;
    } else if (c === ",") {
      fieldStart = true;
    } else if (c !== " " && c !== "\t" && c !== "\r") {
      fieldStart = false; // trim: spaces may precede the opening quote
    }
  }
  return quoted ? openedAt : undefined;
}

function lineCount(text: string): number {
  return text.split(/\r\n|\r|\n/).length;
}

/**
 * Where the wanted elements (1-based rows) of a JSON array file start, and where their keys are
 * (by key, and by the field a key's spelling means): one pass over text that JSON.parse has
 * accepted, following strings and nesting. Not a second parser: that cost the time of a YAML
 * parse of the whole file.
 */
function jsonPositions(
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
function writtenKeys<T>(entries: readonly [string, T][]): Map<string, T> {
  const byName = new Map<string, T>();
  for (const [key, value] of entries) if (!byName.has(key)) byName.set(key, value);
  for (const [key, value] of entries) {
    const field = canonicalFieldName(key);
    if (field !== undefined && !byName.has(field)) byName.set(field, value);
  }
  return byName;
}

function recipientFileError(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown; record?: unknown };
  if (e.code === "CSV_RECORD_INCONSISTENT_FIELDS_LENGTH" || e.code === "CSV_RECORD_INCONSISTENT_COLUMNS") {
    const count = Array.isArray(e.record) ? e.record.length : undefined;
    return `this row has ${count ?? "a different number of"} values but the header has a different number of columns (a comma inside a value needs "quotes")`;
  }
  if (e.code === "CSV_QUOTE_NOT_CLOSED")
    return 'a quoted value starts here and is never closed (a " is missing)';
  const message = typeof e.message === "string" ? e.message : String(error);
  // The source's own messages start with the absolute path, which the problem already names.
  return message.replace(/^\S+: /, "");
}

// ---------------------------------------------------------------------------------------------
// Helpers

function problemOnly(file: string, message: string): LoadResult {
  return { campaigns: [], problems: [{ file, line: 1, column: 1, message }], invalidFiles: [] };
}

function folderError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === "ENOENT") return "campaign folder not found";
  if (code === "ENOTDIR") return "is not a folder; give the folder that holds the campaign files";
  if (code === "EACCES") return "campaign folder cannot be read (permission denied)";
  return `campaign folder cannot be read: ${(error as Error).message}`;
}

function fileError(error: unknown, what: string): string {
  const code = (error as { code?: unknown }).code;
  if (code === "ENOENT") return `${what} not found`;
  if (code === "EISDIR") return `${what} is a folder, not a file`;
  if (code === "EACCES") return `${what} cannot be read (permission denied)`;
  return `${what} cannot be read: ${(error as Error).message}`;
}

function valueAt(value: unknown, at: Path): unknown {
  let current = value;
  for (const segment of at) {
    if (Array.isArray(current) && typeof segment === "number") current = current[segment];
    else if (isPlainObject(current) && Object.hasOwn(current, String(segment)))
      current = current[String(segment)];
    else return undefined;
  }
  return current;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Relative to `base` (default the working directory) when that is shorter. */
function displayPath(file: string, base: string = process.cwd()): string {
  const relative = path.relative(base, file);
  return relative !== "" && relative.length < file.length ? relative : file;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function dedupe(problems: CampaignProblem[]): CampaignProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.file}\0${p.line}\0${p.column}\0${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Within two edits: a likely typo. (The length difference alone rules out most names, at no cost.) */
function isNear(a: string, b: string): boolean {
  return Math.abs(a.length - b.length) <= 2 && editDistance(a, b) <= 2;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] as number;
      row[j] = Math.min(current + 1, (row[j - 1] as number) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] as number;
}
