/**
 * The recipients a campaign document declares, checked as the resource will read them: inline in
 * the document, or in a recipients file (its format, then each row). A problem in a recipients
 * file is reported at its line in that file (in a JSON array, at the element or its key).
 */
import * as path from "node:path";
import { isMap, isScalar, isSeq } from "yaml";
import { type FileRoot, OutsideRootError, resolveInside } from "../file-root";
import { SourceFileError } from "../files/text";
import { MAX_PRINTED_PROBLEMS } from "../limits";
import { FieldPresence } from "../lookups/order-check";
import { memoryBudget } from "../memory-budget";
import type { DeclaredSet } from "../recipients/index";
import {
  type CsvDelimiter,
  DEFAULT_IDENTITY_FIELD,
  DropTally,
  fileSignature,
  formatOf,
  jsonPositions,
  type OpenedList,
  openList,
  type PredictedDrops,
  predictedDropReason,
  type RecipientFormat,
  type RecipientSource,
  type RecipientSourceOptions,
  type RecipientSurvey,
  recipientList,
  type SurveyedRecipient,
  writtenKeys,
} from "../recipients/index";
import { shown } from "../text";
import { label } from "./document-check";
import { type CampaignProblem, displayPath, fileError, type Path } from "./problem";
import { CampaignRecipients } from "./schema";
import { keyText, nodeAt, nodePosition, type ParsedDocument, positionOf, valueAt } from "./yaml-document";

/** Problems reported per recipient source; the rest are counted in one more problem. */
export const MAX_RECIPIENT_PROBLEMS = MAX_PRINTED_PROBLEMS;

/**
 * What the loader keeps of a valid recipient list, read once: each recipient's key, content digest
 * and row (and, beside it, the index + 1 of the reason the service will drop it for in
 * `dropReasons`, 0 when it will not), and which fields the recipients fill in. Never their rows:
 * a million recipients take about 50 MB here.
 */
export interface KeptRecipientList {
  /** Unset for a list read without content digests (RecipientSourceOptions.contentDigests). */
  set?: DeclaredSet;
  /** Rows identical to (or with the same key as) an earlier row. */
  duplicateRows: number;
  dropReasons: string[];
  /** Unset for a list read without its checks (surveyList's `checks`). */
  fields?: FieldPresence;
  /** The file's signature (fileSignature) when it was the same before and after the read. */
  signature?: string;
}

/** What checking one recipients file found, kept for the other documents that name it. */
export interface RecipientsCheck {
  /** Problems in the recipients file. */
  late: CampaignProblem[];
  /** Problems reported at each naming document's `file` value, given the file as it was written there. */
  atFileValue: ((declared: string) => string)[];
  /**
   * The rows the service will drop, each a warning at its row: of the valid rows when other rows
   * have problems too (then without `predicted`), so that one fix shows them all.
   */
  drops?: {
    warnings: CampaignProblem[];
    atFileValue: ((declared: string) => string)[];
    /** Unset for a file read without its checks (surveyList's `checks`). */
    predicted?: PredictedDrops | undefined;
  };
  /** The list; undefined when the file has problems. */
  list?: KeptRecipientList;
}

/** What the recipients of a document are: their file, and the drops predicted when they are valid. */
export interface CheckedRecipients {
  file?: string;
  predicted?: PredictedDrops;
  list?: KeptRecipientList;
}

/**
 * What sees each recipient of a list as the loader reads it (LoadOptions.recipientsSeen): the ones
 * its set takes, with their fields, in the list's order.
 */
export type RecipientsSeen = (recipient: SurveyedRecipient) => void;

/** A warning's words for a row the service will drop. */
const willDrop = (what: string, reason: string) => `the service will drop this ${what}: ${reason}`;

