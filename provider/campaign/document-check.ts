/**
 * A campaign document checked against the campaign schema: each problem at the node it is about,
 * named by its path in the document (`spec.order.templateId`), in the words of
 * api/schemas/issues.ts, with the keys allowed beside an unknown one and what a missing one takes.
 */
import { isMap, isScalar, type Node } from "yaml";
import { z } from "zod";
import {
  formatPath,
  isIntSchema,
  plainMessage,
  unknownKeyMessage,
  type Vocabulary,
} from "../api/schemas/issues";
import type { CampaignProblem, Path } from "./problem";
import { DOCUMENT_KINDS, type DocumentKind } from "./schema";
import {
  isPlainObject,
  nodeAt,
  nodePosition,
  type ParsedDocument,
  positionOf,
  valueAt,
} from "./yaml-document";

/** Kinds of values as a YAML file writes them. */
const FILE_WORDS: Vocabulary = {
  object: "a section of key: value lines",
  list: 'a list (lines starting with "- ")',
};

const KIND_MESSAGE = `kind: write one of ${Object.keys(DOCUMENT_KINDS).join(", ")}`;
/** What an unknown kind was, for its message; nothing when it is missing. (A document of an unknown kind is checked as a Campaign.) */
const kindFound = (value: unknown) => {
  const kind = valueAt(value, ["kind"]);
  return kind === undefined ? "" : `; found ${JSON.stringify(kind)}`;
};

/** Checks one document against the schema of its kind; each problem goes to `problems`. */
export function checkDocument(parsed: ParsedDocument, problems: CampaignProblem[]): void {
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
  const root = schemaOf(parsed.value);
  const result = root.safeParse(parsed.value);
  if (result.success) return;
  const schemaAt = (at: Path) => schemaIn(root, at);
  const label = (at: Path) => labelIn(kindOf(parsed.value), at);
  const unknownKey = (at: Path, name: string) =>
    `${at.length > 0 ? `${label(at)}: ` : ""}${unknownKeyMessage(name, keysAt(schemaAt(at)))}`;
  const allowedText = (at: Path) => allowedTextOf(schemaAt(at), at);
  for (const issue of result.error.issues) {
    if (issue.path.length === 1 && issue.path[0] === "kind") {
      problems.push({
        file: parsed.file,
        ...positionOf(parsed, ["kind"]),
        message: `${KIND_MESSAGE}${kindFound(parsed.value)}`,
      });
      continue;
    }
    if (issue.code === "unrecognized_keys") {
      const { node } = nodeAt(parsed, issue.path);
      const keys = isMap(node) ? parsed.entries.get(node) : undefined;
      for (const name of issue.keys) {
        const pair = keys?.get(name);
        problems.push({
          file: parsed.file,
          ...nodePosition(parsed, (pair?.key as Node | undefined) ?? node),
          message: unknownKey(issue.path, name),
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
      message: `${label(issue.path)}: ${issueText(issue, valueAt(parsed.value, issue.path), node, schemaAt)}`,
    });
  }
}

/** The document's kind when it names a known one (a document without a kind is read as a Campaign). */
export function kindOf(value: unknown): DocumentKind {
  const kind = valueAt(value, ["kind"]);
  return typeof kind === "string" && Object.hasOwn(DOCUMENT_KINDS, kind)
    ? (kind as DocumentKind)
    : "Campaign";
}

function schemaOf(value: unknown): z.ZodType {
  return DOCUMENT_KINDS[kindOf(value)];
}

/** The campaign's name, when the document gives one as text. */
export function nameOf(value: unknown): string | undefined {
  const name = valueAt(value, ["metadata", "name"]);
  return typeof name === "string" ? name : undefined;
}

/** What the schema allows at `at`, in words, for a missing key. */
function allowedTextOf(schema: z.ZodType | undefined, at: Path): string {
  if (!schema) return "see docs/campaign-format.md";
  if (schema instanceof z.ZodLiteral)
    return `write ${String(at[at.length - 1])}: ${[...schema.values].join(", ")}`;
  if (schema instanceof z.ZodEnum) return `one of ${schema.options.join(", ")}`;
  if (schema instanceof z.ZodObject) return `a section with ${Object.keys(schema.shape).join(", ")}`;
  // Descriptions are sentences; inside the parentheses they read as a clause.
  const description = schema.description?.replace(/\.$/, "");
  return description ? description.charAt(0).toLowerCase() + description.slice(1) : describeType(schema);
}

function describeType(schema: z.ZodType): string {
  if (schema instanceof z.ZodString) return "text";
  if (schema instanceof z.ZodNumber) return isIntSchema(schema) ? "a whole number" : "a number";
  if (schema instanceof z.ZodBoolean) return "true or false";
  if (schema instanceof z.ZodArray) return "a list";
  return "see docs/campaign-format.md";
}

function issueText(
  issue: z.core.$ZodIssue,
  value: unknown,
  node: Node | null,
  schemaAt: (at: Path) => z.ZodType | undefined,
): string {
  const int = issue.code === "invalid_type" && isIntSchema(schemaAt(issue.path));
  const text = plainMessage(issue, { value, int, words: FILE_WORDS }) ?? issue.message;
  // YAML reads 02134 as the number 2134: a ZIP code or an id written bare loses its zeros.
  if (
    issue.code === "invalid_type" &&
    issue.expected === "string" &&
    isScalar(node) &&
    typeof value === "number"
  ) {
    return `${text}; write it in quotes: "${node.source ?? String(value)}"`;
  }
  return text;
}

/** The zod schema at a document path (optional wrappers removed), for allowed keys and descriptions. */
function schemaIn(root: z.ZodType, at: Path): z.ZodType | undefined {
  let schema: z.ZodType | undefined = root;
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

function keysAt(schema: z.ZodType | undefined): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/** A path as a marketer reads it: spec.addressBook[0].zip; the document itself when empty. */
export function label(at: Path): string {
  return labelIn("Campaign", at);
}

function labelIn(kind: DocumentKind, at: Path): string {
  if (at.length > 0) return formatPath(at);
  return kind === "Campaign" ? "the campaign" : kind === "Automation" ? "the automation" : "the conversions";
}
