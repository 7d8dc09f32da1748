/**
 * The provider hooks of `Checkout` (resource.ts): pays for an order, once. Never replaced (a
 * replacement would charge twice), and an order already checked out is recorded, never charged
 * again.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { chargesOf, chargesThisMonth } from "../../api/charges";
import { CheckoutOutcomeUnknownError, InsufficientBalanceError } from "../../api/errors";
import type { CheckoutPreview } from "../../api/schemas/checkout";
import { isCheckedOut, isEditable, isSettling, type OrderSummary } from "../../api/schemas/order";
import { aboveBudget, describeBudget } from "../../budget";
import { aboveMaxTotal, sumCents, usd } from "../../money";
import { checkInputs, inputKeys, isUnknown } from "../check";
import type { ProviderContext, ResourceImplementation } from "../context";
import {
  checkoutNoLongerPlanned,
  checkoutPricesPlannedUpTo,
  noteCheckoutPrice,
  plannedRecipientChange,
} from "../plan-notes";
import { progress, retired } from "../progress";
import { FailedAfterEffect, UserError } from "../user-error";
import { committedThisMonth, releaseCheckout, reserveCheckout } from "./commitments";
import { CheckoutInputs } from "./inputs";
import type { CheckoutOutputFields, CheckoutOutputs } from "./outputs";
import {
  aboveMonthlyBudget,
  balanceTooLow,
  type ChargeSeen,
  chargedAboveMaxTotal,
  describePrice,
  priceAboveMaxTotal,
  pricedRecipients,
  recipientsChangedElsewhere,
} from "./price";

/** Inputs that decide what is charged; after payment they cannot change. */
const MONEY_INPUTS = [
  "orderId",
  "postageType",
  "productionSpeed",
  "holdUntilDate",
  "autoBill",
] as const satisfies readonly (keyof CheckoutInputs)[];

/** Guards only the send: a change of it alone changes no checkout made. */
const SEND_GUARD = "expectedRecipientCount";

const subject = (orderId: number) => `Checkout of order ${orderId}`;

/** How long the order's status is watched after a checkout whose answer was lost. */
const LOST_ANSWER_GRACE_SECONDS = 3;

/** What the service prices and charges: the terms of the checkout. */
const termsOf = (inputs: CheckoutInputs) => ({
  postageType: inputs.postageType,
  productionSpeed: inputs.productionSpeed,
  autoBill: inputs.autoBill,
  ...(inputs.holdUntilDate ? { holdUntilDate: inputs.holdUntilDate } : {}),
});