/**
 * A recipient list read once (RecipientList.survey), told as it goes by: the recipients the service
 * will drop (predicted-drops.ts), the first MAX_RECIPIENT_PROBLEMS of them kept with their rows
 * and the others counted (`more`), and the fields the recipients fill in. Without `checks`, for a
 * list read only to be compared with another: neither (no drop is predicted, `fields` is unset);
 * its keys, content digests, rows and problems are the same.
 */
export async function surveyList(
  source: RecipientSource,
  options: RecipientSourceOptions,
  seen?: RecipientsSeen,
  checks = true,
): Promise<{
  loaded: RecipientSurvey;
  list: KeptRecipientList;
  drops: { rows: { row: number; reason: string }[]; more: number; predicted: PredictedDrops | undefined };
}> {
  const tally = new DropTally();
  const fields = new FieldPresence();
  const dropReasons: string[] = [];
  const reasonIds = new Map<string, number>();
  const rows: { row: number; reason: string }[] = [];
  let more = 0;
  // It holds about 50 MB at a million recipients: a lower budget than the provider's (runtime/memory.ts).
  const memory = memoryBudget("campaign-checks");
  memory.listStarted();
  const loaded = await recipientList(source, { ...options, memory }).survey((surveyed) => {
    seen?.(surveyed);
    if (!checks) return 0;
    const { row, recipient } = surveyed;
    fields.add(row, recipient);
    const reason = predictedDropReason(recipient);
    tally.add(row, reason);
    if (reason === undefined) return 0;
    // In row order: the survey hands recipients on in the list's order.
    if (rows.length < MAX_RECIPIENT_PROBLEMS) rows.push({ row, reason });
    else more += 1;
    let id = reasonIds.get(reason);
    if (id === undefined) {
      id = dropReasons.push(reason);
      reasonIds.set(reason, id);
    }
    return id;
  });
  return {
    loaded,
    list: {
      ...(options.contentDigests !== false ? { set: loaded.set } : {}),
      duplicateRows: loaded.duplicateRows,
      dropReasons,
      ...(checks ? { fields } : {}),
    },
    drops: { rows, more, predicted: checks ? tally.result : undefined },
  };
}

/** Drop warnings, placed by `at`, in their rows' order. */
function dropWarnings(
  rows: { row: number; reason: string }[],
  at: (row: number, reason: string) => CampaignProblem,
): CampaignProblem[] {
  const warnings = rows.map(({ row, reason }) => ({ ...at(row, reason), warning: true as const }));
  return warnings.sort((a, b) => a.line - b.line || a.column - b.column);
}

const moreDrops = (more: number) => (declared: string) =>
  `${declared}: the service will drop ${more} more rows besides the ${MAX_RECIPIENT_PROBLEMS} listed`;

/**
 * Checks the recipients of one document (when its recipients section itself is valid) and
 * returns the absolute recipients file, if any, and the drops predicted. Problems inside the
 * campaign file go to `problems`; problems in the recipients file, to `late` (printed after the
 * campaign file's); the rows the service will drop, to `warnings`. `checks` keeps what each
 * recipients file gave, so that a file named by many documents is read once. Without
 * `recipientChecks` (LoadOptions.recipientChecks), no drop is predicted or warned of, and the lists
 * carry no `fields`.
 */
