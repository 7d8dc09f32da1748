/**
 * The survey of a recipient list: every row of a source (read/) validated, each recipient given
 * its identity key and its content digest (identity/), duplicates and problems told apart, as a
 * stream; and rows of a surveyed list read again.
 *
 * Identity: the service standardizes addresses, so the recipients it returns never compare equal
 * to the ones sent. Each declared recipient therefore gets a key, either a hash of its declared
 * content or a hash of a key column the user names, and the key travels with the recipient in
 * one custom field (the identity field, `custom6` unless chosen otherwise), which the service
 * echoes unchanged. Updates compare keys and content digests, never addresses: under a key column
 * the same key with another content digest is a changed recipient.
 */
import { SourceFileError } from "../files/text";
import { MAX_KEPT_PROBLEMS } from "../limits";
import { type MemoryBudget, memoryBudget } from "../memory-budget";
import { shown } from "../text";
import { type ColumnOptions, ColumnRules } from "./columns";
import { DeclaredRecipient, type IdentityField, plainlyValid } from "./declared";
import { digestOf, digestOfSet } from "./identity/digest";
import { columnKey, contentKey } from "./identity/keys";
import { type DeclaredKey, DeclaredSet } from "./identity/table";
import { type RawRow, type RecipientSource, type RowProblem, rowsOf } from "./read/source";

/** How a list is read: its columns (columns.ts) and what is worked out of each row. */
export interface RecipientSourceOptions extends ColumnOptions {
  /** The custom field that carries each recipient's key to the service and back. */
  identityField: IdentityField;
  /** Stop collecting problems after this many (the count of all of them is still reported). */
  maxProblems?: number;
  /** The memory budget the read is held to (memory-budget.ts); the provider's by default. */
  memory?: MemoryBudget;
  /**
   * false for a caller that shows no digest (`directmail validate`): under a key column no row's
   * content is hashed as it is read (its content digest is then its key), and a row whose key an
   * earlier row has is judged against that row read again once the read is done
   * (surveyRecipients). Default true.
   */
  contentDigests?: boolean;
}

/**
 * `content` is the digest of the declared content (contentKey); equal to `key` when there is no
 * key column.
 */
export interface LoadedRecipient extends DeclaredKey {
  recipient: DeclaredRecipient;
}

export type RecipientProblem = RowProblem;

export interface LoadedRecipients {
  byKey: Map<string, LoadedRecipient>;
  /** Rows identical to (or with the same key column as) an earlier row; sent once. */
  duplicateRows: number;
  /** sha256 over the sorted (key, content) pairs and the identity field: see digestOf. */
  digest: string;
  problems: RecipientProblem[];
  problemCount: number;
}

/** A valid row, before it is judged against the rows before it. */
interface ValidRow extends LoadedRecipient {
  /** The key column's value, under a key column. */
  keyValue?: string;
}

/**
 * What judging a row against an earlier row of its key takes of it, and the count of problems found
 * before its turn (a batch's rows are judged after the batch's other problems are found).
 */
type RepeatedRow = Omit<ValidRow, "recipient"> & { problemsBefore: number };

/**
 * A row's fields under their canonical names, non-blank and not yet trimmed, and its key column's
 * value (trimmed); undefined for a row that is not an object. Each field that is not a recipient
 * field, or not text, is a problem (and left out).
 */
function fieldsOf(
  raw: RawRow,
  columns: ColumnRules,
  problem: (p: RecipientProblem) => void,
): { fields: Record<string, string | undefined>; keyValue: string | undefined } | undefined {
  if (raw.fields !== undefined) return raw;
  const { row, value } = raw;
  if (value instanceof Error) {
    problem({ row, message: value.message });
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    problem({ row, message: "expected an object with recipient fields" });
    return undefined;
  }
  let keyValue: string | undefined;
  const fields: Record<string, string | undefined> = {};
  for (const name of Object.keys(value)) {
    const given = (value as Record<string, unknown>)[name];
    const meaning = columns.meaning(name);
    if (meaning === "key") {
      keyValue = given === undefined || given === null ? undefined : String(given).trim();
      continue;
    }
    if (meaning === "ignored") continue;
    if (meaning === undefined) {
      problem({ row, field: name, message: `unknown field "${shown(name)}"` });
      continue;
    }
    const canonical = meaning.field;
    if (given === null || given === undefined || given === "") continue;
    if (typeof given !== "string" && typeof given !== "number") {
      problem({ row, field: canonical, message: `${canonical} must be text` });
      continue;
    }
    fields[canonical] = String(given);
  }
  return { fields, keyValue };
}

