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
import type { IdentityField } from "../../provider/index";
import { keyValuesByRow } from "../../provider/resources/recipients/key-values";
import {
  type LoadedRecipient,
  type LoadedRecipients,
  loadRecipients,
  type RecipientSource,
} from "../../provider/resources/recipients/source";
import { shown } from "../../provider/text";

/** The identity field a campaign uses when it names none (OrderRecipients' default). */
const DEFAULT_IDENTITY_FIELD: IdentityField = "custom6";

/** Entries listed per kind of change in review.json (the counts are always whole). */
export const MAX_LISTED = 1000;

/** Characters of a key value shown; a longer one is cut with "…". */
const MAX_KEY_LENGTH = 200;

export interface RecipientsSide {
  source: RecipientSource;
  /** How the source is shown: the file relative to the project, or `inline`. */
  shownAs: string;
  keyColumn: string | undefined;
  identityField: IdentityField | undefined;
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

/**
 * Compares the recipients of a campaign at the base and at the head (either may be missing: a new
 * or a removed campaign). A side whose recipients have problems is left out with a note; the
 * problems themselves are the validation's.
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
  const [baseLoaded, headLoaded] = await Promise.all([
    base && read(base, keyed, "base", notes),
    head && read(head, keyed, "head", notes),
  ]);
  const identity = (r: LoadedRecipient) => (keyed ? r.key : r.content);
  const baseBy = new Map([...(baseLoaded?.loaded.byKey.values() ?? [])].map((r) => [identity(r), r]));
  const headBy = new Map([...(headLoaded?.loaded.byKey.values() ?? [])].map((r) => [identity(r), r]));
  const comparable =
    (base === undefined || baseLoaded !== undefined) && (head === undefined || headLoaded !== undefined);

  const added: LoadedRecipient[] = [];
  const changed: [LoadedRecipient, LoadedRecipient][] = [];
  const removed: LoadedRecipient[] = [];
  if (comparable) {
    for (const [id, recipient] of headBy) {
      const before = baseBy.get(id);
      if (!before) added.push(recipient);
      else if (before.content !== recipient.content) changed.push([before, recipient]);
    }
    for (const [id, recipient] of baseBy) if (!headBy.has(id)) removed.push(recipient);
  }
  const byRow = (a: { row: number }, b: { row: number }) => a.row - b.row;
  const entry = (r: LoadedRecipient, keys: Map<number, string> | undefined): RecipientEntry => ({
    // A key is user text of any length: shown short, its control characters escaped.
    ...(keys ? { key: shown(keys.get(r.row) ?? "", MAX_KEY_LENGTH) } : {}),
    row: r.row,
    ...(options.showPersonalData ? { personal: personOf(r) } : {}),
  });
  return {
    by: keyed ? "key" : "content",
    keyColumn: keyed ? keyColumn : undefined,
    base: base && baseLoaded ? { shownAs: base.shownAs, count: baseLoaded.loaded.byKey.size } : undefined,
    head: head && headLoaded ? { shownAs: head.shownAs, count: headLoaded.loaded.byKey.size } : undefined,
    added: added.length,
    removed: removed.length,
    changed: changed.length,
    addedList: added
      .sort(byRow)
      .slice(0, MAX_LISTED)
      .map((r) => entry(r, headLoaded?.keys)),
    removedList: removed
      .sort(byRow)
      .slice(0, MAX_LISTED)
      .map((r) => entry(r, baseLoaded?.keys)),
    changedList: changed
      .sort(([, a], [, b]) => a.row - b.row)
      .slice(0, MAX_LISTED)
      .map(([before, after]) => ({
        ...entry(after, headLoaded?.keys),
        fields: changedFields(before, after),
        ...(options.showPersonalData ? { before: personOf(before) } : {}),
      })),
    notes,
  };
}

async function read(
  side: RecipientsSide,
  keyed: boolean,
  label: "base" | "head",
  notes: string[],
): Promise<{ loaded: LoadedRecipients; keys: Map<number, string> | undefined } | undefined> {
  try {
    const loaded = await loadRecipients(side.source, {
      identityField: side.identityField ?? DEFAULT_IDENTITY_FIELD,
      ...(side.keyColumn !== undefined ? { keyColumn: side.keyColumn } : {}),
    });
    if (loaded.problemCount > 0) {
      notes.push(`the recipients at the ${label} (${side.shownAs}) have problems; they are not compared`);
      return undefined;
    }
    const keys =
      keyed && side.keyColumn !== undefined ? await keyValuesByRow(side.source, side.keyColumn) : undefined;
    return { loaded, keys };
  } catch (error) {
    notes.push(
      `the recipients at the ${label} (${side.shownAs}) cannot be read (${(error as Error).message}); ` +
        "they are not compared",
    );
    return undefined;
  }
}

/** The declared fields whose values differ between two versions of a recipient. */
function changedFields(before: LoadedRecipient, after: LoadedRecipient): string[] {
  const a = before.recipient as Record<string, string | undefined>;
  const b = after.recipient as Record<string, string | undefined>;
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].filter((name) => (a[name] ?? "") !== (b[name] ?? "")).sort();
}

/** Name and address in one line: personal data, shown only when asked for. */
function personOf(r: LoadedRecipient): string {
  const p = r.recipient;
  const name = [p.firstName, p.lastName].filter(Boolean).join(" ");
  return [name, p.toOrganization, p.address1, p.address2, p.city, [p.state, p.zipCode].join(" ")]
    .filter((part) => part !== undefined && part.trim() !== "")
    .join(", ");
}
