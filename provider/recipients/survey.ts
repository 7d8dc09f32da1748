/**
 * What the reads of a recipient list (list.ts) are made of: every row of a source (read/)
 * validated, each recipient given its identity key and its content digest (identity/), duplicates
 * and problems told apart, as a stream.
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
import type { MemoryBudget } from "../memory-budget";
import { shown } from "../text";
import type { ColumnOptions, ColumnRules } from "./columns";
import { DeclaredRecipient, type IdentityField, plainlyValid } from "./declared";
import { columnKey, contentKey } from "./identity/keys";
import type { DeclaredKey, DeclaredSet } from "./identity/table";
import { type RawRow, type RecipientSource, type RowProblem, rowsOf } from "./read/source";

/** What every read of a list takes, made once when the list is (recipientList, list.ts). */
export interface ListParts {
  readonly source: RecipientSource;
  readonly options: RecipientSourceOptions;
  /** The options' columns, compiled. */
  readonly columns: ColumnRules;
  /** The budget every read of the list is held to. */
  readonly memory: MemoryBudget;
}

/** How a list is read (recipientList): its columns (columns.ts) and what is worked out of each row. */
export interface RecipientSourceOptions extends ColumnOptions {
  /** The custom field that carries each recipient's key to the service and back. */
  identityField: IdentityField;
  /** Stop collecting problems after this many (the count of all of them is still reported). */
  maxProblems?: number;
  /**
   * The memory budget every read of the list is held to (memory-budget.ts), taken when the list is
   * made; the provider's (`memoryBudget()`, asked then) by default.
   */
  memory?: MemoryBudget;
  /**
   * false for a caller that shows no digest (`directmail validate`): under a key column no row's
   * content is hashed as it is read (its content digest is then its key), and a row whose key an
   * earlier row has is judged against that row read again once the read is done
   * (RecipientList.survey). Default true.
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
  /** sha256 over the sorted (key, content) pairs and the identity field: see digestOfSet. */
  digest: string;
  problems: RecipientProblem[];
  problemCount: number;
}

/** A valid row, before it is judged against the rows before it. */
export interface ValidRow extends LoadedRecipient {
  /** The key column's value, under a key column. */
  keyValue?: string;
}

/**
 * What judging a row against an earlier row of its key takes of it, and the count of problems found
 * before its turn (a batch's rows are judged after the batch's other problems are found).
 */
export type RepeatedRow = Omit<ValidRow, "recipient"> & { problemsBefore: number };

/**
 * A row's fields under their canonical names, non-blank and not yet trimmed, and its key column's
 * value (trimmed); undefined for a row that is not an object. Each field that is not a recipient
 * field, or not text, is a problem (and left out).
 */
export function fieldsOf(
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
 * Every valid recipient row of a source, in order, its problems reported (duplicates included).
 * `validated`: the source was found valid already, so the schema's only change to a row, trimming
 * its values, is done without it (a row edited since then has another content digest).
 */
export async function* validRows(
  list: ListParts,
  problem: (p: RecipientProblem) => void,
  validated = false,
  only?: ReadonlySet<number>,
): AsyncGenerator<ValidRow[]> {
  const { source, options, columns, memory } = list;
  const { keyColumn } = columns;
  const hashContent = keyColumn === undefined || options.contentDigests !== false;
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
export function isDuplicate(
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
export function problemCollector(options: RecipientSourceOptions) {
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

/** A recipient as read, with its fields, handed to a reader of a survey and then dropped. */
export interface SurveyedRecipient extends LoadedRecipient {
  /** The key column's value (trimmed), under a key column. */
  keyValue?: string | undefined;
}

/**
 * Rows whose key an earlier row has (in row order, each with its content digest), judged against
 * that earlier row, read again with its content digest: how many are duplicates; the others are
 * problems. A source whose earlier rows are no longer as read is a file changed meanwhile.
 */
export async function judgeRepeatedKeys(
  list: ListParts,
  set: DeclaredSet,
  repeated: readonly RepeatedRow[],
  problem: (p: RecipientProblem, of: RepeatedRow) => void,
): Promise<number> {
  const earlierRows = new Set(repeated.map((later) => (set.get(later.key) as DeclaredKey).row));
  const contents = new Map<number, DeclaredKey>();
  const ignore = () => {};
  const withDigests = { ...list, options: { ...list.options, contentDigests: true } };
  for await (const rows of validRows(withDigests, ignore, false, earlierRows))
    for (const { key, content, row } of rows)
      if (earlierRows.has(row)) contents.set(row, { key, content, row });
  let duplicates = 0;
  for (const later of repeated) {
    const { row, key } = set.get(later.key) as DeclaredKey;
    const earlier = contents.get(row);
    if (earlier?.key !== key) {
      const shownAs = "file" in list.source ? list.source.file : "the recipients";
      throw new SourceFileError(shownAs, "the file changed while it was read; check it again");
    }
    if (isDuplicate(earlier, later, list.options, (p) => problem(p, later))) duplicates += 1;
  }
  return duplicates;
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
