/**
 * What one resource's plan tells another's within one engine run. One provider process serves every
 * dynamic resource of a run, and the engine checks a Checkout only once the recipients it depends on
 * (a Campaign's do) were planned, or applied during `up`. So when the plan changes an order's
 * recipients, the Checkout of that order knows that the service's price of the current list is not
 * the price it will charge.
 */

/** Orders whose recipient list the plan changes, with the count of recipients declared. */
const recipientChanges = new Map<number, number>();

/** OrderRecipients' diff: the plan changes this order's recipients. */
export function noteRecipientChange(orderId: number, declaredCount: number): void {
  recipientChanges.set(orderId, declaredCount);
}

/** OrderRecipients' create or update: the order's recipients are now as declared. */
export function recipientChangeApplied(orderId: number): void {
  recipientChanges.delete(orderId);
}

/** The count of recipients declared for an order whose list the plan changes; undefined if it does not. */
export function plannedRecipientChange(orderId: number): number | undefined {
  return recipientChanges.get(orderId);
}

/** The prices of the checkouts this run plans, by order: what the monthly budget adds to this month's charges. */
const plannedCheckouts = new Map<number, number>();

/** Checkout's plan priced the checkout of this order. */
export function noteCheckoutPrice(orderId: number, price: number): void {
  plannedCheckouts.set(orderId, price);
}

/**
 * The checkout of this order is no longer planned: it is being sent (from now on the account's
 * commitments count it), or the budget refused it (this run never sends it).
 */
export function checkoutNoLongerPlanned(orderId: number): void {
  plannedCheckouts.delete(orderId);
}

/**
 * The prices of the checkouts the run planned before this order's, and this order's, none of them
 * sent yet. The checkouts planned after it are held against the budget with this one: of two that
 * do not both fit, the later is refused, never both.
 */
export function checkoutPricesPlannedUpTo(orderId: number): number[] {
  const prices: number[] = [];
  for (const [planned, price] of plannedCheckouts) {
    prices.push(price);
    if (planned === orderId) break;
  }
  return prices;
}
