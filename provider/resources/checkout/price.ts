/**
 * The price of a checkout in words, and the refusals that depend on it: one place for what the plan
 * (Checkout's check) and the checkout itself (create) say about money.
 */
import type { CheckoutPreview } from "../../api/schemas/checkout";
import { type BudgetFigures, describeBudget } from "../../budget";
import { usd } from "../../money";
import { UserError } from "../user-error";
import type { CheckoutInputs } from "./inputs";

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
export function priceAboveMaxTotal(orderId: number, price: number, maxTotal: number): UserError {
  return new UserError(
    `Checkout of order ${orderId} would charge ${usd(price)}, more than maxTotal ${usd(maxTotal)}; nothing was ` +
      "charged. Raise maxTotal if that price is intended, or lower the price: fewer recipients, Standard postage or " +
      "Normal production.",
  );
}

/**
 * The refusal of a checkout that would take the account above `directmail:monthlyBudget`: in the
 * plan (with every checkout the change plans) and just before the send (with this one alone).
 */
export function aboveMonthlyBudget(
  orderId: number,
  figures: BudgetFigures,
  since: Date,
  when: "plan" | "send",
): UserError {
  const planned = when === "plan" ? "planned by this change" : "this checkout";
  const what = when === "plan" ? "would take" : "was not sent: it would take";
  return new UserError(
    `Checkout of order ${orderId} ${what} the account above directmail:monthlyBudget: ` +
      `${describeBudget(figures, since, planned)}; nothing was charged. Raise directmail:monthlyBudget if ` +
      "that spending is intended, or check out fewer orders or fewer recipients this month.",
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

/**
 * The refusal, just before the checkout is sent, of an order whose recipients are not the ones the
 * stack applied: someone added or removed some elsewhere, and the price would be theirs.
 */
export function recipientsChangedElsewhere(orderId: number, atService: number, expected: number): UserError {
  return new UserError(
    `Checkout of order ${orderId} was not sent: the order holds ${atService} recipients at the service, and ` +
      `this stack's OrderRecipients holds ${expected}; nothing was charged. Recipients were added or removed ` +
      "outside this stack (another stack, the web application) since the list was applied. Remove them at the " +
      "service, or run `pulumi refresh` to take them into the stack and then `pulumi up`, whose plan prices them.",
  );
}

/** What the service charged for a checkout, beside what was priced just before it was sent. */
export interface ChargeSeen {
  /** Charged (settled), or being charged (the order's price while the payment settles). */
  amount: number;
  settled: boolean;
  /** The pieces the service charged for. */
  pieces: number;
  /** The price and pieces of the preview just before the send; undefined when this run sent nothing. */
  priced?: { amount: number; pieces: number | undefined } | undefined;
  /** The charge is the one an earlier run recorded. */
  earlier?: boolean | undefined;
}

/** Why a charge differs from the price asked just before the checkout was sent. */
function whatChanged(charge: ChargeSeen): string {
  const { priced } = charge;
  if (charge.earlier) return "the state recorded that charge when the order was checked out";
  if (priced === undefined)
    return "this run did not send the checkout: the order was checked out elsewhere, or by an interrupted run";
  const before = `it was priced ${usd(priced.amount)} for ${priced.pieces ?? "its"} recipients just before it was sent`;
  return priced.pieces !== undefined && priced.pieces !== charge.pieces
    ? `${before}, and the service charged for ${charge.pieces}: recipients were added to the order while the ` +
        "checkout was on its way (the service holds no price)"
    : `${before}: the service's price changed while the checkout was on its way (the service holds no price)`;
}

/**
 * The failure of a checkout that the service charged above `maxTotal`: the charge stands, so the
 * state records it, and the update fails so that it is never taken for a success.
 */
export function chargedAboveMaxTotal(orderId: number, charge: ChargeSeen, maxTotal: number): string {
  const charged = charge.settled ? `charged ${usd(charge.amount)}` : `is charging ${usd(charge.amount)}`;
  return (
    `Checkout of order ${orderId} ${charged} for ${charge.pieces} pieces, more than maxTotal ${usd(maxTotal)}: ` +
    `${whatChanged(charge)}. The charge stands at the service and the stack records it; this update fails ` +
    `until maxTotal is raised to ${usd(charge.amount)} to accept it. Ask the service about a refund if it is ` +
    "not intended."
  );
}
