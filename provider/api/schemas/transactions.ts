import { z } from "zod";
import { TransactionSubType, TransactionType } from "./checkout";
import { count, dateTime, id, int } from "./common";
import { OrderStatus } from "./order";

export const PriceBreakdown = z
  .object({
    basePrice: z.number(),
    doubleSided: z.number(),
    postagePrice: z.number(),
    extraText: z.number(),
    expedited: z.number(),
  })
  .meta({ id: "PriceBreakdown", description: "Per-piece price parts." });
export type PriceBreakdown = z.infer<typeof PriceBreakdown>;

export const TransactionEntry = z
  .object({
    id: id(),
    orderId: int().nullable(),
    customerSubscriptionId: int().nullable(),
    amount: z.number(),
    description: z.string().nullable(),
    createdDate: dateTime(),
    updatedDate: dateTime().nullable(),
    profileId: int(),
    transactionType: TransactionType,
    transactionSubType: TransactionSubType.nullable(),
    isCredit: z.boolean(),
    recipientSearchId: int().nullable(),
    recipientEnrichmentOrderId: int().nullable(),
    radiusMailOrderId: int().nullable(),
    hailTraceOrderId: int().nullable(),
  })
  .meta({ id: "TransactionEntry", description: "One charge or credit." });
export type TransactionEntry = z.infer<typeof TransactionEntry>;

/**
 * Financial summary of one order. An order that cannot be processed carries an error status in
 * `status`; its amounts are then zero, its dates and breakdowns null and `transactions` empty.
 */
export const OrderTransactionEntry = z
  .object({
    orderId: int().nullable().describe("The listed id; null when the listed entry is not a whole number."),
    status: z
      .string()
      .describe("`Success`, or an error status for this order only (`NotFound`, `InvalidId`)."),
    volume: count(),
    totalPrice: z.number(),
    costPerPiece: z.number(),
    email: z.string().nullable(),
    product: z.string().nullable().describe("Opaque product name, not a fixed list."),
    orderStatus: OrderStatus.nullable(),
    orderUpdatedDate: dateTime().nullable(),
    paidDate: dateTime().nullable(),
    createdDate: dateTime().nullable(),
    profileId: int().nullable(),
    isCredit: z.boolean(),
    transactionType: TransactionType.nullable(),
    transactionSubType: TransactionSubType.nullable(),
    detail: PriceBreakdown.nullable(),
    discount: PriceBreakdown.nullable(),
    transactions: z.array(TransactionEntry),
  })
  .meta({ id: "OrderTransactionEntry", description: "Charges and credits of one order." });
export type OrderTransactionEntry = z.infer<typeof OrderTransactionEntry>;

/** Payload of `GET /v1/order/transaction`. */
export const OrderTransactionReport = z
  .object({
    orderId: int().nullable(),
    status: z.string(),
    orders: z.array(OrderTransactionEntry),
  })
  .meta({ id: "OrderTransactionReport", description: "Financial transactions of the requested orders." });
export type OrderTransactionReport = z.infer<typeof OrderTransactionReport>;
