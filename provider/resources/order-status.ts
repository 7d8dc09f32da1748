/**
 * The service's order-status rules, as the resources enforce them before the service has to
 * refuse (spec: "States and transitions"). The statuses and their predicates are the client's
 * (api/schemas/order.ts).
 */
import { EDITABLE_ORDER_STATUSES, isEditable } from "../api/schemas/order";
import { UserError } from "./user-error";

/**
 * Statuses in which the order may be deleted. The spec names `Draft` and `Needs Edits` and does not
 * say whether `Needs Edits` is `Edits Needed`; both spellings are treated alike, and the service
 * has the last word (its refusal is reported with the same guidance).
 */
export function isDeletable(status: string): boolean {
  return isEditable(status);
}

export const EDITABLE_STATUSES = EDITABLE_ORDER_STATUSES.join(", ");

/**
 * The refusal of a change that the order's status no longer allows. `change` says what cannot
 * happen (`its recipients cannot change (declared 2, now 3)`), `changes` what the service changes
 * only while the order is editable (`orders`, `recipients`), `why` an optional further reason, and
 * `fix` what the user can do instead.
 */
export function notEditable(
  order: { orderId: number | string; orderStatus: string },
  refusal: { change: string; changes: string; why?: string; fix: string },
): UserError {
  const why = refusal.why ? `, and ${refusal.why}` : "";
  return new UserError(
    `Order ${order.orderId} is "${order.orderStatus}": ${refusal.change}, because the service changes ` +
      `${refusal.changes} only in ${EDITABLE_STATUSES}${why}. ${refusal.fix}`,
  );
}
