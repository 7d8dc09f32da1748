/**
 * The price of a checkout in words, and the refusals that depend on it: one place for what the plan
 * (Checkout's check) and the checkout itself (create) say about money.
 */
import type { CheckoutPreview } from "../../api/schemas/checkout";
import { UserError } from "../user-error";
import type { CheckoutInputs } from "./inputs";

/** An amount of the service's currency, US dollars: `1,234.50 USD`. */
export function usd(amount: number): string {
  return `${amount.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })} USD`;
}

/**
 * How many recipients the preview prices: the largest quantity of its line items (the product's
 * line counts every mailable recipient; postage and speed lines count the same pieces).
 */
export function pricedRecipients(preview: CheckoutPreview): number | undefined {
  const quantities = preview.lineItems.map((line) => line.quantity);
  return quantities.length > 0 ? Math.max(...quantities) : undefined;
}

/**
 * The price line of a plan: amount, recipients, postage and speed, what the account's balance
 * covers and what goes to the payment method, and the guard.
 */
export function describePrice(preview: CheckoutPreview, terms: CheckoutInputs): string {
  const recipients = pricedRecipients(preview);
  const tax = preview.totalTax > 0 ? `, including ${usd(preview.totalTax)} tax` : "";
  const covered = Math.min(preview.totalCredits, preview.totalCharges);
  const guard = terms.maxTotal === undefined ? "no maxTotal set" : `within maxTotal ${usd(terms.maxTotal)}`;
  return (
    `price ${usd(preview.totalCharges)}${tax} for ${recipients ?? "the"} recipients ` +
    `(${terms.postageType} postage, ${terms.productionSpeed} production); ` +
    `the balance covers ${usd(covered)}, the payment method is charged ${usd(preview.totalCharges - covered)}; ` +
    guard
  );
}

/** The refusal of a price above `maxTotal`, at plan time and before the checkout alike. */
export function aboveMaxTotal(orderId: number, price: number, maxTotal: number): UserError {
  return new UserError(
    `Checkout of order ${orderId} would charge ${usd(price)}, more than maxTotal ${usd(maxTotal)}; nothing was ` +
      "charged. Raise maxTotal if that price is intended, or lower the price: fewer recipients, Standard postage or " +
      "Normal production.",
  );
}

/** The refusal of a checkout with `autoBill: false` that the balance cannot pay (402 on the preview). */
export function balanceTooLow(orderId: number, serviceSaid: readonly string[]): UserError {
  const said = serviceSaid.length > 0 ? ` (the service: ${serviceSaid.join("; ")})` : "";
  return new UserError(
    `Checkout of order ${orderId} has autoBill false, and the account's balance does not cover the price${said}; ` +
      "nothing was charged. Add funds to the account, or set autoBill to true so that the payment method pays " +
      "what the balance does not cover.",
  );
}
