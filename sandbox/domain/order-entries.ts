import { ENTRY_STATUS_INVALID_ID, ENTRY_STATUS_NOT_FOUND } from "../../provider/api/schemas";
import type { OrderRow } from "../storage/rows";
import type { Store } from "../storage/store";

/**
 * The order a listed id names, or the error status its own entry carries (spec, entries 12 and 13:
 * the analytics and the transaction report).
 */
export function listedOrder(store: Store, accountId: number, id: number | null): OrderRow | string {
  if (id === null || id <= 0) return ENTRY_STATUS_INVALID_ID;
  const order = store.get<OrderRow>(
    "SELECT * FROM orders WHERE id = ? AND account_id = ? AND is_template = 0",
    id,
    accountId,
  );
  return order ?? ENTRY_STATUS_NOT_FOUND;
}

/** A report of one entry per listed order; `orderId` is the order's when one was listed. */
export function perOrder<T>(ids: (number | null)[], orders: T[]) {
  return { orderId: ids.length === 1 ? (ids[0] ?? null) : null, status: "Success", orders };
}
