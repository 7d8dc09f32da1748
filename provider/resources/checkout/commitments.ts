/**
 * What the account is committed to this month, as the checkouts of one engine run see it: the
 * service's charges and unsettled checkouts (api/charges.ts), and the checkouts this run is sending.
 *
 * One provider process serves every resource of a run, and the engine creates independent Checkouts
 * at the same time. Between the budget check and the moment the service shows the order in
 * `Payment Needed`, a checkout is on its way: its price is reserved here, at the same synchronous
 * step as the check that passed it, so that a second checkout read at the same time sees it. A
 * reservation counts until the service counts the order itself (checked out), and is released only
 * when the checkout is certainly not charged.
 */
import type { MonthCharges } from "../../api/charges";
import { sumCents } from "../../money";

/**
 * The price of each checkout this run sent or is sending, by account (its API client: one per base
 * URL and key) and order.
 */
const reserved = new WeakMap<object, Map<number, number>>();

function reservedOf(account: object): Map<number, number> {
  const orders = reserved.get(account) ?? new Map<number, number>();
  reserved.set(account, orders);
  return orders;
}

/**
 * This month's committed money: the service's figures, and the reservations of orders the service
 * does not show checked out yet. Synchronous on purpose: call it right after the service was read,
 * and reserve (below) in the same step, with no `await` between.
 */
export function committedThisMonth(
  account: object,
  month: MonthCharges,
): { spent: number; unsettled: number } {
  const onTheirWay = [...reservedOf(account)]
    .filter(([orderId]) => !month.checkedOut.has(orderId))
    .map(([, p]) => p);
  const unsettled = sumCents([month.unsettled, ...onTheirWay]);
  return { spent: sumCents([month.charged, unsettled]), unsettled };
}

/** The checkout of this order passed the budget and is being sent: its price counts from now on. */
export function reserveCheckout(account: object, orderId: number, price: number): void {
  reservedOf(account).set(orderId, price);
}

/** The checkout of this order is certainly not charged (refused by the service, or its payment failed). */
export function releaseCheckout(account: object, orderId: number): void {
  reserved.get(account)?.delete(orderId);
}
