import { z } from "zod";
import { dateTime, id, int, openEnum, queryBool } from "./common";

/** Postage types a checkout accepts (`HailTrace` is not accepted). */
export const PostageType = z.enum(["Standard", "FirstClass"]).meta({
  id: "PostageType",
  description: "`Standard` (in the base price) or `FirstClass` (per-piece surcharge).",
});
export type PostageType = z.infer<typeof PostageType>;

/** Production speeds a checkout accepts (`HailTrace` parses on the service but is rejected). */
export const ProductionSpeed = z
  .enum(["Normal", "ExpeditedFaster", "ExpeditedFastest"])
  .meta({ id: "ProductionSpeed", description: "Production speed; expedited speeds cost more." });
export type ProductionSpeed = z.infer<typeof ProductionSpeed>;

/**
 * Query of `GET /v1/order/{id}/checkout` (preview). Names match case-insensitively on the service
 * (`PostageType` works too); which are required is not shown, so all are optional here.
 */
export const CheckoutPreviewQuery = z
  .object({
    postageType: PostageType.optional(),
    productionSpeed: ProductionSpeed.optional(),
    holdUntilDate: dateTime()
      .optional()
      .describe("Must be later than the normal estimated production completion."),
    autoBill: queryBool()
      .optional()
      .describe(
        "Default true; false requires the balance to cover the order (else 402 INSUFFICIENT_BALANCE).",
      ),
  })
  .meta({ id: "CheckoutPreviewQuery", description: "Options priced by the checkout preview." });
export type CheckoutPreviewQuery = z.input<typeof CheckoutPreviewQuery>;

/** Body of `POST /v1/order/{id}/checkout`. */
export const CheckoutRequest = z
  .object({
    postageType: PostageType,
    productionSpeed: ProductionSpeed,
    holdUntilDate: dateTime()
      .nullish()
      .describe(
        "Hold before production; later than the preview's estimated completion. Omit or null for now.",
      ),
    autoBill: z
      .boolean()
      .optional()
      .describe(
        "Default true: balance first, then the default payment method. false: the balance must cover it (else 402).",
      ),
  })
  .meta({ id: "CheckoutRequest", description: "Submit an order for production (charges the account)." });
export type CheckoutRequest = z.infer<typeof CheckoutRequest>;

/**
 * Payload of a checkout. 200 means accepted, not charged: the order is `Payment Needed` at once and
 * settles asynchronously. Never repeat a checkout that returned 200 (a second one charges again).
 */
export const CheckoutResult = z
  .object({
    orderId: id(),
    status: z.string().describe("Outcome of the call, `Success`."),
    orderStatus: z.string().describe("The order's status as the call returns, normally `Payment Needed`."),
    pollAfterSeconds: int().nonnegative().describe("Wait this long before the first status read."),
    settlementExpectedWithinSeconds: int()
      .nonnegative()
      .describe("Expected time to a terminal payment state; an expectation, not a deadline."),
  })
  .meta({ id: "CheckoutResult", description: "The checkout was accepted; payment settles asynchronously." });
export type CheckoutResult = z.infer<typeof CheckoutResult>;

export const TransactionType = openEnum(["LineItemDebit"]).meta({
  id: "TransactionType",
  description: "`LineItemDebit` is listed; the full set is not shown.",
});
export const TransactionSubType = openEnum(["HandWrittenPostCard"]).meta({
  id: "TransactionSubType",
  description: "`HandWrittenPostCard` is listed; the full set is not shown.",
});

/** A priced line of a checkout preview; `subItems` nest. */
export interface LineItem {
  tax: number;
  rate: number;
  total: number;
  name: string;
  quantity: number;
  transactionType: string;
  transactionSubType: string;
  subItems: LineItem[];
}
export const LineItem: z.ZodType<LineItem> = z
  .object({
    tax: z.number(),
    rate: z.number(),
    total: z.number(),
    name: z.string(),
    quantity: int(),
    transactionType: TransactionType,
    transactionSubType: TransactionSubType,
    get subItems() {
      return z.array(LineItem);
    },
  })
  .meta({ id: "LineItem", description: "A priced line; sub-items nest." });

/** Payload of the checkout preview: side-effect free pricing and dates. */
export const CheckoutPreview = z
  .object({
    orderId: id(),
    status: z.string(),
    lineItems: z.array(LineItem),
    credits: z.array(LineItem),
    totalCharges: z.number(),
    totalTax: z.number(),
    totalCredits: z.number(),
    balance: z.number(),
    productionSpeeds: z
      .object({
        Normal: dateTime().nullable(),
        ExpeditedFaster: dateTime().nullable(),
        ExpeditedFastest: dateTime().nullable(),
        HailTrace: dateTime().nullable(),
      })
      .describe("Estimated production completion per speed."),
    productionSpeedPrices: z.record(z.string(), z.number()),
    postageTypePrices: z.record(z.string(), z.number()),
    estimatedDeliveryDateMin: dateTime().nullable(),
    estimatedDeliveryDateMax: dateTime().nullable(),
  })
  .meta({ id: "CheckoutPreview", description: "What a checkout with these options would cost, and when." });
export type CheckoutPreview = z.infer<typeof CheckoutPreview>;
