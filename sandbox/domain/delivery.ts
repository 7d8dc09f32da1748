import { ORDER_STATUS, type OrderRecipient } from "../../provider/api/schemas";
import { IN_PRODUCTION_AFTER_MS, PRODUCTION_DAYS, TRANSIT_DAYS } from "../assumptions";
import { type OrderRow, type RecipientRow, unpackRecipient } from "../storage/rows";
import type { Store } from "../storage/store";
import { stableHash } from "./address";
import type { Scheduler } from "./scheduler";
import { addMs, DAY_MS } from "./units";

/** The carrier's delivery window of a postage type, in days after mailing. */
export const transitDays = (postageType: string | null) =>
  TRANSIT_DAYS[postageType ?? "Standard"] ?? { min: 3, max: 5 };

/** Estimated production completion per speed, counted from `from` (now, or the hold date). */
export function productionEstimates(from: string) {
  const at = (speed: string) => addMs(from, (PRODUCTION_DAYS[speed] ?? 3) * DAY_MS);
  return {
    Normal: at("Normal"),
    ExpeditedFaster: at("ExpeditedFaster"),
    ExpeditedFastest: at("ExpeditedFastest"),
    HailTrace: at("HailTrace"),
  };
}

// ---------------------------------------------------------------- each piece's delivery timeline

function deliverAt(order: OrderRow, row: RecipientRow): number {
  const mailed = Date.parse(order.mailed_at as string);
  const window = transitDays(order.postage_type);
  const days = window.min + (stableHash(String(row.id)) % (window.max - window.min + 1));
  return mailed + days * DAY_MS;
}

/** The stages of one piece: [from, status]; the last one reached is its status. */
function stages(order: OrderRow, row: RecipientRow): [number, string][] {
  const mailed = Date.parse(order.mailed_at as string);
  const deliver = deliverAt(order, row);
  return [
    [mailed, "Waiting on USPS Info"],
    [mailed + DAY_MS / 2, "Mailed"],
    [mailed + DAY_MS, "In Transit"],
    [deliver - DAY_MS, "Local Facility"],
    // Addresses not fully confirmed (dpv D or S) come back undeliverable.
    [deliver, row.dpv === "Y" ? "Delivered" : "Undeliverable"],
  ];
}

export function deliveryStatus(order: OrderRow, row: RecipientRow, now: string): string | null {
  if (row.do_not_mail || !order.mailed_at) return null;
  const t = Date.parse(now);
  let status: string | null = null;
  for (const [from, s] of stages(order, row)) if (t >= from) status = s;
  return status;
}

/** When the piece reached its current delivery status. */
export function deliveryStatusSince(order: OrderRow, row: RecipientRow, now: string): string | null {
  if (!order.mailed_at) return null;
  const t = Date.parse(now);
  let since: number | null = null;
  for (const [from] of stages(order, row)) if (t >= from) since = from;
  return since === null ? null : new Date(since).toISOString();
}

const COUNTED: Record<string, keyof ReturnType<typeof noCounts>> = {
  "Waiting on USPS Info": "waitingUSPS",
  Mailed: "mailed",
  "In Transit": "inTransit",
  "Local Facility": "localFacility",
  Delivered: "delivered",
  Undeliverable: "undeliverable",
};

/** The delivery counts of an order that has mailed nothing (or of an id that is not an order). */
export const noCounts = () => ({
  totalCards: 0,
  mailed: 0,
  inTransit: 0,
  localFacility: 0,
  delivered: 0,
  undeliverable: 0,
  waitingUSPS: 0,
});

/** How many of the order's pieces are at each delivery stage (do-not-mail recipients are no piece). */
export function deliveryCounts(order: OrderRow, rows: RecipientRow[], now: string) {
  const counts = noCounts();
  for (const row of rows) {
    if (row.do_not_mail) continue;
    counts.totalCards++;
    const status = deliveryStatus(order, row, now);
    const key = status === null ? undefined : COUNTED[status];
    if (key) counts[key]++;
  }
  return counts;
}

/** The recipient as the API shows it; the delivery status follows the order's timeline. */
export function recipientView(order: OrderRow, row: RecipientRow, now: string): OrderRecipient {
  const data = unpackRecipient(row);
  data.metadata.deliveryStatus = deliveryStatus(order, row, now);
  return data;
}

// ---------------------------------------------------------------- production and mailing

/** The timed steps of a paid order, in order (the events' kinds, each with the order's id as ref). */
export const DELIVERY_STEPS = ["ready", "in-production", "mailed", "complete"] as const;

/**
 * A paid order's way to the mailbox: Ready For Production (at settlement or the hold date), In
 * Production an hour later, Mailed at the production estimate of its speed, Complete when the
 * delivery window has passed. Each step checks the status it expects, so a step of an order
 * that has moved on (or was deleted) does nothing.
 */
export class Delivery {
  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
  ) {
    scheduler.on("ready", (ref, due) => {
      if (this.orderIn(ref, ORDER_STATUS.paid) === undefined) return;
      this.store.run(
        "UPDATE orders SET status = ?, ready_at = ?, updated = ? WHERE id = ?",
        ORDER_STATUS.readyForProduction,
        due,
        due,
        ref,
      );
      scheduler.schedule(addMs(due, IN_PRODUCTION_AFTER_MS), "in-production", ref);
    });
    scheduler.on("in-production", (ref, due) => {
      const order = this.orderIn(ref, ORDER_STATUS.readyForProduction);
      if (!order) return;
      this.store.run(
        "UPDATE orders SET status = ?, updated = ? WHERE id = ?",
        ORDER_STATUS.inProduction,
        due,
        ref,
      );
      const mailAt = addMs(
        order.ready_at ?? due,
        (PRODUCTION_DAYS[order.production_speed ?? "Normal"] ?? 3) * DAY_MS,
      );
      scheduler.schedule(mailAt > due ? mailAt : due, "mailed", ref);
    });
    scheduler.on("mailed", (ref, due) => {
      const order = this.orderIn(ref, ORDER_STATUS.inProduction);
      if (!order) return;
      this.store.run(
        "UPDATE orders SET status = ?, mailed_at = ?, updated = ? WHERE id = ?",
        ORDER_STATUS.mailed,
        due,
        due,
        ref,
      );
      scheduler.schedule(addMs(due, transitDays(order.postage_type).max * DAY_MS), "complete", ref);
    });
    scheduler.on("complete", (ref, due) => {
      this.store.run(
        "UPDATE orders SET status = ?, updated = ? WHERE id = ? AND status = ?",
        ORDER_STATUS.complete,
        due,
        ref,
        ORDER_STATUS.mailed,
      );
    });
  }

  private orderIn(id: number, status: string): OrderRow | undefined {
    const order = this.store.get<OrderRow>("SELECT * FROM orders WHERE id = ?", id);
    return order?.status === status ? order : undefined;
  }

  /** Production of a paid order starts at `at` (its settlement, or its hold date). */
  startProduction(orderId: number, at: string): void {
    this.scheduler.schedule(at, "ready", orderId);
  }

  /** Drops the pending steps of an order (it was deleted). */
  cancel(orderId: number): void {
    this.scheduler.cancel(orderId, DELIVERY_STEPS);
  }
}
