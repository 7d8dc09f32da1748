import { ORDER_STATUS } from "../../provider/api/schemas";
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

/** Clock moves at most in one delivery: an order takes five (settlement, ready, production, mailing, complete). */
const MAX_STEPS = 10_000;

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
 */
export class FastForward {
  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly orders: Orders,
  ) {}

  /** Delivers one order of the account, or (no id) every order of the account on its way. */
  async deliver(
    accountId: number,
    orderId?: number,
  ): Promise<{ from: string; now: string; orders: DeliveredOrder[] }> {
    const from = this.scheduler.now();
    const ids = orderId === undefined ? this.onItsWay(accountId) : [this.deliverable(accountId, orderId)];
    // Each step's work runs in slices (scheduler.ts): other requests are answered meanwhile.
    for (let step = 0; step < MAX_STEPS; step++) {
      const due = this.nextStepDue(ids);
      if (due === undefined) break;
      await this.scheduler.advanceTo(due);
    }
    return { from, now: this.scheduler.now(), orders: ids.map((id) => this.delivered(id)) };
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

  /** When the next timed step of these orders is due; undefined when none is pending. */
  private nextStepDue(ids: number[]): string | undefined {
    const list = JSON.stringify(ids);
    const next = this.store.get<{ due: string | null }>(
      `SELECT min(due) AS due FROM events
        WHERE (kind IN (SELECT value FROM json_each(?)) AND ref IN (SELECT value FROM json_each(?)))
           OR (kind = ? AND ref IN (SELECT id FROM checkouts WHERE order_id IN (SELECT value FROM json_each(?))))`,
      JSON.stringify(DELIVERY_STEPS),
      list,
      SETTLE,
      list,
    );
    return next?.due ?? undefined;
  }

  private delivered(orderId: number): DeliveredOrder {
    const order = this.store.get<OrderRow>("SELECT * FROM orders WHERE id = ?", orderId) as OrderRow;
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
