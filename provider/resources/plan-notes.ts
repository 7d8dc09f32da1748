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

/** Checkout's create is sending it: from now on the service's charges count it, the plan no longer. */
export function checkoutSending(orderId: number): void {
  plannedCheckouts.delete(orderId);
}

/** The prices of every checkout the run plans and has not sent yet. */
export function plannedCheckoutPrices(): number[] {
  return [...plannedCheckouts.values()];
}