export function checkoutImplementation(
  ctx: ProviderContext,
): ResourceImplementation<CheckoutInputs, CheckoutOutputs> {
  const orderOrFail = async (orderId: number): Promise<OrderSummary> => {
    const order = await ctx.client().getOrder(orderId);
    if (!order) throw new UserError(`Order ${orderId} does not exist (or was deleted); nothing was charged.`);
    return order;
  };

  /**
   * The service's price for the checkout, from its side-effect-free preview. Refused, nothing
   * charged, above `maxTotal`, and when `autoBill: false` and the balance cannot pay it (402).
   */
  const priced = async (orderId: number, inputs: CheckoutInputs): Promise<CheckoutPreview> => {
    let preview: CheckoutPreview;
    try {
      preview = await ctx.client().previewCheckout(orderId, termsOf(inputs));
    } catch (error) {
      if (error instanceof InsufficientBalanceError) throw balanceTooLow(orderId, error.errors);
      throw error;
    }
    if (aboveMaxTotal(preview.totalCharges, inputs.maxTotal))
      throw priceAboveMaxTotal(orderId, preview.totalCharges, inputs.maxTotal as number);
    return preview;
  };

  /**
   * Holds what the account is committed to this month (read from the service now, with the checkouts
   * this run is sending) and the planned checkouts against the stack's `directmail:monthlyBudget`:
   * refused above it, nothing charged; within it, the figures are said. At the plan, with the checkouts
   * the run planned up to this one (plan-notes.ts); at the send, `price` alone, reserved as it passes.
   */
  const withinBudget = async (orderId: number, price: number, when: "plan" | "send"): Promise<void> => {
    const budget = ctx.settings().monthlyBudget;
    if (budget === undefined) return;
    const account = ctx.client();
    const month = await chargesThisMonth(account);
    // From the reading to the reservation nothing awaits: two checkouts sent at once never both pass.
    const planned = when === "plan" ? sumCents(checkoutPricesPlannedUpTo(orderId)) : price;
    const figures = { ...committedThisMonth(account, month), planned, budget };
    const above = aboveBudget(figures);
    if (when === "send" && !above) reserveCheckout(account, orderId, price);
    if (when === "send" || above) checkoutNoLongerPlanned(orderId);
    if (above) throw aboveMonthlyBudget(orderId, figures, month.since, when);
    const words = describeBudget(
      figures,
      month.since,
      when === "plan" ? "planned by this change" : "this checkout",
    );
    progress(subject(orderId), `within directmail:monthlyBudget: ${words}`);
  };

  /**
   * What the service charged for the order, from its transaction report: the money outputs, and the
   * charge the cap holds against (while the payment settles, the order's price being charged).
   */
  const ledgerCharge = async (orderId: number, orderStatus: string) => {
    const report = await ctx.client().getTransactions([orderId]);
    const entry = report.orders.find((e) => e.orderId === orderId);
    const charges = chargesOf(entry);
    const settled = !isSettling(orderStatus);
    const outputs: Pick<CheckoutOutputFields, "totalCharges" | "totalTax" | "totalCredits"> = settled
      ? { totalCharges: charges.charged, totalTax: null, totalCredits: charges.credited }
      : { totalCharges: null, totalTax: null, totalCredits: null };
    const seen: Omit<ChargeSeen, "priced"> = {
      amount: settled ? charges.charged : (entry?.totalPrice ?? 0),
      settled,
      pieces: entry?.volume ?? 0,
    };
    return { outputs, seen };
  };

  /**
   * The state of a checkout made or recorded, its money read from the service. Above `maxTotal`
   * the hook fails, and the engine records this state all the same: the charge stands.
   */
  const recordedCharge = async (
    outs: Omit<CheckoutOutputs, "totalCharges" | "totalTax" | "totalCredits">,
    priced?: ChargeSeen["priced"],
  ): Promise<CheckoutOutputs> => {
    const { outputs, seen } = await ledgerCharge(outs.orderId, outs.orderStatus);
    const state = { ...outs, ...outputs };
    if (aboveMaxTotal(seen.amount, outs.maxTotal)) {
      const message = chargedAboveMaxTotal(outs.orderId, { ...seen, priced }, outs.maxTotal as number);
      throw new FailedAfterEffect(message, String(outs.orderId), state);
    }
    if (seen.settled)
      progress(
        subject(outs.orderId),
        `payment settled: ${outs.orderStatus}; the service charged ${usd(seen.amount)}`,
      );
    return state;
  };

  /**
   * The price in the plan (`pulumi preview`), for a checkout still to be made on an existing, editable
   * order: the exact price, or the plan fails as the checkout would (above maxTotal, a balance short
   * with autoBill false). Reads only: never charges. Says why when there is no price to give.
   */
  const planPrice = async (inputs: CheckoutInputs, isNew: boolean): Promise<void> => {
    const { orderId } = inputs;
    const say = (message: string) => progress(subject(orderId), message);
    const order = await ctx.client().getOrder(orderId);
    if (!order) {
      say("no price: the order does not exist at the service (deleted elsewhere?); nothing can be charged");
      return;
    }
    if (isCheckedOut(order.orderStatus)) {
      if (isNew)
        say(`the order is already "${order.orderStatus}": nothing is charged, the checkout is recorded`);
      return;
    }
    const declared = plannedRecipientChange(orderId);
    if (declared !== undefined) {
      say(
        `no price yet: this plan changes the order's recipients (${declared} declared), and the service prices ` +
          "the list it holds. maxTotal is enforced when the change is applied, before anything is charged; to " +
          "see the exact price in a plan, apply the recipient change first, then add the checkout",
      );
      return;
    }
    if (order.recipientCount === 0) {
      say("no price yet: the order has no recipients; the price is known once they are applied");
      return;
    }
    const preview = await priced(orderId, inputs);
    say(describePrice(preview, inputs));
    // With every checkout planned before this one in the run: the budget is the account's.
    noteCheckoutPrice(orderId, preview.totalCharges);
    await withinBudget(orderId, preview.totalCharges, "plan");
  };

  /**
   * Waits as the service says (`pollAfterSeconds`, then until `settlementExpectedWithinSeconds` or
   * the user's limit). `Paid` or later: done. Back to `Draft`: the payment failed. Still `Payment
   * Needed` at the end: nothing is lost and no second charge is pending, so that is success too.
   */
  const waitForSettlement = async (
    orderId: number,
    pollAfterSeconds: number,
    expectedWithinSeconds: number,
    limitSeconds: number | undefined,
  ): Promise<string> => {
    const waitSeconds = limitSeconds ?? expectedWithinSeconds;
    const deadline = Date.now() + waitSeconds * 1000;
    progress(subject(orderId), `accepted; waiting up to ${waitSeconds} s for payment to settle`);
    await sleep(Math.min(pollAfterSeconds, waitSeconds) * 1000);
    const interval = Math.max(500, Math.min(pollAfterSeconds * 1000, 5000));
    for (;;) {
      const order = await orderOrFail(orderId);
      if (isEditable(order.orderStatus)) {
        releaseCheckout(ctx.client(), orderId);
        throw new UserError(
          `Payment for order ${orderId} failed: the order is back in "${order.orderStatus}" and nothing is pending. ` +
            "Check the account's payment method (or its balance, with autoBill false), then run `pulumi up` again " +
            "to check out once more.",
        );
      }
      // Settled: said once the charge is read and within maxTotal (recordedCharge).
      if (!isSettling(order.orderStatus)) return order.orderStatus;
      if (Date.now() >= deadline) {
        progress(
          subject(orderId),
          `still "${order.orderStatus}" after ${waitSeconds} s; the payment goes on at the service, nothing is lost and ` +
            "no second charge is pending (`pulumi refresh` shows the outcome later)",
        );
        return order.orderStatus;
      }
      await sleep(Math.min(interval, Math.max(0, deadline - Date.now())));
    }
  };

  /**
   * The order after a checkout whose answer was lost: a request that timed out may still be at work
   * at the service, so a status that still allows a checkout is read again for a few seconds.
   */
  const statusAfterLostAnswer = async (orderId: number): Promise<OrderSummary> => {
    const deadline = Date.now() + LOST_ANSWER_GRACE_SECONDS * 1000;
    for (;;) {
      const order = await orderOrFail(orderId);
      if (isCheckedOut(order.orderStatus) || Date.now() >= deadline) return order;
      await sleep(Math.min(1000, Math.max(0, deadline - Date.now())));
    }
  };

  const checkOut = async (inputs: CheckoutInputs): Promise<CheckoutOutputs> => {
    const { orderId } = inputs;
    const client = ctx.client();
    const order = await orderOrFail(orderId);
    const base = { ...inputs, checkedOutAt: new Date().toISOString() };

    if (isCheckedOut(order.orderStatus)) {
      // Checked out already (an interrupted `up`, or the web application): record it, charge nothing.
      progress(
        subject(orderId),
        `the order is already "${order.orderStatus}"; recording it, nothing is charged`,
      );
      const status = isSettling(order.orderStatus)
        ? await waitForSettlement(orderId, 0, inputs.settlementWaitSeconds ?? 0, inputs.settlementWaitSeconds)
        : order.orderStatus;
      return recordedCharge({ ...base, orderStatus: status, recordedExisting: true });
    }

    // Priced again just before the send, as the plan was: the list or the balance may have changed
    // since. The service holds no price, so the charge is read back after settlement as well.
    const preview = await priced(orderId, inputs);
    const recipients = pricedRecipients(preview) ?? order.recipientCount;
    const { expectedRecipientCount: expected } = inputs;
    if (expected !== undefined) {
      const atService = (await orderOrFail(orderId)).recipientCount;
      if (atService !== expected) throw recipientsChangedElsewhere(orderId, atService, expected);
    }
    // Read again: other checkouts of this run, or of other stacks, were sent or charged since the plan.
    await withinBudget(orderId, preview.totalCharges, "send");
    progress(subject(orderId), `charging ${usd(preview.totalCharges)} (${recipients} recipients)`);

    let accepted: { pollAfterSeconds: number; settlementExpectedWithinSeconds: number };
    try {
      accepted = await client.checkout(orderId, {
        ...termsOf(inputs),
        holdUntilDate: inputs.holdUntilDate ?? null,
      });
    } catch (error) {
      if (!(error instanceof CheckoutOutcomeUnknownError)) {
        // The service refused it: nothing is on its way.
        releaseCheckout(ctx.client(), orderId);
        throw error;
      }
      // The request may have reached the service. Never send it again: the order's status says
      // whether it took effect.
      const after = await statusAfterLostAnswer(orderId);
      if (!isCheckedOut(after.orderStatus)) {
        // Not "nothing is pending": a slow service may still apply the request later. The next
        // `up` reads the order first, so such a checkout is recorded then, never sent again.
        throw new UserError(
          `The checkout of order ${orderId} got no answer (${error.message}). The order is still ` +
            `"${after.orderStatus}" ${LOST_ANSWER_GRACE_SECONDS} s later, so it has not been checked out; run ` +
            "`pulumi up` again: it reads the order's status first, so a checkout that the service applies even " +
            "later is recorded, never charged twice.",
        );
      }
      progress(
        subject(orderId),
        `the answer was lost, but the order is "${after.orderStatus}": the checkout took effect`,
      );
      accepted = { pollAfterSeconds: 1, settlementExpectedWithinSeconds: inputs.settlementWaitSeconds ?? 30 };
    }
    const status = await waitForSettlement(
      orderId,
      accepted.pollAfterSeconds,
      accepted.settlementExpectedWithinSeconds,
      inputs.settlementWaitSeconds,
    );
    return recordedCharge(
      { ...base, orderStatus: status, recordedExisting: false },
      { amount: preview.totalCharges, pieces: pricedRecipients(preview) },
    );
  };

  return {
    async check(olds, news) {
      const checked = checkInputs(CheckoutInputs, news);
      if (checked.failures) return checked;
      const { inputs } = checked;
      const unknown = inputKeys(CheckoutInputs).filter((key) => key !== SEND_GUARD && isUnknown(news[key]));
      if (isUnknown(news.orderId)) {
        // A new order (or its replacement): nothing to price until it exists.
        progress(
          "Checkout of a new order",
          "no price yet, as the order does not exist. Draft first: apply the campaign without checkout, then " +
            "add checkout in a second change, whose plan shows the exact price and enforces maxTotal (docs/review.md)",
        );
      } else if (unknown.length > 0) {
        progress(subject(inputs.orderId), `no price yet: ${unknown.join(", ")} is known only when applied`);
      } else {
        // Terms the state already holds: diff finds no change and nothing is charged, so there is
        // no price to plan and no reason to ask the service (a no-change preview sends nothing).
        const unchanged =
          olds !== undefined && inputKeys(CheckoutInputs).every((key) => olds[key] === inputs[key]);
        if (!unchanged) await planPrice(inputs, olds === undefined);
      }
      return checked;
    },

    async diff(_id, olds, news) {
      // A Checkout in the state was sent: the count it expected before the send changes nothing.
      const changed = inputKeys(CheckoutInputs).filter(
        (key) => key !== SEND_GUARD && (isUnknown(news[key]) || olds[key] !== news[key]),
      );
      if (changed.length === 0) return { changes: false };
      const money = changed.filter((key) => (MONEY_INPUTS as readonly string[]).includes(key));
      if (money.length > 0) {
        const order = await ctx.client().getOrder(olds.orderId);
        if (order && isCheckedOut(order.orderStatus)) {
          const field = money[0] as keyof CheckoutInputs;
          throw new UserError(
            `Order ${olds.orderId} is "${order.orderStatus}": its checkout cannot change ${field} ` +
              `(from ${JSON.stringify(olds[field])} to ${JSON.stringify(news[field])}). A Checkout is never ` +
              "replaced, because a second checkout charges again. Put the previous value back; for another " +
              "mailing, declare a new Order with its own Checkout.",
          );
        }
      }
      // Never `replaces`: an update either records new limits or, on an order whose payment
      // failed, checks out once with the new terms.
      return { changes: true };
    },

    async create(inputs) {
      const outs = await checkOut(inputs);
      return { id: String(inputs.orderId), outs };
    },

    async update(_id, olds, news) {
      const order = await orderOrFail(news.orderId);
      if (isCheckedOut(order.orderStatus) && news.orderId === olds.orderId) {
        // Only the guard or the wait changed (diff refused anything else): record them. The charge
        // recorded is held against the new maxTotal: a charge above it fails every update until
        // maxTotal accepts it.
        const outs = { ...olds, ...news, orderStatus: order.orderStatus };
        if (olds.totalCharges !== null && aboveMaxTotal(olds.totalCharges, news.maxTotal)) {
          const seen = {
            amount: olds.totalCharges,
            settled: true,
            pieces: order.recipientCount,
            earlier: true,
          };
          const message = chargedAboveMaxTotal(news.orderId, seen, news.maxTotal as number);
          throw new FailedAfterEffect(message, String(news.orderId), outs);
        }
        return { outs };
      }
      return { outs: await checkOut(news) };
    },

    async read(id, props) {
      const order = await ctx.client().getOrder(props.orderId ?? Number(id));
      // No order, or an order back in Draft (its payment failed): this checkout no longer exists,
      // so it leaves the state and the next `up` checks out again, once.
      if (!order || isEditable(order.orderStatus)) return {};
      // Once settled, what the service charged. Only totalCharges: the other money outputs of a
      // stack deployed before charges were read stay as they were recorded (docs/resources.md).
      const live = { ...props, orderStatus: order.orderStatus };
      if (!isSettling(order.orderStatus))
        live.totalCharges = (await ledgerCharge(order.orderId, order.orderStatus)).outputs.totalCharges;
      return { id, props: live };
    },

    async delete(_id, props) {
      const order = await ctx.client().getOrder(props.orderId);
      // No order, or one back in Draft (its payment failed): nothing was paid, nothing to say.
      if (!order || isEditable(order.orderStatus)) return;
      retired(
        props.orderId,
        order.orderStatus,
        "its checkout stays at the service (nothing is refunded) and leaves this stack",
      );
    },
  };
}
