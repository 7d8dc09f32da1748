/**
 * Analytics of many orders in few requests: the engine refreshes resources concurrently, each Order
 * asking for its own order's analytics; the asks of one moment (one turn of the event loop plus a
 * few milliseconds) go to the service as one request (entry 12 takes a list of ids), so a refresh
 * of a hundred campaigns makes one analytics call, not a hundred.
 */
import type { DirectMailClient } from "../api/client";
import { ORDER_IDS_PER_REQUEST } from "../api/order-entries";
import type { OrderAnalyticsEntry } from "../api/schemas/analytics";

/** How long asks are gathered before the request goes. */
const GATHER_MS = 10;

interface Pending {
  orderId: number;
  resolve(entry: OrderAnalyticsEntry | undefined): void;
  reject(error: unknown): void;
}

/** A function that reads one order's analytics, batched with the other reads of the same moment. */
export function analyticsBatcher(
  client: () => DirectMailClient,
): (orderId: number) => Promise<OrderAnalyticsEntry | undefined> {
  let pending: Pending[] = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    const asked = pending;
    pending = [];
    for (let i = 0; i < asked.length; i += ORDER_IDS_PER_REQUEST) {
      const batch = asked.slice(i, i + ORDER_IDS_PER_REQUEST);
      const ids = [...new Set(batch.map((p) => p.orderId))];
      client()
        .getAnalytics(ids)
        .then(
          ({ orders }) => {
            const byId = new Map(orders.map((entry) => [entry.orderId, entry]));
            for (const p of batch) p.resolve(byId.get(p.orderId));
          },
          (error: unknown) => {
            for (const p of batch) p.reject(error);
          },
        );
    }
  };

  return (orderId) =>
    new Promise((resolve, reject) => {
      pending.push({ orderId, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setTimeout(flush, GATHER_MS);
      }
    });
}