/**
 * Some rows of a source found valid already, with their fields (trimmed, as the schema leaves
 * them) and key column's value, by row, read as validRows reads them: no digest, no check, and no
 * row kept but these. Stops reading past the last one.
 */
export async function recipientsAtRows(
  source: RecipientSource,
  columnOptions: ColumnOptions,
  rows: ReadonlySet<number>,
  memory: MemoryBudget = memoryBudget(),
): Promise<Map<number, { recipient: DeclaredRecipient; keyValue: string | undefined }>> {
  const found = new Map<number, { recipient: DeclaredRecipient; keyValue: string | undefined }>();
  if (rows.size === 0) return found;
  const ignore = () => {};
  const columns = new ColumnRules(columnOptions);
  for await (const batch of rowsOf(source, columns, ignore, memory, rows)) {
    // The rows passed over are garbage at once: a row added at the end reads a million of them.
    memory.rowsHandled(batch.length);
    for (const raw of batch) {
      if (!rows.has(raw.row)) continue;
      const read = fieldsOf(raw, columns, ignore);
      if (read === undefined) continue;
      const recipient: Record<string, string> = {};
      for (const [name, value] of Object.entries(read.fields))
        if (value !== undefined) recipient[name] = value.trim();
      found.set(raw.row, { recipient: recipient as DeclaredRecipient, keyValue: read.keyValue });
    }
  }
  return found;
}

/**
 * Every valid recipient row of a source, in order, its problems reported (duplicates included).
 * `validated`: the source was found valid already, so the schema's only change to a row, trimming
 * its values, is done without it (a row edited since then has another content digest).
 */
async function* validRows(
  source: RecipientSource,
  options: RecipientSourceOptions,
  problem: (p: RecipientProblem) => void,
  validated = false,
  only?: ReadonlySet<number>,
): AsyncGenerator<ValidRow[]> {
  const columns = new ColumnRules(options);
  const { keyColumn } = columns;
  const hashContent = keyColumn === undefined || options.contentDigests !== false;
  const memory = options.memory ?? memoryBudget();
  for await (const rows of rowsOf(source, columns, problem, memory, only)) {
    memory.rowsHandled(rows.length);
    const valid: ValidRow[] = [];
    for (const raw of rows) {
      const { row } = raw;
      const read = fieldsOf(raw, columns, problem);
      if (read === undefined) continue;
      const { fields, keyValue } = read;
      if (fields[options.identityField] !== undefined) {
        problem({
          row,
          field: options.identityField,
          message:
            `${options.identityField} carries each recipient's identity key to the service; ` +
            "move this data to another custom field, or choose another identityField",
        });
        continue;
      }
      if (validated) for (const name of Object.keys(fields)) fields[name] = fields[name]?.trim();
      const plain = validated ? (fields as DeclaredRecipient) : plainlyValid(fields);
      const parsed = plain ? { success: true as const, data: plain } : DeclaredRecipient.safeParse(fields);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          const field = issue.path.map(String).join(".") || undefined;
          problem({ row, ...(field ? { field } : {}), message: issue.message });
        }
        continue;
      }
      if (keyColumn === undefined) {
        const content = contentKey(parsed.data);
        valid.push({ key: content, content, row, recipient: parsed.data });
        continue;
      }
      if (!keyValue) {
        problem({ row, field: keyColumn, message: `${keyColumn} (the key column) is empty` });
        continue;
      }
      const key = columnKey(keyValue);
      const content = hashContent ? contentKey(parsed.data) : key;
      valid.push({ key, content, row, recipient: parsed.data, keyValue });
    }
    yield valid;
  }
}

/**
 * A row whose key an earlier row has: a duplicate (same content, sent once) or, under a key column,
 * a problem. Says whether it is a duplicate.
 */
function isDuplicate(
  earlier: DeclaredKey,
  later: Omit<ValidRow, "recipient">,
  options: RecipientSourceOptions,
  problem: (p: RecipientProblem) => void,
): boolean {
  if (earlier.content === later.content) return true;
  const keyColumn = options.keyColumn?.trim();
  problem({
    row: later.row,
    field: keyColumn,
    message: `${keyColumn} "${later.keyValue}" is used by row ${earlier.row} too, with different details`,
  });
  return false;
}

