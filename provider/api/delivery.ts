/**
 * Where an order's mail pieces are, from its entry in the analytics report (entry 12): how many are
 * at each delivery stage now, which `directmail status` and the report give.
 */
import type { OrderAnalyticsEntry } from "./schemas/analytics";

/** Delivery counts of an order as the analytics give them: how many pieces are at each status now. */
export type DeliveryCounts = Pick<
  OrderAnalyticsEntry,
  "totalCards" | "waitingUSPS" | "mailed" | "inTransit" | "localFacility" | "delivered" | "undeliverable"
>;

/** The delivery counts of an order's analytics entry; all 0 when the service gave none. */
export function deliveryCountsOf(analytics: DeliveryCounts | undefined): DeliveryCounts {
  return {
    totalCards: analytics?.totalCards ?? 0,
    waitingUSPS: analytics?.waitingUSPS ?? 0,
    mailed: analytics?.mailed ?? 0,
    inTransit: analytics?.inTransit ?? 0,
    localFacility: analytics?.localFacility ?? 0,
    delivered: analytics?.delivered ?? 0,
    undeliverable: analytics?.undeliverable ?? 0,
  };
}

/** The pieces handed to the carrier: those at any delivery stage, delivered and undeliverable ones too. */
export function handedToCarrier(d: DeliveryCounts): number {
  return d.waitingUSPS + d.mailed + d.inTransit + d.localFacility + d.delivered + d.undeliverable;
}
