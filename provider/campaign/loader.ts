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
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseAllDocuments,
  parseDocument,
  visit,
} from "yaml";
import { z } from "zod";
import { canonicalFieldName } from "../resources/recipients/declared";
import { formatOf, loadRecipients } from "../resources/recipients/source";
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

  for (const file of [...new Set(paths.map((p) => path.resolve(p)))]) {
    let text: string;
    try {
      text = await fs.readFile(file, "utf8");
    } catch (error) {
      problems.push({ file, line: 1, column: 1, message: fileError(error, "campaign file") });
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
      const recipientsFile = await checkRecipients(parsed, fileProblems, lateProblems, options.relativeTo);
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
 * working directory) when that is shorter.
 */
export function formatProblems(problems: readonly CampaignProblem[], relativeTo?: string): string {
  return problems
    .map((p) => `${displayPath(p.file, relativeTo)}:${p.line}:${p.column}: ${p.message}`)
    .join("\n");
}

// ---------------------------------------------------------------------------------------------
// YAML

function parseFile(file: string, text: string, problems: CampaignProblem[]): ParsedDocument[] {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines });
  const parsed: ParsedDocument[] = [];
  for (const [index, doc] of docs.entries()) {
    for (const issue of [...doc.errors, ...doc.warnings]) {
      const [start] = issue.linePos ?? [{ line: 1, col: 1 }];
      problems.push({
        file,
        line: start.line,
        column: start.col,
        message: syntaxMessage(issue.code, issue.message),
      });
    }
    // The values of a document with syntax errors (or an unknown tag) are guesses: checking them
    // would add noise.
    if (doc.errors.length > 0 || doc.warnings.length > 0) continue;
    // An empty document (a trailing `---`, say) declares nothing; it is skipped, as kubectl does.
    if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) continue;
    let value: unknown;
    try {
      // An alias bomb (aliases of aliases) becomes a problem here instead of exhausting memory.
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (error) {
      problems.push({ file, ...aliasPosition(doc, lines), message: `YAML: ${(error as Error).message}` });
      continue;
    }
    parsed.push({ file, index, doc, lines, value });
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
  if (code === "DUPLICATE_KEY") return "YAML: this key appears twice in the same section; keep one";
  if (code === "BLOCK_AS_IMPLICIT_KEY") return `YAML: ${text} (put a value that contains ": " in quotes)`;
  return `YAML: ${text}`;
}

/** Where toJS failed: the first alias without an anchor before it. */
function aliasPosition(doc: Document.Parsed, lines: LineCounter): Position {
  let offset = doc.range[0];
  visit(doc, {
    Alias(_, node) {
      if (node.resolve(doc) === undefined) {
        offset = node.range?.[0] ?? offset;
        return visit.BREAK;
      }
    },
  });
  const { line, col } = lines.linePos(offset);
  return { line, column: col };
}

/**
 * The node at `path` in a document, or the deepest one on the way when the path ends early (a
 * missing key: its parent). `key` is the key node of the last map entry on the way.
 */
