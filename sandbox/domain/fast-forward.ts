import { setImmediate as nextTurn } from "node:timers/promises";
import { ORDER_STATUS } from "../../provider/api/schemas";
import { CLOCK_LIMIT_MS } from "../assumptions";
import type { OrderRow, RecipientRow } from "../storage/rows";
import { LIGHT_RECIPIENT_COLUMNS } from "../storage/rows";
import type { Store } from "../storage/store";
import { SETTLE } from "./checkout";
import { DELIVERY_STEPS, deliveryCounts } from "./delivery";
import { ApiError } from "./errors";
import type { Orders } from "./orders";
import type { Scheduler } from "./scheduler";

/** An order on its way to the mailbox: paid, or its payment under way, and not yet Complete. */
const ON_ITS_WAY: readonly string[] = [
  ORDER_STATUS.paymentNeeded,
  ORDER_STATUS.paid,
  ORDER_STATUS.readyForProduction,
  ORDER_STATUS.inProduction,
  ORDER_STATUS.mailed,
];

/**
 * How long the steps of a delivery run between two turns of the server: its requests wait at most
 * this long (plus a slice of work, `SLICE_MS`), and the steps in between share one commit.
 */
const STEPS_MS = 10;

/** The orders named one by one in an error; the rest are counted. */
const NAMED_AT_MOST = 5;

export interface DeliveredOrder {
  orderId: number;
  status: string;
  totalCards: number;
  delivered: number;
  undeliverable: number;
  /** Why an order is not Complete after the delivery; null when it is. */
  waiting: string | null;
}

/**
 * The control API's delivery (`directmail sandbox deliver`): the clock moves from one timed step of
 * the orders to the next (settlement, production, mailing, the end of the delivery window), running
 * each, until every piece has arrived or been returned. It never jumps past a step, so the other
 * orders of the sandbox go through what that time brings them too, as they would have by waiting.
 *
 * It takes as many steps as the orders have (four or five each): its only bound is the clock's end
 * (`CLOCK_LIMIT_MS`), where a step falls beyond it is a 409 naming the orders left. It runs as a
 * control operation (`Scheduler.exclusive`: after the clock steps, deliveries and resets that came
 * before it) and lets other requests in between its steps.
 */
