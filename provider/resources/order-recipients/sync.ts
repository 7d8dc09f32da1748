/**
 * Brings an order's recipients to the declared set at the service: what is on the order now (from
 * its listing), and the deletes and appends of a plan (recipients/plan.ts, pure), sent in batches
 * the service accepts (api/core/batching.ts).
 */
import type { DirectMailClient } from "../../api/client";
import { runBatches, sendBatches } from "../../api/core/batching";
import { NO_REASON, redactReason } from "../../api/reasons";
import type { OrderSummary } from "../../api/schemas/order";
import { MAX_RECIPIENTS_PER_REQUEST, type OrderRecipient } from "../../api/schemas/recipient";
import { SAMPLE_SIZE } from "../../limits";
import { memoryBudget } from "../../memory-budget";
import type { IdentityField, LoadedRecipient, RecipientSurvey } from "../../recipients/index";
import {
  countsOf,
  identityOf,
  idOf,
  isAccepted,
  listedHash,
  markedUndeliverable,
  matchesListed,
  type PlanCounts,
  planSync,
  RecipientIndex,
  type SyncPlan,
  UNKNOWN_CONTENT,
  wireJson,
} from "../../recipients/index";
import { progress } from "../progress";
import type { DropSample, ImageIssueSample } from "./outputs";

const PAGE_SIZE = 1000;
/**
 * Append requests outstanding at once. The next batch is read and built while one is sent; a second
 * request in flight would keep a third batch in memory for no gain: the service works on one
 * append of an order at a time.
 */
const APPENDS_IN_FLIGHT = 1;
/** Appends of at most one in this many of the list's recipients read their rows alone. */
const PICKED_FRACTION = 4;

export const subject = (orderId: number) => `Recipients of order ${orderId}`;

/** How recipients carry their identity: the field, and whether a key column names them. */
export interface Identity {
  field: IdentityField;
  keyed: boolean;
}

/**
 * The declared recipients: their keys (scanned), and where to read their fields again, as a
 * stream, when they are compared or sent. `changed` is the error for a source edited since.
 */
export interface Declared {
  scanned: RecipientSurvey;
  /** The set's recipients read again (RecipientList.readAgain), in the list's order; with `only`, those rows alone. */
  rows: (only?: ReadonlySet<number>) => AsyncIterable<LoadedRecipient>;
}

export interface SyncOutcome {
  index: RecipientIndex;
  unmanaged: number;
  /** The plan asked for, by its counts: its tables are not held after the sync. */
  plan: PlanCounts;
  appended: number;
  deleted: number;
  dropReasons: Record<string, number>;
  droppedSample: DropSample[];
  imageIssueSample: ImageIssueSample[];
}

/**
 * Sends `items` in batches the service accepts, one after another; the first failure stops the
 * rest and is thrown. `onBatch` runs after each batch that succeeded.
 */
async function inBatches<T, R>(
  items: readonly T[],
  send: (batch: T[]) => Promise<R>,
  onBatch?: (result: R, sent: number) => void,
): Promise<R[]> {
  const report = await runBatches(items, MAX_RECIPIENTS_PER_REQUEST, send, {
    onBatch: (outcome) => {
      if (outcome.status === "ok") onBatch?.(outcome.result, outcome.start + outcome.count);
    },
  });
  const results: R[] = [];
  for (const batch of report.batches) {
    if (batch.status === "failed") throw batch.error;
    if (batch.status === "ok") results.push(batch.result);
  }
  return results;
}

/** Deletes recipients by id in batches; says whether some of them were already gone. */
export async function deleteIds(client: DirectMailClient, orderId: number, ids: number[]): Promise<boolean> {
  const results = await inBatches(ids, (batch) => client.deleteRecipients(orderId, batch));
  return results.some((result) => result.notFoundRecipientIds.length > 0);
}

/** How many recipients the order holds if the record is right. */
export function expectedCount(index: RecipientIndex, unmanaged: number): number {
  let count = unmanaged;
  for (const id of index.ids()) if (idOf(id) > 0) count += 1;
  return count;
}

/**
 * What is on the order now, from a full listing, keeping what is known of dropped recipients.
 * A recipient's content digest is the recorded one if it is the recorded recipient (same id),
 * else the one its identity value carries (UNKNOWN_CONTENT for a key alone under a key
 * column); unless the service lists it otherwise than right after it was appended: then it was
 * changed elsewhere, and its content is UNKNOWN_CONTENT. With `declared`, a recipient of unknown
 * content that the listing shows as its declared row (matchesListed) gets that row's content
 * digest, so that only the others are replaced: those few listed recipients are kept until the
 * declared rows are read again, once, after the listing.
 */