/**
 * Problems collected up to `maxProblems`, all of them counted. `mergeLater` takes problems judged
 * after the read, in the order they would have been found, each with the count of the problems
 * found before its turn (`before`), and places them as if found then.
 */
function problemCollector(options: RecipientSourceOptions) {
  const maxProblems = options.maxProblems ?? MAX_KEPT_PROBLEMS;
  const collected = { problems: [] as RecipientProblem[], problemCount: 0 };
  const problem = (p: RecipientProblem) => {
    collected.problemCount += 1;
    if (collected.problems.length < maxProblems) collected.problems.push(p);
  };
  const mergeLater = (later: readonly { problem: RecipientProblem; before: number }[]) => {
    const merged: RecipientProblem[] = [];
    let taken = 0;
    for (const { problem, before } of later) {
      while (taken < before && taken < collected.problems.length)
        merged.push(collected.problems[taken++] as RecipientProblem);
      merged.push(problem);
    }
    for (; taken < collected.problems.length; taken++)
      merged.push(collected.problems[taken] as RecipientProblem);
    collected.problems = merged.slice(0, maxProblems);
    collected.problemCount += later.length;
  };
  return { collected, problem, mergeLater };
}

/**
 * Reads and validates every recipient of a source, keeping each one's fields. Problems are
 * collected, not thrown, so a user sees all of them at once; the caller refuses to change anything
 * when there is any. For lists of any size the provider uses scanRecipients instead.
 */
export async function loadRecipients(
  source: RecipientSource,
  options: RecipientSourceOptions,
): Promise<LoadedRecipients> {
  const byKey = new Map<string, LoadedRecipient>();
  const { collected, problem } = problemCollector(options);
  let duplicateRows = 0;
  for await (const rows of validRows(source, options, problem)) {
    for (const row of rows) {
      const { keyValue: _, ...recipient } = row;
      const earlier = byKey.get(recipient.key);
      if (earlier === undefined) byKey.set(recipient.key, recipient);
      else if (isDuplicate(earlier, row, options, problem)) duplicateRows += 1;
    }
  }
  return {
    byKey,
    duplicateRows,
    digest: digestOf(
      [...byKey.values()].map((r) => [r.key, r.content] as const),
      options.identityField,
    ),
    ...collected,
  };
}

/** A recipient source read as scanRecipients reads it: keys, content digests and rows only. */
export interface ScannedRecipients extends Omit<LoadedRecipients, "byKey"> {
  set: DeclaredSet;
}

/** A recipient as read, with its fields, handed to a reader of a survey and then dropped. */
export interface SurveyedRecipient extends LoadedRecipient {
  /** The key column's value (trimmed), under a key column. */
  keyValue?: string | undefined;
}

/**
 * Reads and validates every recipient of a source as a stream, once, keeping only each one's key,
 * content digest and row (DeclaredSet), so that its memory stays a few dozen bytes a recipient.
 * `each` sees every recipient the set takes, with its fields, in the list's order; what it returns
 * (a number, 0 by default) is kept beside the recipient (DeclaredSet.tagOf). Rows with problems and
 * later duplicates are not handed to it.
 *
 * With `contentDigests: false` under a key column, the set's content digests are its keys: a row
 * whose key an earlier row has gets its content hashed then, and the earlier rows of such keys are
 * read again after the read (only when there are any) to tell a duplicate from a problem, exactly
 * as a read with digests does.
 */
