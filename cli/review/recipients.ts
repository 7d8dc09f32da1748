/**
 * Which recipients a change adds, removes and changes, from the campaign's recipients at the base
 * and at the head, read with the provider's own loader so that the review counts exactly what
 * `pulumi up` will send. With a key column, recipients are matched by its value (a customer id):
 * the same key with other details is a change. Without one, the content is the identity: a
 * recipient is added or removed, never changed.
 *
 * Recipients are personal data and a review is widely visible: entries carry the key value and the
 * row, never a name or an address, unless `showPersonalData` is asked for.
 */
import {
  type KeptRecipientList,
  type RecipientsSeen,
  surveyList,
} from "../../provider/campaign/recipients-check";
import type { IdentityField } from "../../provider/index";
import {
  DEFAULT_IDENTITY_FIELD,
  type DeclaredRecipient,
  DeclaredSet,
  type RecipientSource,
  type RowFields,
  recipientList,
} from "../../provider/recipients/index";
import { shown } from "../../provider/text";

/** The identity field a campaign uses when it names none (OrderRecipients' default). */

/** Entries listed per kind of change in review.json (the counts are always whole). */
export const MAX_LISTED = 1000;

/** Characters of a key value shown; a longer one is cut with "…". */
const MAX_KEY_LENGTH = 200;

export interface RecipientsSide {
  source: RecipientSource;
  /** How the source is shown: the file relative to the project, or `inline`. */
  shownAs: string;
  keyColumn: string | undefined;
  /** The columns of its file left out (ignoreColumns). */
  ignoreColumns?: readonly string[] | undefined;
  identityField: IdentityField | undefined;
  /** What the loader read of them, when it did: they are then not read again but for the rows listed. */
  list?: KeptRecipientList | undefined;
  /** The rows a comparison lists of this side, kept as the loader read it (BaseRowsKept): not read again. */
  rowsKept?: BaseRowsKept | undefined;
}

export interface RecipientEntry {
  /** The key column's value; undefined when recipients are matched by content. */
  key?: string;
  /** The row at the head (added, changed) or at the base (removed). */
  row: number;
  /** The fields whose values differ (changed recipients only). */
  fields?: string[];
  /** Name and address; only with showPersonalData. For a changed recipient, as at the head. */
  personal?: string;
  /** Name and address at the base, for a changed recipient; only with showPersonalData. */
  before?: string;
}

export interface RecipientChanges {
  /** `key`: matched by the key column's value; `content`: by the recipient's content. */
  by: "key" | "content";
  keyColumn: string | undefined;
  base: { shownAs: string; count: number } | undefined;
  head: { shownAs: string; count: number } | undefined;
  added: number;
  removed: number;
  changed: number;
  /** The first MAX_LISTED of each, in row order. */
  addedList: RecipientEntry[];
  removedList: RecipientEntry[];
  changedList: RecipientEntry[];
  /** Why the comparison is partial or was not made. */
  notes: string[];
}

/** The identity of each recipient of a side: by the key column's value (its key) or by its content. */
function byContent(set: DeclaredSet): DeclaredSet {
  const contents = new DeclaredSet();
  // A later recipient of the same content stands for it, at the first one's place, as in a Map.
  for (const { content, row } of set.values()) contents.add({ key: content, content, row });
  return contents;
}

/** The MAX_LISTED lowest rows of many, kept short as they come. */
class FirstRows<T extends { row: number }> {
  count = 0;
  #items: T[] = [];

  add(item: T): void {
    this.count += 1;
    this.#items.push(item);
    if (this.#items.length >= 2 * MAX_LISTED) this.#cut();
  }

  get items(): T[] {
    this.#cut();
    return this.#items;
  }

  #cut(): void {
    this.#items.sort((a, b) => a.row - b.row);
    this.#items.length = Math.min(this.#items.length, MAX_LISTED);
  }
}