export async function reconcile(
  client: DirectMailClient,
  orderId: number,
  identity: Identity,
  known: RecipientIndex,
  declared?: Declared,
): Promise<{ current: RecipientIndex; unmanaged: number }> {
  const current = new RecipientIndex();
  let unmanaged = 0;
  const toCompare = new Map<string, OrderRecipient>();
  const memory = memoryBudget();
  for await (const recipient of client.iterateRecipients(orderId, { pageSize: PAGE_SIZE })) {
    memory.rowsHandled(1);
    const found = identityOf(recipient, identity.field, identity.keyed);
    if (found === undefined || current.has(found.key)) {
      unmanaged += 1;
      continue;
    }
    const before = known.get(found.key);
    const listed = listedHash(recipient);
    let content = found.content;
    if (before !== undefined) {
      // What is recorded of this very recipient stands (UNKNOWN_CONTENT included).
      if (idOf(before.id) === recipient.id) content = before.content;
      // It carries the content it was recorded with, yet the service lists it otherwise than
      // right after the append: changed elsewhere (in place, or deleted and added again with
      // the same identity value).
      if (content === before.content && before.listed !== 0 && before.listed !== listed)
        content = UNKNOWN_CONTENT;
    }
    if (content === UNKNOWN_CONTENT && declared?.scanned.set.has(found.key))
      toCompare.set(found.key, recipient);
    const marked = before !== undefined && before.id > 0 && !isAccepted(before.id);
    current.set(found.key, {
      id: marked ? markedUndeliverable(recipient.id) : recipient.id,
      content,
      listed,
    });
  }
  if (declared && toCompare.size > 0) {
    for await (const row of declared.rows()) {
      const listed = toCompare.get(row.key);
      const entry = current.get(row.key);
      if (listed && entry && matchesListed(row.recipient, listed, identity.field))
        current.set(row.key, { ...entry, content: row.content });
    }
  }
  for (const [key, entry] of known) if (entry.id === 0 && !current.has(key)) current.set(key, entry);
  return { current, unmanaged };
}

/**
 * The declared recipients found in the listing from page `fromPage` on, carrying the content they
 * are declared with and not in `found` yet: their ids and listed hashes into `found`, by key. Says
 * how many it found.
 */
async function listAppended(
  client: DirectMailClient,
  orderId: number,
  identity: Identity,
  declared: Declared,
  fromPage: number,
  found: RecipientIndex,
): Promise<number> {
  let count = 0;
  const memory = memoryBudget();
  for await (const recipient of client.iterateRecipients(orderId, {
    pageSize: PAGE_SIZE,
    pageNumber: fromPage,
  })) {
    memory.rowsHandled(1);
    const carried = identityOf(recipient, identity.field, identity.keyed);
    if (carried === undefined || found.has(carried.key)) continue;
    if (!declared.scanned.set.hasWithContent(carried.key, carried.content)) continue;
    found.set(carried.key, { id: recipient.id, content: carried.content, listed: listedHash(recipient) });
    count += 1;
  }
  return count;
}

/**
 * Brings the order's recipients to the declared set as `planned` (planSync of the set and what is
 * known to be on the order): deletes the managed recipients no longer declared and the old
 * recipient of each changed key, appends the declared ones not there as declared, and records
 * each appended key's id. Callers reconcile from a listing when the order's recipient count says
 * what is known is not exact, and so does this when a delete finds recipients already gone; it
 * then asks `known()` for what was known (a decoded index is not held through the sync for that
 * rare case). The rows appended are read again from their source as they are sent, a few batches
 * at a time.
 */
