/**
 * A recipient list, the one way its rows are read: made once from its source and options (its
 * columns, identity field and memory budget), then surveyed, loaded or read again at some rows,
 * every read held to the budget it was given when it was made.
 */
import { memoryBudget } from "../memory-budget";
import { ColumnRules } from "./columns";
import type { DeclaredRecipient, IdentityField } from "./declared";
import { digestOfSet } from "./identity/digest";
import { contentKey } from "./identity/keys";
import { DeclaredSet } from "./identity/table";
import { type RecipientSource, rowsOf } from "./read/source";
import {
  fieldsOf,
  isDuplicate,
  judgeRepeatedKeys,
  type ListParts,
  type LoadedRecipient,
  type LoadedRecipients,
  problemCollector,
  type RecipientProblem,
  type RecipientSourceOptions,
  type RepeatedRow,
  type SurveyedRecipient,
  validRows,
} from "./survey";

/** A row's fields (trimmed, as the schema leaves them) and its key column's value, read again. */
export interface RowFields {
  recipient: DeclaredRecipient;
  keyValue: string | undefined;
}

/** What a survey found: the set (keys, content digests and rows), its duplicates and problems. */
export class RecipientSurvey {
  readonly set: DeclaredSet;
  /** Rows identical to (or with the same key column as) an earlier row; sent once. */
  readonly duplicateRows: number;
  readonly problems: RecipientProblem[];
  readonly problemCount: number;
  readonly #identityField: IdentityField;
  readonly #withContent: boolean;
  #digest: string | undefined;

  constructor(
    found: Pick<RecipientSurvey, "set" | "duplicateRows" | "problems" | "problemCount">,
    list: ListParts,
  ) {
    this.set = found.set;
    this.duplicateRows = found.duplicateRows;
    this.problems = found.problems;
    this.problemCount = found.problemCount;
    this.#identityField = list.options.identityField;
    this.#withContent = list.columns.keyColumn === undefined || list.options.contentDigests !== false;
  }

  /**
   * The set's digest (digestOfSet), what the provider plans with: worked out when first asked for
   * (sorting a million keys is not free), then kept.
   */
  get digest(): string {
    // Without content digests a changed recipient keeps its digest: the set's would not show it.
    if (!this.#withContent) throw new Error("a list surveyed without content digests has no digest");
    this.#digest ??= digestOfSet(this.set, this.#identityField);
    return this.#digest;
  }
}

/**
 * A recipient list, made by recipientList. Its reads: `survey` (every row once, as a stream: what
 * the provider and the checks read a list of any size with), `load` (a short list, with every
 * recipient's fields), `readAgain` (a surveyed set's recipients, with their fields) and `fieldsAt`
 * (the fields at some rows).
 */
export class RecipientList {
  readonly #list: ListParts;

  constructor(source: RecipientSource, options: RecipientSourceOptions) {
    this.#list = {
      source,
      options,
      columns: new ColumnRules(options),
      memory: options.memory ?? memoryBudget(),
    };
  }

  /**
   * Reads and validates every recipient as a stream, once, keeping only each one's key, content
   * digest and row (DeclaredSet), so that its memory stays a few dozen bytes a recipient. `each`
   * sees every recipient the set takes, with its fields, in the list's order; what it returns (a
   * number, 0 by default) is kept beside the recipient (DeclaredSet.tagOf). Rows with problems and
   * later duplicates are not handed to it. Problems are collected, not thrown, so a user sees all
   * of them at once; the caller refuses to change anything when there is any.
   *
   * With `contentDigests: false` under a key column, the set's content digests are its keys: a row
   * whose key an earlier row has gets its content hashed then, and the earlier rows of such keys are
   * read again after the read (only when there are any) to tell a duplicate from a problem, exactly
   * as a read with digests does.
   */
  async survey(each?: (recipient: SurveyedRecipient) => number | undefined): Promise<RecipientSurvey> {
    const list = this.#list;
    const { options } = list;
    const set = new DeclaredSet();
    const { collected, problem, mergeLater } = problemCollector(options);
    const repeated: RepeatedRow[] | undefined =
      options.contentDigests === false && options.keyColumn?.trim() !== undefined ? [] : undefined;
    let duplicateRows = 0;
    for await (const rows of validRows(list, problem)) {
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
      duplicateRows += await judgeRepeatedKeys(list, set, repeated, (problem, { problemsBefore }) =>
        later.push({ problem, before: problemsBefore }),
      );
      mergeLater(later);
    }
    return new RecipientSurvey({ set, duplicateRows, ...collected }, list);
  }

  /**
   * The survey, with every recipient's fields kept by key (in the list's order) and the set's
   * digest: for a short list (a campaign's online check, tests). The provider surveys.
   */
  async load(): Promise<LoadedRecipients> {
    const byKey = new Map<string, LoadedRecipient>();
    const surveyed = await this.survey(({ keyValue: _, ...recipient }) => {
      byKey.set(recipient.key, recipient);
      return 0;
    });
    const { duplicateRows, digest, problems, problemCount } = surveyed;
    return { byKey, duplicateRows, digest, problems, problemCount };
  }

  /**
   * The recipients of a surveyed set, with their fields, read again as a stream, in the list's
   * order. A row the set does not hold as it is (a later duplicate) is skipped; a source that no
   * longer yields every recipient of the set as surveyed fails with `changed` (the file was edited
   * since), as soon as that shows. With `only` (rows of the set), just those rows are read, a CSV's
   * others passed over unparsed (recordsAtLines), and each must still be as surveyed.
   */
  async *readAgain(
    set: DeclaredSet,
    changed: () => Error,
    only?: ReadonlySet<number>,
  ): AsyncGenerator<LoadedRecipient> {
    let seen = 0;
    // Found valid already: the schema's only change to a row, trimming its values, is done without it.
    for await (const rows of validRows(this.#list, () => {}, true, only)) {
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

  /**
   * Some rows found valid already, with their fields (trimmed, as the schema leaves them) and key
   * column's value, by row: no digest, no check, and no row kept but these. Stops reading past the
   * last one.
   */
  async fieldsAt(rows: ReadonlySet<number>): Promise<Map<number, RowFields>> {
    const found = new Map<number, RowFields>();
    if (rows.size === 0) return found;
    const { source, columns, memory } = this.#list;
    const ignore = () => {};
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
}

/**
 * A recipient list: its source, read with `options` (its columns, identity field, memory budget:
 * the provider's when none is given, asked for now), every read of it held to them.
 */
export function recipientList(source: RecipientSource, options: RecipientSourceOptions): RecipientList {
  return new RecipientList(source, options);
}
