/**
 * Which recipients a plan adds, removes and changes, as a plan line names them: by the key
 * column's value (a customer id), or without a key column by their row in the list. Never a name or
 * an address: recipients are personal data, and a plan is read in widely visible places (pull
 * requests, CI logs).
 */

import type { DeclaredKey, RecipientIndex } from "../../recipients/index";
import {
  columnKey,
  firstChanges,
  keyValuesByRow,
  type RecipientSource,
  type RecipientSourceOptions,
  type SyncPlan,
} from "../../recipients/index";
import { listed, shown } from "../../text";

/** How many recipients of each kind of change a plan names. */
export const NAMED_PER_KIND = 5;

/** What a key value may show: short, control characters escaped, quoted if it has a comma or a space. */
const KEY_SHOWN_LENGTH = 40;

function shownKey(value: string): string {
  const text = shown(value, KEY_SHOWN_LENGTH);
  return /^[^\s,"]+$/.test(text) ? text : `"${text.replace(/"/g, '\\"')}"`;
}

/**
 * Whether `value` is the key column's value of `recipient`: the loader's own key of that value. A
 * row read otherwise than the loader read it is then named by its row number, never by another
 * recipient's key.
 */
const isKeyOf = (recipient: DeclaredKey, value: string) => columnKey(value) === recipient.key;

/**
 * The plan's lines naming its changes, after its counts: the first NAMED_PER_KIND added and changed
 * recipients, and the count of the removed ones, which the state knows only by a hash. `brief`: the
 * removed ones as a count alone, for a message that says the rest.
 */
export async function namedChanges(
  plan: SyncPlan,
  current: RecipientIndex,
  source: RecipientSource,
  options: RecipientSourceOptions,
  brief = false,
): Promise<string[]> {
  const { added, changed } = firstChanges(plan, current, NAMED_PER_KIND);
  const { keyColumn } = options;
  const lines: string[] = [];
  const removed = (hashed: string) =>
    brief ? `removed: ${plan.removed}` : `removed: ${plan.removed}, not named: the stack records ${hashed}`;
  if (keyColumn === undefined) {
    const where = "inline" in source ? "the inline list" : shown(source.file);
    const rows = listed(
      added.map((r) => String(r.row)),
      plan.added,
    );
    if (plan.added > 0) lines.push(`added: ${plan.added === 1 ? "row" : "rows"} ${rows} of ${where}`);
    if (plan.removed > 0) lines.push(removed("a hash of each recipient, never their details"));
    return lines;
  }
  const rows = new Set([...added, ...changed].map((r) => r.row));
  const values = rows.size > 0 ? await keyValuesByRow(source, keyColumn, rows) : new Map<number, string>();
  const named = (recipients: DeclaredKey[]) =>
    recipients.map((r) => {
      const value = values.get(r.row);
      return value && isKeyOf(r, value) ? shownKey(value) : `row ${r.row}`;
    });
  const column = shown(keyColumn);
  if (plan.added > 0) lines.push(`added (${column}): ${listed(named(added), plan.added)}`);
  if (plan.changed > 0) lines.push(`changed (${column}): ${listed(named(changed), plan.changed)}`);
  if (plan.removed > 0) lines.push(removed(`a hash of each ${column}, not its value`));
  return lines;
}