export async function sync(
  client: DirectMailClient,
  order: OrderSummary,
  declared: Declared,
  planned: SyncPlan,
  known: () => RecipientIndex,
  knownUnmanaged: number,
  identity: Identity,
): Promise<SyncOutcome> {
  const orderId = order.orderId;
  const asked = countsOf(planned);
  let plan = planned;
  let unmanaged = knownUnmanaged;
  let deleted = plan.removeIds.length;
  if (await deleteIds(client, orderId, plan.removeIds)) {
    // An interrupted run got further than its record (say, a replacement appended but not
    // recorded): read what is really there, so that nothing is appended twice.
    progress(subject(orderId), "some recorded recipients were already gone; reading the order's recipients");
    let current: RecipientIndex;
    ({ current, unmanaged } = await reconcile(client, orderId, identity, known(), declared));
    plan = planSync(declared.scanned.set, current);
    await deleteIds(client, orderId, plan.removeIds);
    deleted += plan.removeIds.length;
  }
  if (deleted > 0) progress(subject(orderId), `deleted ${deleted} recipients (removed or changed)`);

  // The appended recipients are recorded in the plan's own table, after the kept ones (it has
  // room for them, and the plan tells its kept ones by their position): no second table.
  const index = plan.keep;
  const keptCount = index.size;
  const toAppend = plan.appendCount;
  const dropReasons: Record<string, number> = {};
  const droppedSample: DropSample[] = [];
  const imageIssueSample: ImageIssueSample[] = [];
  const reasonByKey = new Map<string, string>();
  const countBefore = expectedCount(index, unmanaged);
  let accepted = 0;
  const { isKept } = plan;
  // Each row is serialized as it is read: a batch holds its rows' JSON as bytes, off the JavaScript
  // heap, not their objects (which, kept while a batch waits, would be old garbage once it is sent).
  // The wire shape is valid by construction (every declared value is text): not validated again.
  async function* rowsToAppend() {
    if (toAppend === 0) return;
    // A few rows of a long list (a change) are picked from its text; parsing every row again
    // for them cost seconds and the garbage of a million rows.
    const only =
      toAppend * PICKED_FRACTION <= declared.scanned.set.size
        ? new Set(Array.from(plan.append, (r) => r.row))
        : undefined;
    for await (const row of declared.rows(only))
      if (!isKept(row.key)) yield { row: row.row, json: Buffer.from(wireJson(row, identity.field)) };
  }
  await sendBatches(
    rowsToAppend(),
    MAX_RECIPIENTS_PER_REQUEST,
    (batch) =>
      client.appendSerializedRecipients(
        orderId,
        batch.map((r) => r.json),
      ),
    {
      inFlight: APPENDS_IN_FLIGHT,
      onBatch: (result, batch, sent) => {
        accepted += result.acceptedRecipients;
        for (const dropped of result.undeliverable.undeliverableRecipients) {
          const found = identityOf(dropped, identity.field, identity.keyed);
          // Redacted here, where reasons come from the service: they quote the rejected value.
          if (found) reasonByKey.set(found.key, redactReason(dropped.reason, dropped));
        }
        for (const withIssues of result.variableImages.recipientsWithIssues) {
          const row = batch[withIssues.recipientIndex]?.row ?? 0;
          for (const issue of withIssues.issues) {
            if (imageIssueSample.length < SAMPLE_SIZE) imageIssueSample.push({ row, ...issue });
          }
        }
        progress(
          subject(orderId),
          `appended ${sent} of ${toAppend} ` +
            `(this batch: ${result.acceptedRecipients} accepted, ${result.droppedRecipients} dropped)`,
        );
      },
    },
  );

  if (toAppend > 0) {
    // New recipients come last in the listing: read from the page where they start, and fall
    // back to the whole listing if some accepted ones are not found there.
    const startPage = Math.floor(countBefore / PAGE_SIZE) + 1;
    // Found ones go straight into the index (the kept ones are there already); dropped ones below.
    let found = await listAppended(client, orderId, identity, declared, startPage, index);
    if (found < accepted) found += await listAppended(client, orderId, identity, declared, 1, index);
    // Every appended recipient found as sent and none dropped: nothing left to record (and no
    // walk of a million appended recipients after a create).
    const allListed = reasonByKey.size === 0 && index.size - keptCount === toAppend;
    for (const r of allListed ? [] : plan.append) {
      const given = reasonByKey.get(r.key);
      // Listed with the content it was appended with: listAppended recorded it as it is.
      if (given === undefined && index.has(r.key)) continue;
      const seen = index.get(r.key);
      const reason = given ?? NO_REASON;
      // Dropped (or kept but marked undeliverable): remembered, so that it is not sent again
      // until its details change.
      index.set(r.key, {
        id: seen === undefined ? 0 : markedUndeliverable(seen.id),
        content: r.content,
        listed: seen?.listed ?? 0,
      });
      dropReasons[reason] = (dropReasons[reason] ?? 0) + 1;
      if (droppedSample.length < SAMPLE_SIZE) droppedSample.push({ row: r.row, reason });
    }
  }
  return {
    index,
    unmanaged,
    plan: asked,
    appended: toAppend,
    deleted,
    dropReasons,
    droppedSample,
    imageIssueSample,
  };
}
