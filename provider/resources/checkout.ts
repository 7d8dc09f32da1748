/**
 * `Checkout`: pays for an order, once. Never replaced (a replacement would charge twice), and an
 * order already checked out is recorded, never charged again.
 */
import { setTimeout as sleep } from "node:timers/promises";
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { CheckoutOutcomeUnknownError } from "../api/errors";
import { PostageType, ProductionSpeed } from "../api/schemas/checkout";
import type { OrderSummary } from "../api/schemas/order";
import { checkInputs, isUnknown } from "./check";
import type { ProviderContext, ResourceImplementation } from "./implementation";
import { isCheckedOut, isEditable } from "./order-status";
import { progress, retired } from "./progress";
import { thinProvider } from "./thin-provider";
import { UserError } from "./user-error";

export interface CheckoutArgs {
  orderId: pulumi.Input<number>;
  /** `Standard` (in the base price) or `FirstClass` (per-piece surcharge). */
  postageType: pulumi.Input<"Standard" | "FirstClass">;
  /** `Normal`, `ExpeditedFaster` or `ExpeditedFastest` (expedited costs more). */
  productionSpeed: pulumi.Input<"Normal" | "ExpeditedFaster" | "ExpeditedFastest">;
  /** Hold before production until this ISO 8601 date-time (later than the production estimate). */
  holdUntilDate?: pulumi.Input<string>;
  /** Default true: the balance first, then the default payment method. false: the balance must cover it. */
  autoBill?: pulumi.Input<boolean>;
  /** Spending guard: refuse, charging nothing, when the checkout would charge more than this. */
  maxTotal?: pulumi.Input<number>;
  /** How long to wait for payment to settle; default the service's own expectation. */
  settlementWaitSeconds?: pulumi.Input<number>;
}

export const CheckoutInputs = z.strictObject({
  orderId: z.int("orderId must be a whole number: the id of an order").positive(),
  postageType: PostageType,
  productionSpeed: ProductionSpeed,
  holdUntilDate: z.iso
    .datetime({
      offset: true,
      error: "holdUntilDate must be an ISO 8601 date-time such as 2027-01-15T09:00:00Z",
    })
    .optional(),
  autoBill: z.boolean("autoBill must be true or false").default(true),
  maxTotal: z.number("maxTotal must be a number").nonnegative("maxTotal must not be negative").optional(),
  settlementWaitSeconds: z
    .int("settlementWaitSeconds must be a whole number of seconds")
    .min(0)
    .max(3600, "settlementWaitSeconds is at most 3600; the order settles whether or not pulumi waits")
    .optional(),
});
export type CheckoutInputs = z.infer<typeof CheckoutInputs>;

/** Inputs that decide what is charged; after payment they cannot change. */
const MONEY_INPUTS = ["orderId", "postageType", "productionSpeed", "holdUntilDate", "autoBill"] as const;

export interface CheckoutOutputs extends CheckoutInputs {
  /** The order's status when last read: `Paid`, or `Payment Needed` while settlement goes on. */
  orderStatus: string;
  /** Charges the preview announced before the checkout (absent when an existing checkout was recorded). */
  totalCharges: number | null;
  totalTax: number | null;
  totalCredits: number | null;
  /** True when the order was already checked out and this resource only recorded it. */
  recordedExisting: boolean;
  checkedOutAt: string;
}

export class Checkout extends pulumi.dynamic.Resource {
  declare readonly orderId: pulumi.Output<number>;
  declare readonly orderStatus: pulumi.Output<string>;
  declare readonly totalCharges: pulumi.Output<number | null>;
  declare readonly totalTax: pulumi.Output<number | null>;
  declare readonly totalCredits: pulumi.Output<number | null>;
  declare readonly recordedExisting: pulumi.Output<boolean>;
  declare readonly checkedOutAt: pulumi.Output<string>;

  constructor(name: string, args: CheckoutArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      thinProvider("Checkout"),
      name,
      {
        ...args,
        orderStatus: undefined,
        totalCharges: undefined,
        totalTax: undefined,
        totalCredits: undefined,
        recordedExisting: undefined,
        checkedOutAt: undefined,
      },
      opts,
      "directmail",
      "Checkout",
    );
  }
}

const subject = (orderId: number) => `Checkout of order ${orderId}`;