export async function checkRecipients(
  parsed: ParsedDocument,
  found: { problems: CampaignProblem[]; late: CampaignProblem[]; warnings: CampaignProblem[] },
  checks: Map<string, Promise<RecipientsCheck>>,
  root: FileRoot,
  relativeTo: string | undefined,
  contentDigests = true,
  seenFor?: (campaign: { name: string; keyColumn: string | undefined }) => RecipientsSeen | undefined,
  recipientChecks = true,
): Promise<CheckedRecipients> {
  const { problems, late, warnings } = found;
  const section = CampaignRecipients.safeParse(valueAt(parsed.value, ["spec", "recipients"]));
  if (!section.success) return {};
  const options = {
    identityField: section.data.identityField ?? DEFAULT_IDENTITY_FIELD,
    maxProblems: MAX_RECIPIENT_PROBLEMS,
    ...(contentDigests ? {} : { contentDigests }),
    ...(section.data.keyColumn !== undefined ? { keyColumn: section.data.keyColumn } : {}),
    ...(section.data.ignoreColumns !== undefined ? { ignoreColumns: section.data.ignoreColumns } : {}),
  };
  const at = (p: Path) => ({ file: parsed.file, ...positionOf(parsed, ["spec", "recipients", ...p]) });
  const name = valueAt(parsed.value, ["metadata", "name"]);
  // Asked only for a list read here: a file another document named was read for that one.
  const seen = () =>
    typeof name === "string" ? seenFor?.({ name, keyColumn: section.data.keyColumn }) : undefined;

  if (section.data.inline !== undefined) {
    numbersLosingDigits(parsed, problems);
    // The recipients as written, not zod's copies of them: those lose a key such as `__proto__`.
    const inline = valueAt(parsed.value, ["spec", "recipients", "inline"]) as Record<string, unknown>[];
    const { loaded, list, drops } = await surveyList({ inline }, options, seen(), recipientChecks);
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
    // Shown with the problems: the valid rows' drops are worth fixing in the same edit.
    const dropped = dropWarnings(drops.rows, (row, reason) => {
      const item: Path = ["spec", "recipients", "inline", row - 1];
      return {
        file: parsed.file,
        ...positionOf(parsed, item),
        message: `${label(item)}: ${willDrop("recipient", reason)}`,
      };
    });
    for (const warning of dropped) warnings.push(warning);
    if (drops.more > 0)
      warnings.push({
        ...at(["inline"]),
        message: moreDrops(drops.more)("spec.recipients.inline"),
        warning: true,
      });
    if (loaded.problemCount > 0) return {};
    return { ...(drops.predicted ? { predicted: drops.predicted } : {}), list };
  }

  const declared = section.data.file as string;
  const fileProblem = (message: string) =>
    problems.push({ ...at(["file"]), message: `spec.recipients.file: ${message}` });
  let file: string;
  try {
    file = await resolveInside(root, declared, path.dirname(parsed.file));
  } catch (error) {
    if (!(error instanceof OutsideRootError)) throw error;
    problems.push({ ...at(["file"]), message: `spec.recipients.file: ${error.message}`, outsideRoot: true });
    return {};
  }
  let format: RecipientFormat;
  try {
    format = formatOf(file);
  } catch {
    fileProblem(
      `"${shown(declared)}" is not a recipients file type; use a .csv, .json, .jsonl or .ndjson file`,
    );
    return {};
  }
  const { delimiter } = section.data;
  if (delimiter !== undefined && format !== "csv") {
    problems.push({
      ...at(["delimiter"]),
      message: `spec.recipients.delimiter: separates the values of a CSV file; "${shown(declared)}" is not one`,
    });
    return {};
  }
  const key = JSON.stringify([
    file,
    options.identityField,
    options.keyColumn,
    options.ignoreColumns,
    delimiter,
  ]);
  let check = checks.get(key);
  if (!check) {
    check = checkRecipientsFile(
      file,
      { ...options, root, ...(delimiter ? { delimiter } : {}) },
      relativeTo,
      seen(),
      recipientChecks,
    );
    checks.set(key, check);
  }
  const checked = await check;
  // Found once, pushed for each document that names the file: they are deduplicated in the end.
  for (const problem of checked.late) late.push(problem);
  for (const message of checked.atFileValue) fileProblem(message(`"${shown(declared)}"`));
  if (!checked.drops) return { file };
  for (const warning of checked.drops.warnings) warnings.push(warning);
  for (const message of checked.drops.atFileValue)
    warnings.push({
      ...at(["file"]),
      message: `spec.recipients.file: ${message(`"${shown(declared)}"`)}`,
      warning: true,
    });
  if (!checked.list) return { file };
  const { predicted } = checked.drops;
  return { file, ...(predicted ? { predicted } : {}), list: checked.list };
}

