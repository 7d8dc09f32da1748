import { type CheckoutPreview, ORDER_STATUS } from "../../provider/api/schemas";
import { PRICES, type Timings } from "../assumptions";
import type { CheckoutRow, OrderRow } from "../storage/rows";
import type { Store } from "../storage/store";
import type { Accounts } from "./accounts";
import { type Delivery, productionEstimates, transitDays } from "./delivery";
import { ApiError, badRequest } from "./errors";
import type { Orders } from "./orders";
import type { Recipients } from "./recipients";
import type { Scheduler } from "./scheduler";
import { addMs, DAY_MS, money, utc } from "./units";

/** The price of one piece, part by part (the transaction report's `detail`). */
export function piecePrice(product: string, postageType: string, speed: string) {
  return {
    basePrice: PRICES.base[product] ?? PRICES.defaultBase,
    doubleSided: PRICES.doubleSided,
    postagePrice: PRICES.postage[postageType] ?? 0,
    extraText: PRICES.extraText,
    expedited: PRICES.speed[speed] ?? 0,
  };
}

/** The price of one piece, all parts together. */
export function pieceTotal(part: ReturnType<typeof piecePrice>): number {
  return money(part.basePrice + part.doubleSided + part.postagePrice + part.extraText + part.expedited);
}

/** `HandWrittenPostCard` is the spec's listed sub-type; other products get their name without spaces. */
export function productSubType(product: string): string {
  if (/hand\s*written/i.test(product) && /post\s*card/i.test(product)) return "HandWrittenPostCard";
  return product.replace(/[^A-Za-z0-9]/g, "") || "Product";
}

export interface CheckoutOptions {
  postageType: string;
  productionSpeed: string;
  holdUntilDate?: string | null | undefined;
  autoBill?: boolean | undefined;
}

/** The event kind of a settlement; its ref is the checkout's id. */
export const SETTLE = "settle";

/**
 * Pricing, checkout and settlement. A checkout moves the order to Payment Needed and schedules its
 * settlement, which charges the balance and the card by the account's payment behaviour at the
 * time it runs, then starts production (or puts the order back to Draft when payment fails).
 */
