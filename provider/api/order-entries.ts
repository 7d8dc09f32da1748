/**
 * Entries 12 (analytics) and 13 (transactions) of many orders in few requests: each takes a list
 * of order ids and answers one entry per listed id, so a stack's orders are read a few hundred a
 * request, never one request an order. The one place that says how many ids a request carries.
 */
import type { DirectMailClient } from "./client";
import type { OrderAnalyticsEntry } from "./schemas/analytics";
import type { OrderTransactionEntry } from "./schemas/transactions";

/** Order ids per analytics or transactions request: the list travels in the query string. */
export const ORDER_IDS_PER_REQUEST = 200;

/** `ids` in the lists each request carries: at most ORDER_IDS_PER_REQUEST, each id once. */
export function orderIdBatches(ids: Iterable<number>): number[][] {
  const unique = [...new Set(ids)];
  const batches: number[][] = [];
  for (let i = 0; i < unique.length; i += ORDER_IDS_PER_REQUEST)
    batches.push(unique.slice(i, i + ORDER_IDS_PER_REQUEST));
  return batches;
}

/** The entries of one report by order id (an entry whose order id the service left out is not kept). */
function byOrderId<E extends { orderId: number | null }>(entries: readonly E[], into: Map<number, E>) {
  for (const entry of entries) if (entry.orderId !== null) into.set(entry.orderId, entry);
}

/** Each order's analytics entry, by order id: one request a batch of ids, the batches one after another. */
export async function analyticsOf(
  client: DirectMailClient,
  ids: Iterable<number>,
): Promise<Map<number, OrderAnalyticsEntry>> {
  const entries = new Map<number, OrderAnalyticsEntry>();
  for (const batch of orderIdBatches(ids)) byOrderId((await client.getAnalytics(batch)).orders, entries);
  return entries;
}

/** Each order's analytics and transactions entries, by order id: the two requests of a batch at once. */
export async function orderEntriesOf(
  client: DirectMailClient,
  ids: Iterable<number>,
): Promise<{
  analytics: Map<number, OrderAnalyticsEntry>;
  transactions: Map<number, OrderTransactionEntry>;
}> {
  const analytics = new Map<number, OrderAnalyticsEntry>();
  const transactions = new Map<number, OrderTransactionEntry>();
  for (const batch of orderIdBatches(ids)) {
    const [a, t] = await Promise.all([client.getAnalytics(batch), client.getTransactions(batch)]);
    byOrderId(a.orders, analytics);
    byOrderId(t.orders, transactions);
  }
  return { analytics, transactions };
}
