/**
 * What each column of a recipient list means (a CSV header's names, a JSON object's keys): a
 * recipient field, the key column, a column the list's `ignoreColumns` leaves out, or an unknown
 * column, which is a problem. Every name is compared one way (foldedName: case, spaces, `_` and
 * `-` ignored), so `keyColumn: customerId` is the column "Customer ID" of a spreadsheet export, as
 * "Zip Code" is zipCode.
 */
import { shown } from "../text";
import { DECLARED_FIELDS, type DeclaredRecipient, fieldOfFolded, foldedName } from "./declared";

/** How a list names its columns: its key column, and the columns it does not send. */
export interface ColumnOptions {
  /** A column (or JSON key) that identifies a recipient, such as a customer id; it is not sent. */
  keyColumn?: string | undefined;
  /** Columns (or JSON keys) of the file that are not recipient fields, left out: a phone, notes. */
  ignoreColumns?: readonly string[] | undefined;
}

/** The most columns `ignoreColumns` lists, and the longest name in it. */
export const MAX_IGNORED_COLUMNS = 200;
export const MAX_COLUMN_NAME_LENGTH = 200;

/** What a column is: the key column, a column to leave out, a recipient field, or unknown (undefined). */
export type ColumnMeaning = "key" | "ignored" | { field: keyof DeclaredRecipient } | undefined;

/** The columns a list's options name, compiled once a list: a name is folded once, looked up once. */
export class ColumnRules {
  readonly keyColumn: string | undefined;
  readonly #key: string | undefined;
  readonly #ignored: ReadonlySet<string>;

  constructor(options: ColumnOptions = {}) {
    const key = options.keyColumn?.trim();
    this.keyColumn = key === "" ? undefined : key;
    this.#key = this.keyColumn === undefined ? undefined : foldedName(this.keyColumn);
    this.#ignored = new Set((options.ignoreColumns ?? []).map(foldedName));
  }

  /** The key column wins over a column to leave out, which wins over a field (an `Email` not to send). */
  meaning(name: string): ColumnMeaning {
    const folded = foldedName(name);
    if (folded === this.#key) return "key";
    if (this.#ignored.has(folded)) return "ignored";
    const field = fieldOfFolded(folded);
    return field === undefined ? undefined : { field };
  }
}

/** `ignoreColumns` naming the key column: a contradiction, refused where the options are checked. */
export function ignoredKeyColumn(options: ColumnOptions): string | undefined {
  if (options.keyColumn === undefined) return undefined;
  const key = foldedName(options.keyColumn);
  return options.ignoreColumns?.find((name) => foldedName(name) === key);
}

/** A CSV header, read: each column's field by position, where the key column is, and its problems. */
export interface HeaderColumns {
  /** Each column's field; undefined for the key column, a column left out and an unknown column. */
  fields: (keyof DeclaredRecipient | undefined)[];
  /** The key column's position; -1 without a key column. */
  keyAt: number;
  /** Problems of the header, each once: at the header's line, not on every row. */
  problems: string[];
  /** False when no row can be read: the key column is missing, or two columns are it. */
  rowsReadable: boolean;
}

/** Names listed in one message; the rest are counted. */
const NAMES_LISTED = 10;

/** Reads a CSV header under the list's rules (see the top of this file). */
export function headerColumns(header: readonly string[], rules: ColumnRules): HeaderColumns {
  const fields: (keyof DeclaredRecipient | undefined)[] = [];
  const unknown: string[] = [];
  const keys: string[] = [];
  let keyAt = -1;
  for (const [at, name] of header.entries()) {
    const meaning = rules.meaning(name);
    fields.push(typeof meaning === "object" ? meaning.field : undefined);
    if (meaning === "key") {
      keyAt = at;
      keys.push(name);
    } else if (meaning === undefined) unknown.push(name);
  }
  const problems: string[] = [];
  const { keyColumn } = rules;
  // First: the key column is likely one of the unknown columns named after it.
  if (keyColumn !== undefined && keys.length === 0)
    problems.push(
      `the key column "${shown(keyColumn)}" is not in the header, whose columns are ${quotedList(header)}; ` +
        "set keyColumn to the column that identifies each recipient (case, spaces, _ and - do not matter)",
    );
  if (keys.length > 1)
    problems.push(
      `the columns ${quotedList(keys)} are all the key column "${shown(keyColumn ?? "")}" ` +
        "(case, spaces, _ and - do not matter); keep one of them",
    );
  if (unknown.length > 0) problems.push(unknownColumns(unknown));
  return { fields, keyAt, problems, rowsReadable: keyColumn === undefined || keys.length === 1 };
}

/** `"a", "b" and 3 more`. */
function quotedList(names: readonly string[]): string {
  const shownNames = names.slice(0, NAMES_LISTED).map((name) => `"${shown(name)}"`);
  const more = names.length - shownNames.length;
  return more > 0 ? `${shownNames.join(", ")} and ${more} more` : shownNames.join(", ");
}

/**
 * One problem for every unknown column of a header, saying what to do: rename a misspelled one
 * (the field it likely means is named), or leave the others out with `ignoreColumns`, written out
 * to be copied. Unknown columns are never dropped unasked: a misspelled `adress2` would be lost.
 */
export function unknownColumns(names: readonly string[]): string {
  const listedNames = names.slice(0, NAMES_LISTED);
  const described = listedNames.map((name) => {
    const likely = likelyField(name);
    return `"${shown(name)}"${likely ? ` (${likely}?)` : ""}`;
  });
  const more = names.length - listedNames.length;
  const list = more > 0 ? `${described.join(", ")} and ${more} more` : described.join(", ");
  const one = names.length === 1;
  const ignore = `ignoreColumns: [${listedNames.map((name) => JSON.stringify(shown(name))).join(", ")}${more > 0 ? ", …" : ""}]`;
  return (
    `unknown column${one ? "" : "s"} ${list}: not ${one ? "a recipient field" : "recipient fields"}; ` +
    `${one ? "rename it if it is misspelled" : "rename any that is misspelled"}, or leave ${one ? "it" : "them"} out with ${ignore} ` +
    "(an option of the recipients, beside file)"
  );
}

/** Folded field names, to name the field a misspelled column likely means. */
const FOLDED_FIELDS = DECLARED_FIELDS.map((field) => [foldedName(field), field] as const);
/** Names longer than this are not compared: a hostile header's long names cost nothing. */
const LONGEST_COMPARED = 40;

/**
 * The field whose name is an edit from `name` (folded), or two for a long name, when there is one:
 * `adress2` is address2, `Customer` is not custom1.
 */
function likelyField(name: string): string | undefined {
  const folded = foldedName(name);
  if (folded.length < 4 || folded.length > LONGEST_COMPARED) return undefined;
  for (const limit of folded.length > 8 ? [1, 2] : [1])
    for (const [foldedField, field] of FOLDED_FIELDS)
      if (editDistance(folded, foldedField, limit) <= limit) return field;
  return undefined;
}

/** The Levenshtein distance of two short texts, or limit + 1 once it is over `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length] as number;
}