function nodeAt(doc: Document.Parsed, path: Path): { node: Node | null; key?: Node } {
  let node: unknown = doc.contents;
  let key: Node | undefined;
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((p) => keyText(p.key) === String(segment));
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
  const { node, key } = nodeAt(parsed.doc, path);
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
      const { node } = nodeAt(parsed.doc, issue.path);
      for (const name of issue.keys) {
        const pair = isMap(node) ? node.items.find((p) => keyText(p.key) === name) : undefined;
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
      const { node } = nodeAt(parsed.doc, issue.path.slice(0, -1));
      problems.push({
        file: parsed.file,
        ...nodePosition(parsed, node),
        message: `${label(issue.path.slice(0, -1))}: ${String(last)} is required (${allowedText(issue.path)})`,
      });
      continue;
    }
    const { node, key } = nodeAt(parsed.doc, issue.path);
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
  const near = allowed.find((k) => k.toLowerCase() === name.toLowerCase() || editDistance(k, name) <= 2);
  const where = at.length > 0 ? `${label(at)}: ` : "";
  return (
    `${where}unknown key "${name}"` +
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
  if (typeof value === "string") return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
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
    if (schema instanceof z.ZodObject) schema = (schema.shape as Record<string, z.ZodType>)[String(segment)];
    else if (schema instanceof z.ZodArray) schema = schema.element as z.ZodType;
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
    .map((s, i) => (typeof s === "number" ? `[${s}]` : i === 0 ? String(s) : `.${String(s)}`))
    .join("");
}

// ---------------------------------------------------------------------------------------------
// Recipients

/**
 * Checks the recipients of one document (when its recipients section itself is valid) and
 * returns the absolute recipients file, if any. Problems inside the campaign file go to
 * `problems`; problems in the recipients file, to `late` (printed after the campaign file's).
 */
async function checkRecipients(
  parsed: ParsedDocument,
  problems: CampaignProblem[],
  late: CampaignProblem[],
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
    const loaded = await loadRecipients({ inline: section.data.inline }, options);
    for (const problem of loaded.problems) {
      const item: Path = ["inline", problem.row - 1];
      const field = problem.field && inlineKey(section.data.inline[problem.row - 1], problem.field);
      // At the field's key: the field is the subject (its value may be missing or fine on its own).
      const { node, key } = nodeAt(parsed.doc, ["spec", "recipients", ...item, ...(field ? [field] : [])]);
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
    fileProblem(`"${declared}" is not a recipients file type; use a .csv, .json, .jsonl or .ndjson file`);
    return undefined;
  }
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) {
      fileProblem(`"${declared}" is a folder, not a recipients file`);
      return undefined;
    }
    await fs.access(file, fs.constants.R_OK);
  } catch (error) {
    fileProblem(
      `${fileError(error, `recipients file "${declared}"`)} (looked for ${displayPath(file, relativeTo)}; the path is relative to the campaign file)`,
    );
    return undefined;
  }
  try {
    const loaded = await loadRecipients({ file }, options);
    // A row of a CSV or JSON Lines file is its line; in a JSON array it is the element's index.
    const elements =
      formatOf(file) === "json" && loaded.problems.length > 0 ? await jsonElementPositions(file) : [];
    for (const problem of loaded.problems) {
      const position = formatOf(file) === "json" ? elements[problem.row - 1] : undefined;
      late.push({
        file,
        ...(position ?? { line: problem.row, column: 1 }),
        message: `${problem.field ? `${problem.field}: ` : ""}${problem.message}`,
      });
    }
    if (loaded.problemCount > loaded.problems.length) {
      fileProblem(
        `"${declared}" has ${loaded.problemCount - loaded.problems.length} more problems besides the ${loaded.problems.length} listed`,
      );
    }
  } catch (error) {
    // The file's own format is broken (a CSV row with an extra column, JSON that does not parse).
    const reported = (error as { lines?: unknown }).lines;
    const message = recipientFileError(error);
    if (typeof reported === "number" && reported > 0) {
      const text = await fs.readFile(file, "utf8").catch(() => "");
      // csv-parse reports an unclosed quote at the end of the file (even a line past it); the
      // quote that opened it is where the fix goes.
      const opened =
        (error as { code?: unknown }).code === "CSV_QUOTE_NOT_CLOSED" ? unclosedQuoteLine(text) : undefined;
      const line = Math.min(opened ?? reported, lineCount(text));
      late.push({ file, line, column: 1, message });
    } else {
      fileProblem(`"${declared}" cannot be read: ${message}`);
    }
  }
  return file;
}

/**
 * YAML reads a bare 02134 as the number 2134, and 1e3 as 1000: an inline ZIP code or id written
 * without quotes would be sent changed. Reported where the number's text and its value differ.
 */
function numbersLosingDigits(parsed: ParsedDocument, problems: CampaignProblem[]): void {
  const { node } = nodeAt(parsed.doc, ["spec", "recipients", "inline"]);
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

/** Where each element of a JSON array file starts (JSON is YAML, whose parser keeps positions). */
async function jsonElementPositions(file: string): Promise<Position[]> {
  const lines = new LineCounter();
  const doc = parseDocument(await fs.readFile(file, "utf8"), { lineCounter: lines });
  if (!isSeq(doc.contents)) return [];
  return doc.contents.items.map((item) => {
    const { line, col } = lines.linePos((item as Node | null)?.range?.[0] ?? 0);
    return { line, column: col };
  });
}

/** The key an inline recipient wrote for a canonical field name (it may have written `zip` for zipCode). */
function inlineKey(recipient: Record<string, unknown> | undefined, field: string): string | undefined {
  if (!recipient) return undefined;
  return Object.keys(recipient).find((k) => k === field || canonicalFieldName(k) === field);
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
