/**
 * What an update does to an order's recipients, worked out from the declared set and the index of
 * what is on the order, before anything is sent.
 */
import { type IndexEntry, idOf, RecipientIndex, UNKNOWN_CONTENT } from "./identity/index-codec";
import type { DeclaredKey, DeclaredSet } from "./identity/table";

export interface SyncPlan {
  /**
   * Recorded recipients that stay as they are (same key, same content), in a table with room for
   * every declared recipient: the sync records what it appends in it, after them (see isKept).
   */
  keep: RecipientIndex;
  /** Whether the plan keeps `key`: one of keep's entries as planned, whatever was added after. */
  isKept: (key: string) => boolean;
  /** Recipient ids to delete: keys no longer declared, and the old recipient of a changed key. */
  removeIds: number[];
  /**
   * Declared recipients to append, in the list's order: new keys, and the new recipient of a
   * changed key (every declared one not kept). Read from the declared set on each iteration.
   */
  append: Iterable<DeclaredKey>;
  appendCount: number;
  added: number;
  removed: number;
  /** Keys declared and recorded with another content digest: replaced (deleted, then appended). */
  changed: number;
  /** Keys declared and recorded with UNKNOWN_CONTENT: replaced unless a listing settled them first. */
  unknown: number;
}

export function planSync(declared: DeclaredSet, current: RecipientIndex): SyncPlan {
  // Made at the size the sync's index may reach, the declared recipients: a table that grows
  // copies itself (see KeyTable).
  const keep = new RecipientIndex(undefined, declared.size);
  let kept = 0;
  const plan: SyncPlan = {
    keep,
    isKept: (key) => keep.isAmongFirst(key, kept),
    removeIds: [],
    append: {
      *[Symbol.iterator]() {
        yield* declared.valuesExcept((hi, lo) => keep.isAmongFirstWords(hi, lo, kept));
      },
    },
    appendCount: 0,
    added: 0,
    removed: 0,
    changed: 0,
    unknown: 0,
  };
  const remove = (entry: IndexEntry) => {
    if (idOf(entry.id) > 0) plan.removeIds.push(idOf(entry.id));
  };
  for (const [key, entry] of current) {
    const wanted = declared.get(key);
    if (wanted === undefined) {
      plan.removed += 1;
      remove(entry);
    } else if (wanted.content === entry.content) {
      // Dropped ones too (id 0): they are not sent again until their details change.
      plan.keep.set(key, entry);
    } else {
      if (entry.content === UNKNOWN_CONTENT) plan.unknown += 1;
      else plan.changed += 1;
      remove(entry);
    }
  }
  kept = keep.size;
  // Counted, not iterated: every declared recipient not kept is appended, and those of them that
  // are recorded at all were counted as changed or unknown above.
  plan.appendCount = declared.size - kept;
  plan.added = plan.appendCount - plan.changed - plan.unknown;
  return plan;
}

/**
 * The first `limit` declared recipients that the plan adds and the first `limit` it changes, in the
 * list's order. `current` is the index the plan was made from.
 */
export function firstChanges(
  plan: SyncPlan,
  current: RecipientIndex,
  limit: number,
): { added: DeclaredKey[]; changed: DeclaredKey[] } {
  const added: DeclaredKey[] = [];
  const changed: DeclaredKey[] = [];
  for (const recipient of plan.append) {
    if (added.length >= limit && changed.length >= limit) break;
    const recorded = current.get(recipient.key);
    const kind = recorded === undefined ? added : recorded.content === UNKNOWN_CONTENT ? undefined : changed;
    if (kind && kind.length < limit) kind.push(recipient);
  }
  return { added, changed };
}

/** A plan's counts, without its tables (kept where the tables would hold tens of MB for nothing). */
export type PlanCounts = Pick<SyncPlan, "added" | "removed" | "changed" | "unknown">;

export const countsOf = ({ added, removed, changed, unknown }: PlanCounts): PlanCounts => ({
  added,
  removed,
  changed,
  unknown,
});

/** Whether the plan changes more than recipients recorded with UNKNOWN_CONTENT. */
export const changesKnown = (plan: PlanCounts) => plan.added + plan.removed + plan.changed > 0;

/** The plan in words, counts only (a plan line never names a recipient). */
export function describePlan(plan: PlanCounts): string {
  const parts = [`${plan.added} added`, `${plan.removed} removed`, `${plan.changed} changed`];
  if (plan.unknown > 0) parts.push(`${plan.unknown} whose content was not recorded`);
  return parts.join(", ");
}