export class Checkout {
  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly timings: Timings,
    private readonly accounts: Accounts,
    private readonly orders: Orders,
    private readonly recipients: Recipients,
    private readonly delivery: Delivery,
  ) {
    scheduler.on(SETTLE, (ref, due) => this.settle(ref, due));
    // The processor answers at last: hanging settlements run now, with the new behaviour.
    accounts.onPaymentAnswers((accountId) => {
      const hanging = this.store.all<{ id: number }>(
        "SELECT id FROM checkouts WHERE account_id = ? AND outcome = 'hanging'",
        accountId,
      );
      for (const { id } of hanging) {
        this.store.run("UPDATE checkouts SET outcome = 'pending' WHERE id = ?", id);
        this.scheduler.schedule(this.scheduler.now(), SETTLE, id);
      }
    });
  }

  private priceOrder(order: OrderRow, quantity: number, postageType: string, speed: string) {
    const part = piecePrice(order.product, postageType, speed);
    const subType = productSubType(order.product);
    const line = (name: string, rate: number, transactionSubType: string) => ({
      tax: 0,
      rate,
      total: money(rate * quantity),
      name,
      quantity,
      transactionType: "LineItemDebit",
      transactionSubType,
      subItems: [],
    });
    const lineItems = [line(order.product, part.basePrice, subType)];
    if (part.postagePrice > 0) lineItems.push(line(`${postageType} postage`, part.postagePrice, "Postage"));
    if (part.expedited > 0) lineItems.push(line(`${speed} production`, part.expedited, "ProductionSpeed"));
    const total = money(lineItems.reduce((sum, l) => sum + l.total, 0));
    return { lineItems, total, part };
  }

  private checkHold(hold: string | null | undefined): void {
    if (hold == null) return;
    const normal = productionEstimates(this.scheduler.now()).Normal;
    if (Date.parse(hold) <= Date.parse(normal)) {
      throw new ApiError(
        400,
        "INVALID_HOLD_UNTIL_DATE",
        [`holdUntilDate: ${hold} must be later than the normal estimated production completion ${normal}`],
        null,
        [{ field: "holdUntilDate", value: hold, minimumExclusive: normal }],
      );
    }
  }

  /** Shared checks of preview and execute; returns the priced order. */
  private quote(accountId: number, orderId: number, opts: CheckoutOptions, operation: string) {
    const order = this.orders.editable(accountId, orderId, operation);
    const quantity = this.recipients.mailableCount(orderId);
    if (quantity === 0) {
      throw badRequest("ORDER_HAS_NO_RECIPIENTS", `order ${orderId} has no recipient that can be mailed`);
    }
    this.checkHold(opts.holdUntilDate);
    const priced = this.priceOrder(order, quantity, opts.postageType, opts.productionSpeed);
    const account = this.accounts.get(accountId);
    const autoBill = opts.autoBill ?? true;
    if (!autoBill && account.balance < priced.total) {
      throw new ApiError(402, "INSUFFICIENT_BALANCE", [
        `autoBill is false and the available balance ${account.balance.toFixed(2)} does not cover the order total ${priced.total.toFixed(2)}`,
      ]);
    }
    const credit = money(Math.min(account.balance, priced.total));
    return { order, quantity, priced, account, autoBill, credit };
  }

  preview(accountId: number, orderId: number, opts: CheckoutOptions): CheckoutPreview {
    const { quantity, priced, credit, order } = this.quote(accountId, orderId, opts, "the checkout preview");
    const start = utc(opts.holdUntilDate) ?? this.scheduler.now();
    const speeds = productionEstimates(start);
    const completion = speeds[opts.productionSpeed as keyof typeof speeds] ?? speeds.Normal;
    const transit = transitDays(opts.postageType);
    const priceOf = (postage: string, speed: string) =>
      money(pieceTotal(piecePrice(order.product, postage, speed)) * quantity);
    return {
      orderId,
      status: "Success",
      lineItems: priced.lineItems,
      credits:
        credit > 0
          ? [
              {
                tax: 0,
                rate: credit,
                total: credit,
                name: "Account balance",
                quantity: 1,
                transactionType: "Credit",
                transactionSubType: "AccountBalance",
                subItems: [],
              },
            ]
          : [],
      totalCharges: priced.total,
      totalTax: 0,
      totalCredits: credit,
      balance: money(priced.total - credit),
      productionSpeeds: speeds,
      productionSpeedPrices: {
        Normal: priceOf(opts.postageType, "Normal"),
        ExpeditedFaster: priceOf(opts.postageType, "ExpeditedFaster"),
        ExpeditedFastest: priceOf(opts.postageType, "ExpeditedFastest"),
      },
      postageTypePrices: {
        Standard: priceOf("Standard", opts.productionSpeed),
        FirstClass: priceOf("FirstClass", opts.productionSpeed),
      },
      estimatedDeliveryDateMin: addMs(completion, transit.min * DAY_MS),
      estimatedDeliveryDateMax: addMs(completion, transit.max * DAY_MS),
    };
  }

  execute(accountId: number, orderId: number, opts: CheckoutOptions) {
    return this.store.tx(() => {
      const { quantity, priced, autoBill } = this.quote(accountId, orderId, opts, "checkout");
      const now = this.scheduler.now();
      const { lastInsertRowid: checkoutId } = this.store.run(
        `INSERT INTO checkouts(order_id, account_id, postage_type, production_speed, hold_until, auto_bill, amount,
           quantity, outcome, created, data)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
        orderId,
        accountId,
        opts.postageType,
        opts.productionSpeed,
        utc(opts.holdUntilDate),
        autoBill ? 1 : 0,
        priced.total,
        quantity,
        now,
        JSON.stringify({ part: priced.part, lineItems: priced.lineItems }),
      );
      this.store.run(
        `UPDATE orders SET status = ?, postage_type = ?, production_speed = ?, hold_until = ?,
           checkout_count = checkout_count + 1, updated = ? WHERE id = ?`,
        ORDER_STATUS.paymentNeeded,
        opts.postageType,
        opts.productionSpeed,
        utc(opts.holdUntilDate),
        now,
        orderId,
      );
      this.scheduler.schedule(addMs(now, this.timings.settlementSeconds * 1000), SETTLE, checkoutId);
      return {
        result: {
          orderId,
          status: "Success",
          orderStatus: ORDER_STATUS.paymentNeeded,
          pollAfterSeconds: this.timings.pollAfterSeconds,
          settlementExpectedWithinSeconds: this.timings.settlementExpectedWithinSeconds,
        },
        warning:
          "Payment is being processed: the order is Payment Needed until settlement completes. Do not repeat this checkout; a second checkout charges again.",
      };
    });
  }

  /** Settlement of one checkout, by the account's payment behaviour at the time it runs. */
  private settle(checkoutId: number, due: string): void {
    const checkout = this.store.get<CheckoutRow>("SELECT * FROM checkouts WHERE id = ?", checkoutId);
    if (checkout?.outcome !== "pending") return;
    const order = this.store.get<OrderRow>("SELECT * FROM orders WHERE id = ?", checkout.order_id);
    const account = this.accounts.get(checkout.account_id);
    if (!order || order.status !== ORDER_STATUS.paymentNeeded) {
      this.store.run("UPDATE checkouts SET outcome = 'void', settled = ? WHERE id = ?", due, checkoutId);
      return;
    }
    if (account.payment === "hang") {
      // The processor never answers: the order stays in Payment Needed, nothing is charged.
      this.store.run("UPDATE checkouts SET outcome = 'hanging' WHERE id = ?", checkoutId);
      return;
    }
    const fromBalance = checkout.auto_bill
      ? money(Math.min(account.balance, checkout.amount))
      : checkout.amount;
    const fromCard = money(checkout.amount - fromBalance);
    const shortOfBalance = !checkout.auto_bill && account.balance < checkout.amount;
    const charge = { accountId: account.id, orderId: order.id, checkoutId, kind: "charge", at: due } as const;
    if (account.payment === "fail" || shortOfBalance) {
      this.accounts.record({
        ...charge,
        method: fromCard > 0 ? "card" : "balance",
        amount: fromCard > 0 ? fromCard : fromBalance,
        outcome: "failed",
        description: shortOfBalance ? "balance no longer covers the order" : "payment declined",
      });
      this.store.run("UPDATE checkouts SET outcome = 'failed', settled = ? WHERE id = ?", due, checkoutId);
      this.store.run(
        "UPDATE orders SET status = ?, postage_type = NULL, production_speed = NULL, hold_until = NULL, updated = ? WHERE id = ?",
        ORDER_STATUS.draft,
        due,
        order.id,
      );
      return;
    }
    if (fromBalance > 0) {
      this.store.run(
        "UPDATE accounts SET balance = round(balance - ?, 2) WHERE id = ?",
        fromBalance,
        account.id,
      );
      this.accounts.record({
        ...charge,
        method: "balance",
        amount: fromBalance,
        outcome: "succeeded",
        description: `order ${order.id}: balance applied`,
      });
    }
    if (fromCard > 0) {
      this.accounts.record({
        ...charge,
        method: "card",
        amount: fromCard,
        outcome: "succeeded",
        description: `order ${order.id}: card charged`,
      });
    }
    this.store.run("UPDATE checkouts SET outcome = 'succeeded', settled = ? WHERE id = ?", due, checkoutId);
    this.store.run(
      "UPDATE orders SET status = ?, paid_date = ?, updated = ? WHERE id = ?",
      ORDER_STATUS.paid,
      due,
      due,
      order.id,
    );
    this.delivery.startProduction(
      order.id,
      checkout.hold_until && checkout.hold_until > due ? checkout.hold_until : due,
    );
  }
}