/** Reads and checks one recipients file; see checkRecipients. */
export async function checkRecipientsFile(
  file: string,
  options: RecipientSourceOptions & { root: FileRoot; delimiter?: CsvDelimiter },
  relativeTo: string | undefined,
  seen?: RecipientsSeen,
  recipientChecks = true,
): Promise<RecipientsCheck> {
  const late: CampaignProblem[] = [];
  const atFileValue: RecipientsCheck["atFileValue"] = [];
  const { root, delimiter, ...sourceOptions } = options;
  // Opened once: what it is and its signature come from the open file, and every read goes through it.
  let opened: OpenedList;
  try {
    opened = await openList(file, sourceOptions, delimiter);
  } catch (error) {
    const where = `looked for ${shown(displayPath(file, relativeTo), 200)}; the path is relative to the campaign file`;
    return {
      late,
      atFileValue: [(declared) => `${fileError(error, `recipients file ${declared}`)} (${where})`],
    };
  }
  try {
    if (!opened.isFile)
      return { late, atFileValue: [(declared) => `${declared} is a folder, not a recipients file`] };
    // A JSON array's text, kept from its one read for where its rows were written.
    let jsonText: string | undefined;
    opened.keepText = (text) => {
      jsonText = text;
    };
    const positionsOf = (rows: Iterable<number>) =>
      jsonText === undefined ? undefined : jsonPositions(jsonText, new Set(rows));
    const { loaded, list, drops } = await surveyList(
      { file, root, ...(delimiter ? { delimiter } : {}), opened },
      sourceOptions,
      seen,
      recipientChecks,
    );
    // The provider's check takes what this read found only of the file this read read.
    if (opened.signature === (await fileSignature(file, sourceOptions, delimiter)))
      list.signature = opened.signature;
    const rowOf = (row: number) => ({ line: row, column: 1 });
    // Placed at their rows below, in a JSON array once the elements' positions are known.
    const warnings = dropWarnings(drops.rows, (row, reason) => ({
      file,
      ...rowOf(row),
      message: willDrop("row", reason),
    }));
    // The valid rows' drops are warned of with the other rows' problems, not after their fix.
    const placed = warnings.length > 0 ? positionsOf(warnings.map((w) => w.line)) : undefined;
    const dropsFound = {
      atFileValue: drops.more > 0 ? [moreDrops(drops.more)] : [],
      warnings: warnings.map((w) => ({ ...w, ...(placed?.get(w.line)?.start ?? {}) })),
    };
    if (loaded.problemCount === 0)
      return { late, atFileValue, drops: { ...dropsFound, predicted: drops.predicted }, list };
    // A row of a CSV or JSON Lines file is its line; in a JSON array it is the element's index.
    const json = positionsOf(loaded.problems.map((p) => p.row));
    for (const problem of loaded.problems) {
      const element = json?.get(problem.row);
      const position =
        (problem.field !== undefined ? element?.keys.get(problem.field) : undefined) ?? element?.start;
      late.push({
        file,
        ...(position ?? rowOf(problem.row)),
        message: `${problem.field ? `${shown(problem.field)}: ` : ""}${problem.message}`,
      });
    }
    if (loaded.problemCount > loaded.problems.length) {
      const more = loaded.problemCount - loaded.problems.length;
      atFileValue.push(
        (declared) => `${declared} has ${more} more problems besides the ${loaded.problems.length} listed`,
      );
    }
    return { late, atFileValue, drops: dropsFound };
  } catch (error) {
    // The file's own format is broken (a CSV row with an extra column, JSON that does not parse,
    // binary data): at its place in the file when it has one, else at the file value.
    if (!(error instanceof SourceFileError)) throw error;
    const { line, column = 1, reason } = error;
    if (line !== undefined) late.push({ file, line, column, message: reason });
    else atFileValue.push((declared) => `${declared} cannot be read: ${reason}`);
  } finally {
    await opened.close();
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
