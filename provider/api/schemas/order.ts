import { z } from "zod";
import { count, dateTime, id, int, openEnum, queryBool, wholeNumber } from "./common";
import { OrderRecipient } from "./recipient";

/**
 * Order statuses, spaced display text: the one list the client and the sandbox share. The spec names
 * these and says more exist after them; its deletion rule spells one `Needs Edits`, which may or may
 * not be `Edits Needed`, so both are listed and treated alike.
 */
const SPEC_ORDER_STATUS = {
  draft: "Draft",
  editsNeeded: "Edits Needed",
  needsEdits: "Needs Edits",
  paymentNeeded: "Payment Needed",
  paid: "Paid",
  readyForProduction: "Ready For Production",
} as const;
type SpecOrderStatus = (typeof SPEC_ORDER_STATUS)[keyof typeof SPEC_ORDER_STATUS];

export const ORDER_STATUS = {
  ...SPEC_ORDER_STATUS,
  /** After Ready For Production: not named by the spec; the sandbox's names (docs/sandbox.md). */
  inProduction: "In Production",
  mailed: "Mailed",
  complete: "Complete",
} as const;

/**
 * The statuses in which an order can be changed: recipients appended or deleted, the order checked
 * out or deleted. Every other status refuses those with the spec's invalid-status error.
 */
export const EDITABLE_ORDER_STATUSES: readonly string[] = [
  ORDER_STATUS.draft,
  ORDER_STATUS.editsNeeded,
  ORDER_STATUS.needsEdits,
];

/** Whether an order in this status can still change: recipients, checkout, deletion. */
export function isEditable(status: string | undefined): status is string {
  return status !== undefined && EDITABLE_ORDER_STATUSES.includes(status);
}

/**
 * True once a checkout went through: `Payment Needed`, `Paid`, `Ready For Production` and any later
 * status. An unknown status counts as checked out, the safe reading for money: nothing is charged
 * again and nothing is changed.
 */
export function isCheckedOut(status: string | undefined): status is string {
  return status !== undefined && !isEditable(status);
}

/** Payment was accepted and is still settling: nothing is charged yet. */
export function isSettling(status: string | undefined): boolean {
  return status === ORDER_STATUS.paymentNeeded;
}

export const OrderStatus = openEnum(
  Object.values(SPEC_ORDER_STATUS) as [SpecOrderStatus, ...SpecOrderStatus[]],
).meta({ id: "OrderStatus", description: "Order status (spaced display text); the full set is not shown." });
export type OrderStatus = z.infer<typeof OrderStatus>;

/** Postage type as the service reports it (`HailTrace` exists in reports but is not accepted on checkout). */
export const PostageTypeValue = openEnum(["Standard", "FirstClass", "HailTrace"]).meta({
  id: "PostageTypeValue",
  description: "Postage type as reported by the service; the full set is not shown.",
});
/** Production speed as the service reports it. */
export const ProductionSpeedValue = openEnum([
  "Normal",
  "ExpeditedFaster",
  "ExpeditedFastest",
  "HailTrace",
]).meta({
  id: "ProductionSpeedValue",
  description: "Production speed as reported by the service; the full set is not shown.",
});

/** Body of `POST /v1/order`. */
export const CreateOrderRequest = z
  .object({
    templateId: id().describe("Order id of a template."),
    useQr: z
      .boolean()
      .optional()
      .describe("true keeps the template QR code, false removes it; the template must have a QR element."),
    qrUrl: z.string().min(1).optional().describe("Overrides the template QR target."),
    handwritingFont: z
      .string()
      .min(1)
      .optional()
      .describe("A global handwriting style of the service; uploaded account fonts are rejected."),
  })
  .meta({ id: "CreateOrderRequest", description: "Create an order from a template." });
export type CreateOrderRequest = z.infer<typeof CreateOrderRequest>;

/** Payload of `POST /v1/order`. */
export const CreateOrderResult = z
  .object({ orderId: id(), status: z.string() })
  .meta({ id: "CreateOrderResult", description: "The new order's id." });
export type CreateOrderResult = z.infer<typeof CreateOrderResult>;

/** Query of `GET /v1/order`. Types are the design brief's assumption (the spec names only the filters). */
export const ListOrdersQuery = z
  .object({
    id: wholeNumber({ min: 1 }).optional().describe("Only the order with this id."),
    status: z.string().min(1).optional().describe("Only orders in this status (spaced display text)."),
    paid: queryBool().optional().describe("Omitted: no payment filter; true: paid only; false: unpaid only."),
    product: z.string().min(1).optional(),
    postage: z.string().min(1).optional().describe("Postage type."),
    showRecipients: queryBool().optional().describe("Include each order's recipients."),
    pageNumber: wholeNumber({ min: 1 }).optional().describe("Pages count from 1."),
    pageSize: wholeNumber({ min: 1, max: 1000 }).optional().describe("Default 100, maximum 1000."),
  })
  .meta({ id: "ListOrdersQuery", description: "Filters and paging of the order listing." });
export type ListOrdersQuery = z.input<typeof ListOrdersQuery>;

/** Delivery progress counts of an order (the same categories as the analytics entry). */
export const DeliveryProgress = z
  .object({
    totalCards: count(),
    mailed: count(),
    inTransit: count(),
    localFacility: count(),
    delivered: count(),
    undeliverable: count(),
    waitingUSPS: count(),
  })
  .meta({ id: "DeliveryProgress", description: "How many pieces are at each delivery stage." });
export type DeliveryProgress = z.infer<typeof DeliveryProgress>;

/** One entry of the order listing (design brief's assumed shape; `recipients` only with `showRecipients`). */
export const OrderSummary = z
  .object({
    orderId: id(),
    orderStatus: OrderStatus,
    name: z.string().nullish(),
    product: z.string().nullable(),
    postageType: PostageTypeValue.nullable(),
    productionSpeed: ProductionSpeedValue.nullish(),
    templateId: id().nullable().describe("The template the order was made from; null for a template itself."),
    createdDate: dateTime(),
    updatedDate: dateTime(),
    paidDate: dateTime().nullish(),
    recipientCount: count(),
    deliveryProgress: DeliveryProgress.optional(),
    recipients: z.array(OrderRecipient).optional(),
  })
  .meta({ id: "OrderSummary", description: "An order in the listing." });
export type OrderSummary = z.infer<typeof OrderSummary>;

/** Payload of `GET /v1/order`. */
export const OrderList = z
  .object({
    orders: z.array(OrderSummary),
    pageNumber: int().min(1),
    pageSize: int().min(1),
    totalCount: count(),
  })
  .meta({ id: "OrderList", description: "One page of orders." });
export type OrderList = z.infer<typeof OrderList>;

/** Payload of `DELETE /v1/order/{id}`. */
export const DeleteOrderResult = z
  .object({
    orderId: id(),
    status: z.string(),
    reasonCode: openEnum(["ORDER_NOT_DELETABLE_STATUS"]).nullish().describe("Why the order was not deleted."),
  })
  .meta({ id: "DeleteOrderResult", description: "Outcome of an order delete." });
export type DeleteOrderResult = z.infer<typeof DeleteOrderResult>;