export function checkoutImplementation(ctx: ProviderContext): ResourceImplementation {
  const orderOrFail = async (orderId: number): Promise<OrderSummary> => {
    const order = await ctx.client().getOrder(orderId);
    if (!order) throw new UserError(`Order ${orderId} does not exist (or was deleted); nothing was charged.`);
    return order;
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
        throw new UserError(
          `Payment for order ${orderId} failed: the order is back in "${order.orderStatus}" and nothing is pending. ` +
            "Check the account's payment method (or its balance, with autoBill false), then run `pulumi up` again " +
            "to check out once more.",
        );
      }
      if (order.orderStatus !== "Payment Needed") {
        progress(subject(orderId), `payment settled: ${order.orderStatus}`);
        return order.orderStatus;
      }
      if (Date.now() >= deadline) {
        progress(
          subject(orderId),
          `still "Payment Needed" after ${waitSeconds} s; the payment goes on at the service, nothing is lost and ` +
            "no second charge is pending (`pulumi refresh` shows the outcome later)",
        );
        return order.orderStatus;
      }
      await sleep(Math.min(interval, Math.max(0, deadline - Date.now())));
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
      const status =
        order.orderStatus === "Payment Needed"
          ? await waitForSettlement(
              orderId,
              0,
              inputs.settlementWaitSeconds ?? 0,
              inputs.settlementWaitSeconds,
            )
          : order.orderStatus;
      return {
        ...base,
        orderStatus: status,
        totalCharges: null,
        totalTax: null,
        totalCredits: null,
        recordedExisting: true,
      };
    }

    // The preview has no side effect: it prices the checkout and refuses a short balance (402)
    // before anything is charged.
    const terms = {
      postageType: inputs.postageType,
      productionSpeed: inputs.productionSpeed,
      autoBill: inputs.autoBill,
      ...(inputs.holdUntilDate ? { holdUntilDate: inputs.holdUntilDate } : {}),
    };
    const preview = await client.previewCheckout(orderId, terms);
    if (inputs.maxTotal !== undefined && preview.totalCharges > inputs.maxTotal) {
      throw new UserError(
        `Checkout of order ${orderId} would charge ${preview.totalCharges}, more than maxTotal ${inputs.maxTotal}; ` +
          "nothing was charged. Raise maxTotal if that is intended, or change the order.",
      );
    }
    progress(subject(orderId), `charging ${preview.totalCharges} (${order.recipientCount} recipients)`);

    let accepted: { pollAfterSeconds: number; settlementExpectedWithinSeconds: number };
    try {
      accepted = await client.checkout(orderId, { ...terms, holdUntilDate: inputs.holdUntilDate ?? null });
    } catch (error) {
      if (!(error instanceof CheckoutOutcomeUnknownError)) throw error;
      // The request may have reached the service. Never send it again: the order's status says
      // whether it took effect.
      const after = await orderOrFail(orderId);
      if (!isCheckedOut(after.orderStatus)) {
        throw new UserError(
          `The checkout of order ${orderId} got no answer (${error.message}). The order is still ` +
            `"${after.orderStatus}", so it was not checked out and no charge is pending; run \`pulumi up\` again.`,
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
    return {
      ...base,
      orderStatus: status,
      totalCharges: preview.totalCharges,
      totalTax: preview.totalTax,
      totalCredits: preview.totalCredits,
      recordedExisting: false,
    };
  };

  return {
    async check(_olds, news) {
      return checkInputs(CheckoutInputs, news);
    },

    async diff(_id, olds: CheckoutOutputs, news: CheckoutInputs) {
      const changed = (Object.keys(CheckoutInputs.shape) as (keyof CheckoutInputs)[]).filter(
        (key) => isUnknown(news[key]) || olds[key] !== news[key],
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

    async create(inputs: CheckoutInputs) {
      const outs = await checkOut(inputs);
      return { id: String(inputs.orderId), outs };
    },

    async update(_id, olds: CheckoutOutputs, news: CheckoutInputs) {
      const order = await orderOrFail(news.orderId);
      if (isCheckedOut(order.orderStatus) && news.orderId === olds.orderId) {
        // Only the guard or the wait changed (diff refused anything else): record them.
        return { outs: { ...olds, ...news, orderStatus: order.orderStatus } };
      }
      return { outs: await checkOut(news) };
    },

    async read(id, props: CheckoutOutputs) {
      const order = await ctx.client().getOrder(props.orderId ?? Number(id));
      // No order, or an order back in Draft (its payment failed): this checkout no longer exists,
      // so it leaves the state and the next `up` checks out again, once.
      if (!order || isEditable(order.orderStatus)) return {};
      return { id, props: { ...props, orderStatus: order.orderStatus } };
    },

    async delete(_id, props: CheckoutOutputs) {
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
