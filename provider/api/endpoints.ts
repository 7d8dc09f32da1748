/**
 * The endpoint table: every operation of the v1 interface, described once. The client builds its
 * requests, picks its retry behaviour and words its errors from it, the OpenAPI generator emits
 * `paths` from it, and a server can register its routes from it.
 *
 * The table is an entry per operation, in the order of the spec's endpoint table, to be read beside
 * it; the type of its entries, which explains each field, is in endpoint-types.ts.
 */
import type { z } from "zod";
import type { EndpointDef } from "./endpoint-types";
import * as S from "./schemas";

export type { EndpointDef, Feature, HttpMethod, IdKind, ResponseKind, RetryClass } from "./endpoint-types";

const json = <P extends z.ZodType, E extends z.ZodType>(payload: P, envelope: E) =>
  ({ kind: "json", payload, envelope }) as const;

const common = [401, 429, 500] as const;

const ADDRESS_BOOK_CHECK = () =>
  "A repeat creates a second entry; check the address book before creating it again.";

export const endpoints = {
  me: {
    entry: 1,
    operationId: "me",
    method: "GET",
    path: "/v1/me",
    tag: "Profile",
    summary: "Profile of the API key's owner (confirms that a key works).",
    response: json(S.Profile, S.MeResponse),
    auth: "apiKey",
    retry: "read",
    errorStatuses: [...common],
  },
  createOrder: {
    entry: 2,
    operationId: "createOrder",
    method: "POST",
    path: "/v1/order",
    tag: "Orders",
    summary: "Create an order from a template.",
    body: S.CreateOrderRequest,
    response: json(S.CreateOrderResult, S.CreateOrderResponse),
    auth: "apiKey",
    retry: "unsafe",
    errorStatuses: [400, 403, 404, ...common],
    howToCheck: () =>
      "List the orders (listOrders) and look for one created from this template just now before creating another.",
  },
  listOrders: {
    entry: 3,
    operationId: "listOrders",
    method: "GET",
    path: "/v1/order",
    tag: "Orders",
    summary: "List orders with status, product, postage and delivery progress.",
    query: S.ListOrdersQuery,
    response: json(S.OrderList, S.OrderListResponse),
    auth: "apiKey",
    retry: "read",
    errorStatuses: [400, ...common],
  },
  deleteOrder: {
    entry: 4,
    operationId: "deleteOrder",
    method: "DELETE",
    path: "/v1/order/{id}",
    tag: "Orders",
    summary: "Delete an order in Draft or Needs Edits status.",
    pathParams: S.IdPathParams,
    response: json(S.DeleteOrderResult, S.DeleteOrderResponse),
    auth: "apiKey",
    retry: "idempotent",
    errorStatuses: [400, 404, ...common],
    idKind: "order",
    statusSensitive: true,
  },
  appendRecipients: {
    entry: 5,
    operationId: "appendRecipients",
    method: "PUT",
    path: "/v1/order/{id}/recipients",
    aliases: ["/v1/order/{id}/recipients:append"],
    tag: "Orders",
    summary: "Append up to 5,000 recipients to an editable order.",
    pathParams: S.IdPathParams,
    body: S.AppendRecipientsRequest,
    response: json(S.AppendResult, S.AppendRecipientsResponse),
    auth: "apiKey",
    retry: "unsafe",
    errorStatuses: [400, 403, 404, ...common],
    idKind: "order",
    statusSensitive: true,
    howToCheck: (id) =>
      `List the order's recipients (listRecipients(${id})) before appending again: a repeated append adds the ` +
      `recipients twice, because duplicate processing covers only the submitted batch.`,
  },
  listRecipients: {
    entry: 6,
    operationId: "listRecipients",
    method: "GET",
    path: "/v1/order/{id}/recipients",
    tag: "Orders",
    summary: "List the recipients of an order.",
    pathParams: S.IdPathParams,
    query: S.ListRecipientsQuery,
    response: json(S.RecipientList, S.RecipientListResponse),
    auth: "apiKey",
    retry: "read",
    errorStatuses: [400, 404, ...common],
    idKind: "order",
  },
  deleteRecipients: {
    entry: 7,
    operationId: "deleteRecipients",
    method: "DELETE",
    path: "/v1/order/{id}/recipients",
    tag: "Orders",
    summary: "Remove recipients from an editable order.",
    pathParams: S.IdPathParams,
    body: S.DeleteRecipientsRequest,
    response: json(S.DeleteRecipientsResult, S.DeleteRecipientsResponse),
    auth: "apiKey",
    retry: "idempotent",
    errorStatuses: [400, 404, ...common],
    idKind: "order",
    statusSensitive: true,
  },
  previewCheckout: {
    entry: 8,
    operationId: "previewCheckout",
    method: "GET",
    path: "/v1/order/{id}/checkout",
    tag: "Orders",
    summary: "Price a checkout without side effects.",
    pathParams: S.IdPathParams,
    query: S.CheckoutPreviewQuery,
    response: json(S.CheckoutPreview, S.CheckoutPreviewResponse),
    auth: "apiKey",
    retry: "read",
    errorStatuses: [400, 402, 404, ...common],
    idKind: "order",
    statusSensitive: true,
  },
  checkout: {
    entry: 9,
    operationId: "checkout",
    method: "POST",
    path: "/v1/order/{id}/checkout",
    tag: "Orders",
    summary: "Submit an order for production and payment. Never repeat a checkout that returned 200.",
    pathParams: S.IdPathParams,
    body: S.CheckoutRequest,
    response: json(S.CheckoutResult, S.CheckoutResponse),
    auth: "apiKey",
    retry: "checkout",
    errorStatuses: [400, 402, 404, ...common],
    idKind: "order",
    statusSensitive: true,
    howToCheck: (id) =>
      `Do not send the checkout again. Read the order's status (getOrder(${id})): 'Payment Needed', ` +
      `'Paid' or later means the checkout was accepted; 'Draft' or 'Edits Needed' means it was not (or its ` +
      `payment failed), and only then is a new checkout safe.`,
  },
  getProof: {
    entry: 10,
    operationId: "getProof",
    method: "GET",
    path: "/v1/order/{id}/proof",
    tag: "Orders",
    summary: "Proof PDF for the lowest-id recipient not marked do-not-mail.",
    pathParams: S.IdPathParams,
    response: { kind: "pdf" },
    auth: "apiKey",
    retry: "read",
    errorStatuses: [400, 404, ...common],
    idKind: "order",
  },
  getRecipientProof: {
    entry: 11,
    operationId: "getRecipientProof",
    method: "GET",
    path: "/v1/order/{id}/proof/{recipient}",
    tag: "Orders",
    summary: "Proof PDF for one recipient of the order.",
    pathParams: S.RecipientProofPathParams,
    response: { kind: "pdf" },
    auth: "apiKey",
    retry: "read",
    errorStatuses: [400, 404, ...common],
    idKind: "order",
  },
  getAnalytics: {
    entry: 12,
    operationId: "getAnalytics",
    method: "GET",
    path: "/v1/order/analytics",
    tag: "Order Recipient Analytics",
    summary: "QR scans and delivery progress of orders (per-order failures are inside entries).",
    query: S.OrderIdsQuery,
    response: json(S.OrderAnalytics, S.OrderAnalyticsResponse),
    auth: "apiKey",
    retry: "read",
    errorStatuses: [400, ...common],
  },
  getTransactions: {
    entry: 13,
    operationId: "getTransactions",
    method: "GET",
    path: "/v1/order/transaction",
    tag: "Orders",
    summary: "Financial transactions of orders (per-order failures are inside entries).",
    query: S.OrderIdsQuery,
    response: json(S.OrderTransactionReport, S.OrderTransactionResponse),
    auth: "apiKey",
    retry: "read",
    errorStatuses: [400, ...common],
  },
  listIntegrationOrders: {
    entry: 14,
    operationId: "listIntegrationOrders",
    method: "GET",
    path: "/v1/integration-orders",
    tag: "Automations",
    summary: "List integration orders (automations).",
    response: json(S.IntegrationOrderList, S.IntegrationOrderListResponse),
    auth: "apiKey",
    feature: "automations",
    retry: "read",
    errorStatuses: [403, ...common],
  },
  addIntegrationRecipient: {
    entry: 15,
    operationId: "addIntegrationRecipient",
    method: "POST",
    path: "/v1/integration-orders/{id}/recipients",
    tag: "Automations",
    summary: "Validate one recipient and queue its mail piece.",
    pathParams: S.IdPathParams,
    body: S.IntegrationRecipient,
    response: json(S.IntegrationOrder, S.IntegrationOrderResponse),
    auth: "apiKey",
    feature: "automations",
    retry: "retryable-500",
    errorStatuses: [400, 403, 404, 422, ...common],
    idKind: "integration order",
    howToCheck: () =>
      "Sending it again is answered with 422 DUPLICATE_RECIPIENT if the first attempt was queued; treat that as success.",
  },
  requestProximityMailing: {
    entry: 16,
    operationId: "requestProximityMailing",
    method: "POST",
    path: "/v1/integration-orders/{id}-by-proximity",
    tag: "Automations",
    summary: "Find addresses around the given ones and queue them as recipients (asynchronous).",
    pathParams: S.IdPathParams,
    body: S.ProximityRequest,
    response: json(S.IntegrationOrder, S.IntegrationOrderResponse),
    auth: "apiKey",
    feature: "automations",
    retry: "unsafe",
    errorStatuses: [400, 403, 404, ...common],
    idKind: "integration order",
    howToCheck: () =>
      "Check the integration order's recipients in the service before requesting the same search again.",
  },
  recordQrScan: {
    entry: 17,
    operationId: "recordQrScan",
    method: "POST",
    path: "/v1/order-recipients-statistics",
    tag: "Order Recipient Analytics",
    summary: "Record a QR code scan (applied shortly after).",
    body: S.RecipientStatistic,
    response: json(S.RecipientStatistic, S.RecipientStatisticResponse),
    auth: "apiKey",
    retry: "unsafe",
    errorStatuses: [400, 404, ...common],
    orderIdInBody: true,
    howToCheck: () =>
      "A repeated scan would be counted twice; check the order's analytics (getAnalytics) first.",
  },
  submitConversions: {
    entry: 18,
    operationId: "submitConversions",
    method: "POST",
    path: "/v1/conversions",
    tag: "Conversions",
    summary: "Submit up to 5,000 conversion records for matchback.",
    body: S.ConversionBatch,
    response: json(S.ConversionEcho, S.ConversionBatchResponse),
    auth: "apiKey",
    feature: "conversions",
    retry: "unsafe",
    errorStatuses: [400, 403, ...common],
    howToCheck: () =>
      "A repeated batch may be recorded twice; check the conversions in the service before resubmitting.",
  },
  deleteConversion: {
    entry: 19,
    operationId: "deleteConversion",
    method: "DELETE",
    path: "/v1/conversions/{id}",
    tag: "Conversions",
    summary: "Mark a conversion for deletion (completes asynchronously).",
    pathParams: S.IdPathParams,
    response: json(S.ConversionDeleteResult, S.ConversionDeleteResponse),
    auth: "apiKey",
    feature: "conversions",
    retry: "idempotent",
    errorStatuses: [400, 403, 404, ...common],
    idKind: "conversion",
  },
  getConversionStatus: {
    entry: 20,
    operationId: "getConversionStatus",
    method: "GET",
    path: "/v1/conversions/{id}/status",
    tag: "Conversions",
    summary: "Processing state of a conversion.",
    pathParams: S.IdPathParams,
    response: json(S.ConversionStatus, S.ConversionStatusResponse),
    auth: "apiKey",
    feature: "conversions",
    retry: "read",
    errorStatuses: [403, 404, ...common],
    idKind: "conversion",
  },
  createAddressBookEntry: {
    entry: 21,
    operationId: "createAddressBookEntry",
    method: "POST",
    path: "/v1/address-book",
    tag: "Address Book",
    summary: "Create an address-book entry (the address is standardized).",
    body: S.AddressBookEntry,
    response: json(S.AddressBookResult, S.AddressBookResponse),
    auth: "apiKey",
    retry: "unsafe",
    errorStatuses: [400, ...common],
    howToCheck: ADDRESS_BOOK_CHECK,
  },
  createAddressBookEntryLegacy: {
    entry: 22,
    operationId: "createAddressBookEntryLegacy",
    method: "POST",
    path: "/v1/legacyActions/address-book",
    tag: "Address Book",
    summary: "Older path of createAddressBookEntry; identical behaviour.",
    body: S.AddressBookEntry,
    response: json(S.AddressBookResult, S.AddressBookResponse),
    auth: "apiKey",
    retry: "unsafe",
    errorStatuses: [400, ...common],
    howToCheck: ADDRESS_BOOK_CHECK,
  },
  listTemplates: {
    entry: 23,
    operationId: "listTemplates",
    method: "GET",
    path: "/v1/templates",
    assumedPath: true,
    tag: "Templates",
    summary: "List active templates (path and shape assumed; not shown by the spec).",
    response: json(S.TemplateList, S.TemplateListResponse),
    auth: "apiKey",
    retry: "read",
    errorStatuses: [...common],
  },
  listFonts: {
    entry: 24,
    operationId: "listFonts",
    method: "GET",
    path: "/v1/fonts",
    assumedPath: true,
    tag: "Fonts",
    summary: "List handwriting fonts (path and shape assumed; not shown by the spec).",
    response: json(S.FontList, S.FontListResponse),
    auth: "apiKey",
    retry: "read",
    errorStatuses: [...common],
  },
  getDeliveryStatus: {
    entry: 25,
    operationId: "getDeliveryStatus",
    method: "GET",
    path: "/v1/order/{id}/recipients/delivery-status",
    assumedPath: true,
    tag: "Order Recipient Analytics",
    summary: "Latest carrier delivery status of one recipient, by first and last name or by address line.",
    pathParams: S.IdPathParams,
    query: S.DeliveryStatusQuery,
    response: json(S.RecipientDeliveryStatus, S.RecipientDeliveryStatusResponse),
    auth: "apiKey",
    retry: "read",
    errorStatuses: [400, 404, ...common],
    idKind: "order",
  },
} as const satisfies Record<string, EndpointDef>;