/**
 * The base's rows a comparison with the head will list, kept as the loader reads the base (its
 * RecipientsSeen), so that the base is not read again for them: the first MAX_LISTED removed ones,
 * and the base rows of the changed ones with the MAX_LISTED lowest rows at the head. Only under the
 * same key column at both sides (the sets are then compared as they are).
 */
export class BaseRowsKept {
  readonly #head: DeclaredSet;
  readonly #removed = new FirstRows<{ row: number; read: RowFields }>();
  readonly #changed = new FirstRows<{ row: number; before: number; read: RowFields }>();

  constructor(head: DeclaredSet) {
    this.#head = head;
  }

  readonly seen: RecipientsSeen = ({ key, content, row, recipient, keyValue }) => {
    // Most recipients are unchanged: told without making the head's entry.
    if (this.#head.hasWithContent(key, content)) return;
    const atHead = this.#head.get(key);
    const read = { recipient, keyValue };
    if (atHead === undefined) this.#removed.add({ row, read });
    else this.#changed.add({ row: atHead.row, before: row, read });
  };

  /** The rows kept, by their row at the base. */
  rows(): Map<number, RowFields> {
    const rows = new Map<number, RowFields>();
    for (const { row, read } of this.#removed.items) rows.set(row, read);
    for (const { before, read } of this.#changed.items) rows.set(before, read);
    return rows;
  }
}

/**
 * Compares the recipients of a campaign at the base and at the head (either may be missing: a new
 * or a removed campaign). A side whose recipients have problems is left out with a note; the
 * problems themselves are the validation's. Each side's keys, content digests and rows are what
 * the loader read (RecipientsSide.list), or read here the same way: no recipient's fields are held,
 * but those of the rows listed, read again up to the last of them.
 */
export async function compareRecipients(
  base: RecipientsSide | undefined,
  head: RecipientsSide | undefined,
  options: { showPersonalData: boolean },
): Promise<RecipientChanges> {
  const notes: string[] = [];
  const sides = [base, head].filter((side) => side !== undefined);
  const keyColumn = sides[0]?.keyColumn;
  const keyed = keyColumn !== undefined && sides.every((side) => side.keyColumn === keyColumn);
  if (base && head && base.keyColumn !== head.keyColumn) {
    notes.push(
      `the key column changed (${base.keyColumn ?? "none"} → ${head.keyColumn ?? "none"}): ` +
        "recipients are compared by content, and every recipient is sent again under its new key",
    );
  }
  const [baseSet, headSet] = await Promise.all([
    base && read(base, "base", notes),
    head && read(head, "head", notes),
  ]);
  // Without a key column a recipient's key is its content digest: the sets are by content already.
  const identities = (side: RecipientsSide, set: DeclaredSet) =>
    keyed || side.keyColumn === undefined ? set : byContent(set);
  const baseBy = base && baseSet ? identities(base, baseSet) : new DeclaredSet();
  const headBy = head && headSet ? identities(head, headSet) : new DeclaredSet();
  const comparable =
    (base === undefined || baseSet !== undefined) && (head === undefined || headSet !== undefined);

  const added = new FirstRows<{ row: number }>();
  const changed = new FirstRows<{ row: number; before: number }>();
  const removed = new FirstRows<{ row: number }>();
  if (comparable) {
    // Compared as the sets hold them (words, not text): a million keys a side.
    headBy.eachDifference(baseBy, (row, before) => {
      if (before === undefined) added.add({ row });
      else changed.add({ row, before });
    });
    // Keys are unique at each side: the base has as many of the head's keys as the head has not
    // added, so its other ones are removed; none (a list added to, or changed) needs no pass.
    if (baseBy.size > headBy.size - added.count)
      baseBy.eachDifference(headBy, (row, atHead) => {
        if (atHead === undefined) removed.add({ row });
      });
  }
  // The fields (and key values) of the rows listed, each side read again up to the last of them.
  const wanted = (side: RecipientsSide | undefined, rows: number[], needFields: boolean) => {
    if (!side || !(needFields || keyed)) return undefined;
    const kept = side.rowsKept?.rows();
    if (kept && rows.every((row) => kept.has(row))) return kept;
    return listOf(side).fieldsAt(new Set(rows));
  };
  const [headRows, baseRows] = await Promise.all([
    wanted(
      head,
      [...added.items, ...changed.items].map((r) => r.row),
      options.showPersonalData || changed.count > 0,
    ),
    wanted(
      base,
      [...removed.items.map((r) => r.row), ...changed.items.map((r) => r.before)],
      options.showPersonalData || changed.count > 0,
    ),
  ]);
  const entry = (row: number, rows: ReadonlyMap<number, RowFields> | undefined) => {
    const read = rows?.get(row);
    return {
      // A key is user text of any length: shown short, its control characters escaped.
      ...(keyed ? { key: shown(read?.keyValue ?? "", MAX_KEY_LENGTH) } : {}),
      row,
      ...(options.showPersonalData ? { personal: personOf(read?.recipient) } : {}),
    };
  };
  return {
    by: keyed ? "key" : "content",
    keyColumn: keyed ? keyColumn : undefined,
    base: base && baseSet ? { shownAs: base.shownAs, count: baseSet.size } : undefined,
    head: head && headSet ? { shownAs: head.shownAs, count: headSet.size } : undefined,
    added: added.count,
    removed: removed.count,
    changed: changed.count,
    addedList: added.items.map((r) => entry(r.row, headRows)),
    removedList: removed.items.map((r) => entry(r.row, baseRows)),
    changedList: changed.items.map(({ row, before }) => ({
      ...entry(row, headRows),
      fields: changedFields(baseRows?.get(before)?.recipient, headRows?.get(row)?.recipient),
      ...(options.showPersonalData ? { before: personOf(baseRows?.get(before)?.recipient) } : {}),
    })),
    notes,
  };
}

/** How a side's list is read: its identity field, key column and columns left out. */
const optionsOf = (side: RecipientsSide) => ({
  identityField: side.identityField ?? DEFAULT_IDENTITY_FIELD,
  ...(side.keyColumn !== undefined ? { keyColumn: side.keyColumn } : {}),
  ...(side.ignoreColumns !== undefined ? { ignoreColumns: side.ignoreColumns } : {}),
});

/** A side's list, for its rows read again. */
const listOf = (side: RecipientsSide) => recipientList(side.source, optionsOf(side));

/** A side's recipients as the loader read them, or read here; undefined (with a note) when they have problems. */
async function read(
  side: RecipientsSide,
  label: "base" | "head",
  notes: string[],
): Promise<DeclaredSet | undefined> {
  if (side.list?.set) return side.list.set;
  try {
    const { loaded } = await surveyList(side.source, optionsOf(side));
    if (loaded.problemCount > 0) {
      notes.push(`the recipients at the ${label} (${side.shownAs}) have problems; they are not compared`);
      return undefined;
    }
    return loaded.set;
  } catch (error) {
    notes.push(
      `the recipients at the ${label} (${side.shownAs}) cannot be read (${(error as Error).message}); ` +
        "they are not compared",
    );
    return undefined;
  }
}

/** The declared fields whose values differ between two versions of a recipient. */
function changedFields(
  before: DeclaredRecipient | undefined,
  after: DeclaredRecipient | undefined,
): string[] {
  const a = (before ?? {}) as Record<string, string | undefined>;
  const b = (after ?? {}) as Record<string, string | undefined>;
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].filter((name) => (a[name] ?? "") !== (b[name] ?? "")).sort();
}

/** Name and address in one line: personal data, shown only when asked for. */
function personOf(p: DeclaredRecipient | undefined): string {
  if (p === undefined) return "";
  const name = [p.firstName, p.lastName].filter(Boolean).join(" ");
  return [name, p.toOrganization, p.address1, p.address2, p.city, [p.state, p.zipCode].join(" ")]
    .filter((part) => part !== undefined && part.trim() !== "")
    .join(", ");
}
