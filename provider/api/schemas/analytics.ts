import { z } from "zod";
import { count, dateTime, id, int } from "./common";
import { OrderStatus, PostageTypeValue, ProductionSpeedValue } from "./order";

/**
 * Query of `GET /v1/order/analytics` and `GET /v1/order/transaction`: `id` is a required
 * comma-separated list of order ids (the client takes a number array and joins it).
 */
export const OrderIdsQuery = z
  .object({
    id: z
      .string()
      .regex(/^\s*\d+\s*(,\s*\d+\s*)*$/, "expected a comma-separated list of order ids")
      .describe("Comma-separated order ids, e.g. `12,13`."),
  })
  .meta({ id: "OrderIdsQuery" });
export type OrderIdsQuery = z.infer<typeof OrderIdsQuery>;

/** Parses the `id` list of {@link OrderIdsQuery} into numbers (server side). */
export function parseOrderIds(list: string): number[] {
  return list.split(",").map((s) => Number(s.trim()));
}

export const QrScanRecipient = z
  .object({
    id: id(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    totalScans: z.string().describe("A count, typed as a string by the service."),
    lastScan: dateTime().nullable(),
  })
  .meta({ id: "QrScanRecipient" });

/**
 * Engagement of one order. An order that cannot be processed carries an error status in `status`;
 * its counts are then zero and its optional texts null.
 */
export const OrderAnalyticsEntry = z
  .object({
    orderId: int(),
    status: z.string().describe("`Success`, or an error status for this order only."),
    qrCode: z
      .object({
        totalScans: count(),
        lastScan: dateTime().nullable(),
        recipients: z.array(QrScanRecipient),
      })
      .nullable(),
    totalCards: count(),
    mailed: count(),
    inTransit: count(),
    localFacility: count(),
    delivered: count(),
    undeliverable: count(),
    waitingUSPS: count(),
    paidDate: z.string().nullable(),
    maxEstimatedDeliveredDate: z.string().nullable(),
    minEstimatedDeliveredDate: z.string().nullable(),
    postageType: PostageTypeValue.nullable(),
    orderStatus: OrderStatus.nullable(),
    campaignName: z.string().nullable(),
    product: z.string().nullable(),
    productionSpeed: ProductionSpeedValue.nullable(),
  })
  .meta({ id: "OrderAnalyticsEntry", description: "QR scans and delivery progress of one order." });
export type OrderAnalyticsEntry = z.infer<typeof OrderAnalyticsEntry>;

/** Payload of `GET /v1/order/analytics`. */
export const OrderAnalytics = z
  .object({
    orderId: int().nullable(),
    status: z.string(),
    orders: z.array(OrderAnalyticsEntry),
  })
  .meta({ id: "OrderAnalytics", description: "Engagement statistics of the requested orders." });
export type OrderAnalytics = z.infer<typeof OrderAnalytics>;

/** Known per-order status of analytics and transaction entries. */
export const ENTRY_STATUS_SUCCESS = "Success";