export type Endpoints = typeof endpoints;
export type OperationId = keyof Endpoints;

/** The operations in spec order. */
export const operations: readonly EndpointDef[] = Object.values(endpoints).sort((a, b) => a.entry - b.entry);

/** Payload type of a JSON operation. */
export type PayloadOf<K extends OperationId> = Endpoints[K]["response"] extends {
  kind: "json";
  payload: infer P;
}
  ? P extends z.ZodType
    ? z.output<P>
    : never
  : never;

/**
 * Every error status an operation answers: the ones its entry names, plus those that follow from its
 * shape, so the OpenAPI document and a server built from the table cannot disagree:
 * - 400 when it reads a path parameter, a query or a body (one that breaks its schema);
 * - 404 when a path parameter names something (it may not exist or not be the account's);
 * - 403 when a subscription feature gates it;
 * - 413 and 415 for the methods that carry a body (too large; not JSON), whether it reads one or not;
 * - 401, 429 and 500 always.
 */
export function errorStatusesOf(def: EndpointDef): number[] {
  const statuses = new Set<number>([...def.errorStatuses, ...common]);
  if (def.pathParams || def.query || def.body) statuses.add(400);
  if (def.pathParams) statuses.add(404);
  if (def.feature) statuses.add(403);
  if (def.method !== "GET") for (const status of [400, 413, 415]) statuses.add(status);
  return [...statuses].sort((a, b) => a - b);
}

/** Fills a path template: `/v1/order/{id}` with `{ id: 5 }` gives `/v1/order/5`. */
export function fillPath(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name} for ${template}`);
    return encodeURIComponent(String(value));
  });
}