export class FastForward {
  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly orders: Orders,
  ) {}

  /** Delivers one order of the account, or (no id) every order of the account on its way. */
  deliver(
    accountId: number,
    orderId?: number,
  ): Promise<{ from: string; now: string; orders: DeliveredOrder[] }> {
    return this.scheduler.exclusive(async () => {
      const from = this.scheduler.now();
      const ids = orderId === undefined ? this.onItsWay(accountId) : [this.deliverable(accountId, orderId)];
      const covered = new Set(ids);
      for (;;) {
        const next = this.steps(covered);
        if (next === "done") break;
        if (next !== "yield") throw this.pastTheClock(ids, next);
        // The rest of a step's work, if it took more than a slice, then the requests waiting now.
        await this.scheduler.drain();
        await nextTurn();
      }
      const now = this.scheduler.now();
      // Thousands of orders take a while to count: other requests are answered in between too.
      const orders: DeliveredOrder[] = [];
      let started = performance.now();
      for (const id of ids) {
        orders.push(this.delivered(id));
        if (performance.now() - started > STEPS_MS) {
          await nextTurn();
          started = performance.now();
        }
      }
      return { from, now, orders };
    });
  }

  /**
   * Steps of the delivery, in one transaction, for up to `STEPS_MS`: "done" when none of these
   * orders has a step pending, "yield" to let other requests in (time is up, or a step's work is
   * more than a slice), or the due time of a step after the clock's end.
   */
  private steps(covered: ReadonlySet<number>): "done" | "yield" | string {
    return this.store.tx(() => {
      const started = performance.now();
      do {
        const due = this.nextStepDue(covered);
        if (due === undefined) return "done";
        if (!(Date.parse(due) <= CLOCK_LIMIT_MS)) return due;
        if (!this.scheduler.stepTo(due)) return "yield";
      } while (performance.now() - started < STEPS_MS);
      return "yield";
    });
  }

  private onItsWay(accountId: number): number[] {
    return this.store
      .all<{ id: number }>(
        `SELECT id FROM orders WHERE account_id = ? AND is_template = 0
           AND status IN (SELECT value FROM json_each(?)) ORDER BY id`,
        accountId,
        JSON.stringify(ON_ITS_WAY),
      )
      .map((row) => row.id);
  }

  /** The order's id, when an order can be delivered at all (a template or a draft cannot). */
  private deliverable(accountId: number, orderId: number): number {
    const order = this.orders.get(accountId, orderId);
    if (order.is_template) {
      throw new ApiError(409, "ORDER_IS_TEMPLATE", [`order ${orderId} is a template, which is never mailed`]);
    }
    if (order.status !== ORDER_STATUS.complete && !ON_ITS_WAY.includes(order.status)) {
      throw new ApiError(409, "INVALID_ORDER_STATUS", [
        `order ${orderId} is ${order.status}: an order is mailed once its checkout is paid; ` +
          "give its campaign a checkout: section and run pulumi up, then deliver it",
      ]);
    }
    return order.id;
  }

  /**
   * When the next timed step of these orders (their delivery steps, the settlements of their
   * checkouts) is due; undefined when none is pending. The events are read in due order up to the
   * first of these orders': those before it run in the step to it, so each is read about once.
   */
  private nextStepDue(covered: ReadonlySet<number>): string | undefined {
    const steps: readonly string[] = DELIVERY_STEPS;
    for (const event of this.store.prepare("SELECT due, kind, ref FROM events ORDER BY due, id").iterate()) {
      const { due, kind, ref } = event as { due: string; kind: string; ref: number };
      if (steps.includes(kind) ? covered.has(ref) : kind === SETTLE && covered.has(this.checkoutOrder(ref)))
        return due;
    }
    return undefined;
  }

  private checkoutOrder(checkoutId: number): number {
    return this.store.get<{ order_id: number }>("SELECT order_id FROM checkouts WHERE id = ?", checkoutId)
      ?.order_id as number;
  }

  /** The 409 of a delivery whose next step falls after the clock's end: what is left, named. */
  private pastTheClock(ids: number[], due: string): ApiError {
    const left = ids.map((id) => this.delivered(id)).filter((o) => o.status !== ORDER_STATUS.complete);
    const named = left.slice(0, NAMED_AT_MOST).map((o) => `order ${o.orderId} (${o.status})`);
    const more = left.length > NAMED_AT_MOST ? ` and ${left.length - NAMED_AT_MOST} more` : "";
    return new ApiError(409, "CLOCK_LIMIT", [
      `deliver stopped at the end of the sandbox clock (${new Date(CLOCK_LIMIT_MS).toISOString()}): ` +
        `the next step is due at ${due}, after it; ${left.length} of ${ids.length} orders are not Complete: ` +
        `${named.join(", ")}${more}. The steps before it ran and the clock is now ${this.scheduler.now()}; ` +
        "an order held until after the clock's end is never mailed in the sandbox",
    ]);
  }

  private delivered(orderId: number): DeliveredOrder {
    const order = this.store.get<OrderRow>("SELECT * FROM orders WHERE id = ?", orderId);
    if (!order) {
      // Deleted meanwhile (a draft again once its payment failed): nothing of it is left to count.
      const none = { totalCards: 0, delivered: 0, undeliverable: 0 };
      return { orderId, status: "Deleted", ...none, waiting: "it was deleted while being delivered" };
    }
    const rows = this.store.all<RecipientRow>(
      `SELECT ${LIGHT_RECIPIENT_COLUMNS} FROM recipients WHERE order_id = ?`,
      orderId,
    );
    const counts = deliveryCounts(order, rows, this.scheduler.now());
    return {
      orderId,
      status: order.status,
      totalCards: counts.totalCards,
      delivered: counts.delivered,
      undeliverable: counts.undeliverable,
      waiting: this.waiting(order),
    };
  }

  private waiting(order: OrderRow): string | null {
    if (order.status === ORDER_STATUS.complete) return null;
    if (order.status === ORDER_STATUS.paymentNeeded)
      return "its payment hangs: the account's payment behaviour is hang";
    if (order.status === ORDER_STATUS.draft) return "its payment failed: the order is a draft again";
    return "nothing is scheduled for it";
  }
}