export async function surveyRecipients(
  source: RecipientSource,
  options: RecipientSourceOptions,
  each?: (recipient: SurveyedRecipient) => number | undefined,
): Promise<Omit<ScannedRecipients, "digest">> {
  const set = new DeclaredSet();
  const { collected, problem, mergeLater } = problemCollector(options);
  const repeated: RepeatedRow[] | undefined =
    options.contentDigests === false && options.keyColumn?.trim() !== undefined ? [] : undefined;
  let duplicateRows = 0;
  for await (const rows of validRows(source, options, problem)) {
    for (const recipient of rows) {
      const earlier = set.addNew(recipient, () => each?.(recipient) ?? 0);
      if (earlier === undefined) continue;
      // Held with its content digest, not its fields: only rows with a repeated key are.
      if (repeated) {
        const { recipient: fields, ...judged } = recipient;
        repeated.push({ ...judged, content: contentKey(fields), problemsBefore: collected.problemCount });
      } else if (isDuplicate(earlier, recipient, options, problem)) duplicateRows += 1;
    }
  }
  if (repeated !== undefined && repeated.length > 0) {
    const later: { problem: RecipientProblem; before: number }[] = [];
    duplicateRows += await judgeRepeatedKeys(source, options, set, repeated, (problem, { problemsBefore }) =>
      later.push({ problem, before: problemsBefore }),
    );
    mergeLater(later);
  }
  return { set, duplicateRows, ...collected };
}

/**
 * Rows whose key an earlier row has (in row order, each with its content digest), judged against
 * that earlier row, read again with its content digest: how many are duplicates; the others are
 * problems. A source whose earlier rows are no longer as read is a file changed meanwhile.
 */
async function judgeRepeatedKeys(
  source: RecipientSource,
  options: RecipientSourceOptions,
  set: DeclaredSet,
  repeated: readonly RepeatedRow[],
  problem: (p: RecipientProblem, of: RepeatedRow) => void,
): Promise<number> {
  const earlierRows = new Set(repeated.map((later) => (set.get(later.key) as DeclaredKey).row));
  const contents = new Map<number, DeclaredKey>();
  const ignore = () => {};
  for await (const rows of validRows(
    source,
    { ...options, contentDigests: true },
    ignore,
    false,
    earlierRows,
  ))
    for (const { key, content, row } of rows)
      if (earlierRows.has(row)) contents.set(row, { key, content, row });
  let duplicates = 0;
  for (const later of repeated) {
    const { row, key } = set.get(later.key) as DeclaredKey;
    const earlier = contents.get(row);
    if (earlier?.key !== key) {
      const shownAs = "file" in source ? source.file : "the recipients";
      throw new SourceFileError(shownAs, "the file changed while it was read; check it again");
    }
    if (isDuplicate(earlier, later, options, (p) => problem(p, later))) duplicates += 1;
  }
  return duplicates;
}

/** surveyRecipients, with the set's digest: what the provider plans with. */
export async function scanRecipients(
  source: RecipientSource,
  options: RecipientSourceOptions,
): Promise<ScannedRecipients> {
  const surveyed = await surveyRecipients(source, options);
  return { ...surveyed, digest: digestOfSet(surveyed.set, options.identityField) };
}

/**
 * The recipients of a set, with their fields, read again from their source as a stream, in the
 * list's order. A row the set does not hold as it is (a later duplicate) is skipped; a source
 * that no longer yields every recipient of the set as scanned fails with `changed` (the file was
 * edited since), as soon as that shows. With `only` (rows of the set), just those rows are read,
 * a CSV's others passed over unparsed (recordsAtLines), and each must still be as scanned.
 */
export async function* declaredRows(
  source: RecipientSource,
  options: RecipientSourceOptions,
  set: DeclaredSet,
  changed: () => Error,
  only?: ReadonlySet<number>,
): AsyncGenerator<LoadedRecipient> {
  let seen = 0;
  for await (const rows of validRows(source, options, () => {}, true, only)) {
    for (const { keyValue: _, ...recipient } of rows) {
      // Inline and JSON lists are read whole, `only` or not.
      if (only && !only.has(recipient.row)) continue;
      if (set.holds(recipient)) {
        seen += 1;
        yield recipient;
      } else if (only || !set.has(recipient.key) || set.get(recipient.key)?.row === recipient.row) {
        throw changed();
      }
    }
  }
  if (seen !== (only?.size ?? set.size)) throw changed();
}

/** Problems as lines a person can act on, with the source's name. */
export function describeProblems(
  sourceName: string,
  loaded: Pick<LoadedRecipients, "problems" | "problemCount">,
) {
  const lines = loaded.problems.map(
    (p) => `${sourceName} row ${p.row}${p.field ? `, ${shown(p.field)}` : ""}: ${p.message}`,
  );
  if (loaded.problemCount > loaded.problems.length) {
    lines.push(`... and ${loaded.problemCount - loaded.problems.length} more problems`);
  }
  return lines;
}
