/**
 * The service's order-status rules, as the resources enforce them before the service has to
 * refuse (spec: "States and transitions"). The statuses are the client's (ORDER_STATUS).
 */
import { ORDER_STATUS } from "../api/schemas/order";
import { UserError } from "./user-error";

/** Statuses in which recipients may be appended or deleted and the order changed or checked out. */
const EDITABLE = new Set<string>([ORDER_STATUS.draft, ORDER_STATUS.editsNeeded, ORDER_STATUS.needsEdits]);

/**
 * Statuses in which the order may be deleted. The spec names `Draft` and `Needs Edits` and does not
 * say whether `Needs Edits` is `Edits Needed`; both spellings are treated alike, and the service
 * has the last word (its refusal is reported with the same guidance).
 */
const DELETABLE = EDITABLE;

export function isEditable(status: string): boolean {
  return EDITABLE.has(status);
}

export function isDeletable(status: string): boolean {
  return DELETABLE.has(status);
}

/**
 * True once a checkout went through: `Payment Needed`, `Paid`, `Ready For Production` and any later
 * status. An unknown status counts as checked out, the safe reading for money: nothing is charged
 * again and nothing is changed.
 */
export function isCheckedOut(status: string): boolean {
  return !EDITABLE.has(status);
}

/** Payment was accepted and is still settling. */
export function isSettling(status: string): boolean {
  return status === ORDER_STATUS.paymentNeeded;
}

export const EDITABLE_STATUSES = [...EDITABLE].join(", ");

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
