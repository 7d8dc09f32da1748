import { z } from "zod";
import { count, dateTime, id, int, wholeNumberFromText } from "./common";
import { OrderStatus, PostageTypeValue, ProductionSpeedValue } from "./order";

/**
 * Query of `GET /v1/order/analytics` and `GET /v1/order/transaction`: `id` is a required
 * comma-separated list of order ids (the client takes a number array and joins it). Only a missing
 * or empty list fails the request: an entry that is not an order id gets an error status inside its
 * own entry (spec), so the list is not checked entry by entry here.
 */
export const OrderIdsQuery = z
  .object({
    id: z
      .string()
      .min(1, "expected a comma-separated list of order ids")
      .describe("Comma-separated order ids, e.g. `12,13`; one entry per listed id, in the listed order."),
  })
  .meta({ id: "OrderIdsQuery" });
export type OrderIdsQuery = z.infer<typeof OrderIdsQuery>;

/**
 * Splits the `id` list of {@link OrderIdsQuery} (server side): each entry is its number, or null when
 * it is not a whole number ({@link wholeNumberFromText}: digits only, nothing trimmed).
 */
export function parseOrderIds(list: string): (number | null)[] {
  return list.split(",").map((entry) => wholeNumberFromText(entry) ?? null);
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
    orderId: int().nullable().describe("The listed id; null when the listed entry is not a whole number."),
    status: z
      .string()
      .describe("`Success`, or an error status for this order only (`NotFound`, `InvalidId`)."),
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
/** Per-order error status of an analytics or transaction entry whose listed id is not an order id. */
export const ENTRY_STATUS_INVALID_ID = "InvalidId";
/** Per-order error status of an entry whose order does not exist or is not the account's. */
export const ENTRY_STATUS_NOT_FOUND = "NotFound";
