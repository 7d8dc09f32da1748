import type { OrderAnalyticsEntry } from "../../provider/api/schemas";
import { LIGHT_RECIPIENT_COLUMNS, type OrderRow, type RecipientRow } from "../storage/rows";
import type { Store } from "../storage/store";
import { deliveryCounts, noCounts, productionEstimates, transitDays } from "./delivery";
import { listedOrder, perOrder } from "./order-entries";
import type { Scheduler } from "./scheduler";
import { addMs, DAY_MS } from "./units";

/** The analytics of orders (entry 12): their QR code scans, delivery counts and estimated delivery. */
export class Analytics {
  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
  ) {}

  report(accountId: number, ids: (number | null)[]) {
    const now = this.scheduler.now();
    const orders: OrderAnalyticsEntry[] = ids.map((id) => {
      const order = listedOrder(this.store, accountId, id);
      if (typeof order === "string") {
        return {
          orderId: id,
          status: order,
          qrCode: null,
          ...noCounts(),
          paidDate: null,
          maxEstimatedDeliveredDate: null,
          minEstimatedDeliveredDate: null,
          postageType: null,
          orderStatus: null,
          campaignName: null,
          product: null,
          productionSpeed: null,
        };
      }
      const rows = this.store.all<RecipientRow>(
        `SELECT ${LIGHT_RECIPIENT_COLUMNS} FROM recipients WHERE order_id = ? ORDER BY id`,
        order.id,
      );
      const scanned = rows.filter((r) => r.scans > 0);
      const lastScan = scanned.reduce<string | null>(
        (m, r) => (r.last_scan && (!m || r.last_scan > m) ? r.last_scan : m),
        null,
      );
      const window = transitDays(order.postage_type);
      const mailBase = order.mailed_at ?? this.estimatedMailing(order);
      return {
        orderId: order.id,
        status: "Success",
        qrCode: {
          totalScans: scanned.reduce((n, r) => n + r.scans, 0),
          lastScan,
          recipients: scanned.map((r) => ({
            id: r.id,
            firstName: r.first_name,
            lastName: r.last_name,
            totalScans: String(r.scans),
            lastScan: r.last_scan,
          })),
        },
        ...deliveryCounts(order, rows, now),
        paidDate: order.paid_date,
        minEstimatedDeliveredDate: mailBase ? addMs(mailBase, window.min * DAY_MS) : null,
        maxEstimatedDeliveredDate: mailBase ? addMs(mailBase, window.max * DAY_MS) : null,
        postageType: order.postage_type,
        orderStatus: order.status,
        campaignName: order.name,
        product: order.product,
        productionSpeed: order.production_speed,
      };
    });
    return perOrder(ids, orders);
  }

  /** When a paid order not yet mailed is expected to mail (its production estimate). */
  private estimatedMailing(order: OrderRow): string | null {
    if (!order.paid_date) return null;
    const start =
      order.ready_at ??
      (order.hold_until && order.hold_until > order.paid_date ? order.hold_until : order.paid_date);
    const estimates = productionEstimates(start);
    return estimates[(order.production_speed ?? "Normal") as keyof typeof estimates] ?? estimates.Normal;
  }
}
