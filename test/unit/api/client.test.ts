import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import type { DirectMailClient, RequestEvent } from "../../../provider/api/client";
import { endpoints } from "../../../provider/api/endpoints";
import {
  AbortedError,
  CheckoutOutcomeUnknownError,
  DirectMailError,
  ForbiddenError,
  InsufficientBalanceError,
  IntegrationRecipientRejectedError,
  InvalidStatusError,
  NetworkError,
  NotFoundError,
  OutcomeUnknownError,
  RateLimitedError,
  RequestValidationError,
  ResponseValidationError,
  ServerError,
  UnauthenticatedError,
  UnexpectedResponseError,
  ValidationError,
} from "../../../provider/api/errors";
import { newOrderRecipient } from "../../../provider/api/recipients";
import { exactCheck } from "../../../provider/api/schemas/exact-check";
import * as F from "./fixtures";
import { JSON_HEADERS, mockService, netError } from "./mock";

let svc = mockService();
afterEach(async () => {
  await svc.close();
  svc = mockService();
});

const ok = (payload: unknown, extra?: Record<string, unknown>) =>
  [200, JSON.stringify(F.envelope(payload, extra)), { headers: JSON_HEADERS }] as const;
const fail = (status: number, code: string, errors: string[], payload: unknown = null) =>
  [status, JSON.stringify(F.errorEnvelope(code, errors, payload)), { headers: JSON_HEADERS }] as const;

async function caught(promise: Promise<unknown>): Promise<DirectMailError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DirectMailError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

interface Case {
  name: string;
  call: (c: DirectMailClient) => Promise<unknown>;
  method: string;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  payload: unknown;
  result?: unknown;
}

const recipient = newOrderRecipient({ address: { address1: "1 Main St" }, personal: { firstName: "Grace" } });

const cases: Case[] = [
  { name: "me", call: (c) => c.me(), method: "GET", path: "/v1/me", payload: F.profile },
  {
    name: "createOrder",
    call: (c) => c.createOrder({ templateId: 3, useQr: true, handwritingFont: "Neat Print" }),
    method: "POST",
    path: "/v1/order",
    body: { templateId: 3, useQr: true, handwritingFont: "Neat Print" },
    payload: { orderId: 12, status: "Success" },
  },
  {
    name: "listOrders",
    call: (c) =>
      c.listOrders({ status: "Draft", paid: false, showRecipients: true, pageNumber: 2, pageSize: 10 }),
    method: "GET",
    path: "/v1/order",
    query: { status: "Draft", paid: "false", showRecipients: "true", pageNumber: "2", pageSize: "10" },
    payload: { orders: [F.orderSummary], pageNumber: 2, pageSize: 10, totalCount: 11 },
  },
  {
    name: "deleteOrder",
    call: (c) => c.deleteOrder(12),
    method: "DELETE",
    path: "/v1/order/12",
    payload: { orderId: 12, status: "Success", reasonCode: null },
  },
  {
    name: "appendRecipients",
    call: (c) => c.appendRecipients(12, [recipient]),
    method: "PUT",
    path: "/v1/order/12/recipients",
    body: { recipients: [recipient] },
    payload: F.appendResult,
  },
  {
    name: "appendRecipients (alias path)",
    call: (c) => c.appendRecipients(12, [recipient], { useAlias: true }),
    method: "PUT",
    path: "/v1/order/12/recipients:append",
    body: { recipients: [recipient] },
    payload: F.appendResult,
  },
  {
    name: "appendSerializedRecipients",
    call: (c) =>
      c.appendSerializedRecipients(12, [
        Buffer.from(JSON.stringify(recipient)),
        Buffer.from(
          JSON.stringify({ ...recipient, personal: { ...recipient.personal, lastName: "Hopper ✓" } }),
        ),
      ]),
    method: "PUT",
    path: "/v1/order/12/recipients",
    body: {
      recipients: [recipient, { ...recipient, personal: { ...recipient.personal, lastName: "Hopper ✓" } }],
    },
    payload: F.appendResult,
  },
  {
    name: "listRecipients",
    call: (c) => c.listRecipients(12, { search: "Hopper", pageNumber: 1, pageSize: 50 }),
    method: "GET",
    path: "/v1/order/12/recipients",
    query: { search: "Hopper", pageNumber: "1", pageSize: "50" },
    payload: { orderId: 12, status: "Success", recipients: [F.recipient] },
  },
  {
    name: "deleteRecipients",
    call: (c) => c.deleteRecipients(12, [101, 102]),
    method: "DELETE",
    path: "/v1/order/12/recipients",
    body: { recipientIds: [101, 102] },
    payload: { requestedRecipients: 2, deletedRecipients: 1, notFoundRecipientIds: [102] },
  },
  {
    name: "previewCheckout",
    call: (c) =>
      c.previewCheckout(12, {
        postageType: "FirstClass",
        productionSpeed: "ExpeditedFaster",
        holdUntilDate: "2026-03-01T00:00:00Z",
        autoBill: false,
      }),
    method: "GET",
    path: "/v1/order/12/checkout",
    query: {
      postageType: "FirstClass",
      productionSpeed: "ExpeditedFaster",
      holdUntilDate: "2026-03-01T00:00:00Z",
      autoBill: "false",
    },
    payload: F.checkoutPreview,
  },
  {
    name: "checkout",
    call: (c) => c.checkout(12, { postageType: "Standard", productionSpeed: "Normal", autoBill: true }),
    method: "POST",
    path: "/v1/order/12/checkout",
    body: { postageType: "Standard", productionSpeed: "Normal", autoBill: true },
    payload: F.checkoutResult,
    result: { ...F.checkoutResult, warnings: [] },
  },
  {
    name: "getAnalytics",
    call: (c) => c.getAnalytics([12, 13]),
    method: "GET",
    path: "/v1/order/analytics",
    query: { id: "12,13" },
    payload: F.analytics,
  },
  {
    name: "getTransactions",
    call: (c) => c.getTransactions([12]),
    method: "GET",
    path: "/v1/order/transaction",
    query: { id: "12" },
    payload: F.transactions,
  },
  {
    name: "listIntegrationOrders",
    call: (c) => c.listIntegrationOrders(),
    method: "GET",
    path: "/v1/integration-orders",
    payload: [F.integrationOrder],
  },
  {
    name: "addIntegrationRecipient",
    call: (c) =>
      c.addIntegrationRecipient(44, { firstName: "Grace", address1: "1 Main St", zipCode: "62701" }),
    method: "POST",
    path: "/v1/integration-orders/44/recipients",
    body: { firstName: "Grace", address1: "1 Main St", zipCode: "62701" },
    payload: F.integrationOrder,
  },
  {
    name: "requestProximityMailing",
    call: (c) =>
      c.requestProximityMailing(44, {
        Name: "Around",
        Addresses: [
          { address1: "1 Main St", city: "Springfield", state: "IL", zip: "62701", DesiredCount: 5 },
        ],
        MultiUse: false,
      }),
    method: "POST",
    path: "/v1/integration-orders/44-by-proximity",
    body: {
      Name: "Around",
      Addresses: [{ address1: "1 Main St", city: "Springfield", state: "IL", zip: "62701", DesiredCount: 5 }],
      MultiUse: false,
    },
    payload: F.integrationOrder,
  },
  {
    name: "recordQrScan",
    call: (c) => c.recordQrScan(F.statistic),
    method: "POST",
    path: "/v1/order-recipients-statistics",
    body: F.statistic,
    payload: F.statistic,
  },
  {
    name: "submitConversions",
    call: (c) => c.submitConversions([F.conversion]),
    method: "POST",
    path: "/v1/conversions",
    body: [F.conversion],
    payload: [F.conversion],
    result: {
      records: [F.conversion],
      errorCode: null,
      errors: [],
      warnings: [],
      hasErrors: false,
      hasWarnings: false,
      metadata: {},
    },
  },
  {
    name: "deleteConversion",
    call: (c) => c.deleteConversion(55),
    method: "DELETE",
    path: "/v1/conversions/55",
    payload: "Conversion 55 marked for deletion",
  },
  {
    name: "getConversionStatus",
    call: (c) => c.getConversionStatus(55),
    method: "GET",
    path: "/v1/conversions/55/status",
    payload: F.conversionStatus,
  },
  {
    name: "createAddressBookEntry",
    call: (c) => c.createAddressBookEntry(F.addressBookEntry),
    method: "POST",
    path: "/v1/address-book",
    body: F.addressBookEntry,
    payload: { id: 9 },
  },
  {
    name: "createAddressBookEntryLegacy",
    call: (c) => c.createAddressBookEntryLegacy(F.addressBookEntry),
    method: "POST",
    path: "/v1/legacyActions/address-book",
    body: F.addressBookEntry,
    payload: { id: 10 },
  },
  {
    name: "listTemplates",
    call: (c) => c.listTemplates(),
    method: "GET",
    path: "/v1/templates",
    payload: [{ id: 3, name: "Thank you card", product: "Handwritten Postcard", hasQr: true }],
  },
  {
    name: "listFonts",
    call: (c) => c.listFonts(),
    method: "GET",
    path: "/v1/fonts",
    payload: [{ name: "Neat Print" }],
  },
  {
    name: "getDeliveryStatus",
    call: (c) => c.getDeliveryStatus(12, { firstName: "Grace", lastName: "Hopper" }),
    method: "GET",
    path: "/v1/order/12/recipients/delivery-status",
    query: { firstName: "Grace", lastName: "Hopper" },
    payload: F.deliveryStatus,
  },
];

describe("every JSON operation: method, path, query, body, headers and parsed payload", () => {
  it.each(cases)("$name", async (c) => {
    svc.on(c.method, c.path).reply(...ok(c.payload));
    const result = await c.call(svc.client());
    expect(result).toEqual(c.result ?? c.payload);
    const [call] = svc.calls();
    expect(svc.calls()).toHaveLength(1);
    expect(call?.method).toBe(c.method);
    expect(call?.path).toBe(c.path);
    expect(call?.searchParams).toEqual(c.query ?? {});
    expect(call?.headers?.["x-api-key"]).toBe(F.API_KEY);
    expect(call?.headers?.accept).toBe("application/json");
    if (c.body === undefined) {
      expect(call?.body ?? undefined).toBeUndefined();
    } else {
      expect(call?.headers?.["content-type"]).toBe("application/json");
      expect(JSON.parse(String(call?.body))).toEqual(c.body);
    }
  });

  it("uses configured paths for the operations the spec does not show, and the configured search name", async () => {
    const client = svc.client({
      paths: { listTemplates: "/v1/order/templates", getDeliveryStatus: "/v1/recipients/{id}/status" },
      recipientSearchParam: "q",
    });
    svc.on("GET", "/v1/order/templates").reply(...ok([]));
    svc.on("GET", "/v1/recipients/12/status").reply(...ok(F.deliveryStatus));
    svc.on("GET", "/v1/order/12/recipients").reply(...ok({ orderId: 12, status: "Success", recipients: [] }));
    await client.listTemplates();
    await client.getDeliveryStatus(12, { address1: "1 Main St" });
    await client.listRecipients(12, { search: "Hop" });
    expect(svc.calls().map((c) => [c.path, c.searchParams])).toEqual([
      ["/v1/order/templates", {}],
      ["/v1/recipients/12/status", { address1: "1 Main St" }],
      ["/v1/order/12/recipients", { q: "Hop" }],
    ]);
  });

  it("a base URL with a path prefix keeps the prefix", async () => {
    const client = svc.client({ baseUrl: `${F.ORIGIN}/directmail/` });
    svc.on("GET", "/directmail/v1/me").reply(...ok(F.profile));
    await expect(client.me()).resolves.toEqual(F.profile);
  });

  it("checkout returns the envelope's warnings (payment is being processed)", async () => {
    svc
      .on("POST", "/v1/order/12/checkout")
      .reply(...ok(F.checkoutResult, { warnings: ["Payment is being processed"] }));
    const outcome = await svc.client().checkout(12, { postageType: "Standard", productionSpeed: "Normal" });
    expect(outcome.warnings).toEqual(["Payment is being processed"]);
    expect(outcome.orderStatus).toBe("Payment Needed");
  });
});

describe("conversions", () => {
  it("an invalid record stops the batch here by default, naming it", async () => {
    const error = await caught(svc.client().submitConversions([F.conversion, { primaryEmail: "nope" }]));
    expect((error as RequestValidationError).issues).toEqual(["body[1].primaryEmail: Invalid email address"]);
    expect(svc.calls()).toHaveLength(0);
  });

  it("with partial: true the service gets the batch as is and reports per record", async () => {
    const sent = [F.conversion, { primaryEmail: "nope" }];
    svc.on("POST", "/v1/conversions").reply(
      ...ok(sent, {
        errors: ["[1].primaryEmail: Invalid email address"],
        hasErrors: true,
        warnings: ["1 of 2 records accepted"],
        hasWarnings: true,
      }),
    );
    const result = await svc.client().submitConversions(sent, { partial: true });
    expect(result).toMatchObject({
      records: sent,
      errors: ["[1].primaryEmail: Invalid email address"],
      hasErrors: true,
      warnings: ["1 of 2 records accepted"],
    });
    expect(JSON.parse(String(svc.calls()[0]?.body))).toEqual(sent);
    const tooMany = Array.from({ length: 5001 }, () => F.conversion);
    expect((await caught(svc.client().submitConversions(tooMany, { partial: true }))).message).toContain(
      "body: at most 5000 conversion records per request",
    );
  });
});

describe("request validation happens before anything is sent", () => {
  it("names the field, and sends nothing", async () => {
    const bad = { ...recipient, address: { ...recipient.address, zipCode: 62701 as unknown as string } };
    const error = await caught(svc.client().appendRecipients(12, [recipient, bad]));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues).toEqual([
      "body.recipients[1].address.zipCode: Invalid input: expected string, received number",
    ]);
    expect(error.message).toContain("appendRecipients: invalid request: body.recipients[1].address.zipCode");
    expect(svc.calls()).toHaveLength(0);
  });

  it("sends serialized recipients only in the numbers an append accepts", async () => {
    const client = svc.client();
    await expect(client.appendSerializedRecipients(12, [])).rejects.toThrow(
      "an append carries 1 to 5000 recipients, got 0",
    );
    const tooMany = Array.from({ length: 5001 }, () => Buffer.from(JSON.stringify(recipient)));
    await expect(client.appendSerializedRecipients(12, tooMany)).rejects.toThrow(
      "an append carries 1 to 5000 recipients, got 5001",
    );
    expect(svc.calls()).toHaveLength(0);
  });

  it("rejects a bad path id and a bad query value", async () => {
    const client = svc.client();
    expect((await caught(client.deleteOrder(-1))).message).toContain("id: -1 is not a whole number from 1");
    expect((await caught(client.listOrders({ pageSize: 0 }))).message).toContain(
      "query.pageSize: 0 is not a whole number from 1 to 1000",
    );
    expect(
      (
        await caught(
          client.checkout(12, { postageType: "HailTrace" as "Standard", productionSpeed: "Normal" }),
        )
      ).message,
    ).toContain("body.postageType: Invalid option");
    expect(svc.calls()).toHaveLength(0);
  });
});

describe("error mapping", () => {
  it("400 → ValidationError with errorCode, messages, status, method, path and order id", async () => {
    svc
      .on("POST", "/v1/order/12/checkout")
      .reply(...fail(400, "HOLD_DATE_TOO_EARLY", ["holdUntilDate: too early"]));
    const error = await caught(
      svc.client().checkout(12, { postageType: "Standard", productionSpeed: "Normal" }),
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).not.toBeInstanceOf(InvalidStatusError);
    expect(error).toMatchObject({
      status: 400,
      errorCode: "HOLD_DATE_TOO_EARLY",
      errors: ["holdUntilDate: too early"],
      method: "POST",
      path: "/v1/order/12/checkout",
      orderId: 12,
      operationId: "checkout",
    });
    expect(error.message).toBe(
      "POST /v1/order/12/checkout → 400 HOLD_DATE_TOO_EARLY: holdUntilDate: too early",
    );
  });

  it("400 invalid status → InvalidStatusError, by errorCode or, without one, by message", async () => {
    svc
      .on("PUT", "/v1/order/12/recipients")
      .reply(...fail(400, "INVALID_ORDER_STATUS", ["order 12 is in status 'Paid'"]));
    const first = await caught(svc.client().appendRecipients(12, [recipient]));
    expect(first).toBeInstanceOf(InvalidStatusError);
    expect(first.message).toContain("Order 12 is in a status that does not allow appendRecipients");
    svc
      .on("DELETE", "/v1/order/12/recipients")
      .reply(400, JSON.stringify({ errors: ["Invalid order status for this operation"] }), {
        headers: JSON_HEADERS,
      });
    expect(await caught(svc.client().deleteRecipients(12, [1]))).toBeInstanceOf(InvalidStatusError);
  });

  it("401 → UnauthenticatedError", async () => {
    svc.on("GET", "/v1/me").reply(...fail(401, "UNAUTHENTICATED", ["Invalid API key"]));
    const error = await caught(svc.client().me());
    expect(error).toBeInstanceOf(UnauthenticatedError);
    expect(error).toMatchObject({ status: 401, errorCode: "UNAUTHENTICATED", errors: ["Invalid API key"] });
  });

  it("402 → InsufficientBalanceError (preview and checkout)", async () => {
    svc
      .on("GET", "/v1/order/12/checkout")
      .reply(...fail(402, "INSUFFICIENT_BALANCE", ["balance 1.00 < 2.50"]));
    const error = await caught(svc.client().previewCheckout(12, { autoBill: false }));
    expect(error).toBeInstanceOf(InsufficientBalanceError);
    expect(error).toMatchObject({ status: 402, errorCode: "INSUFFICIENT_BALANCE", orderId: 12 });
    expect(error.message).toContain("nothing was charged");
  });

  it("403 without a body → ForbiddenError naming the missing feature", async () => {
    svc.on("GET", "/v1/integration-orders").reply(403, "");
    const error = await caught(svc.client().listIntegrationOrders());
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as ForbiddenError).feature).toBe("automations");
    expect(error.message).toBe(
      "GET /v1/integration-orders → 403: the account's subscription tier lacks the 'automations' feature that listIntegrationOrders needs.",
    );
  });

  it("404 → NotFoundError naming the order", async () => {
    svc.on("DELETE", "/v1/order/99").reply(...fail(404, "NOT_FOUND", ["order 99 was not found"]));
    const error = await caught(svc.client().deleteOrder(99));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, errorCode: "NOT_FOUND", orderId: 99 });
    expect(error.message).toContain("Order 99 does not exist or is not accessible");
  });

  it("404 of a conversion does not call it an order", async () => {
    svc
      .on("GET", "/v1/conversions/5/status")
      .reply(...fail(404, "NOT_FOUND", ["conversion 5 was not found"]));
    const error = await caught(svc.client().getConversionStatus(5));
    expect(error.orderId).toBeUndefined();
    expect(error.message).toContain("Conversion 5 does not exist");
  });

  it("422 → IntegrationRecipientRejectedError with its reasonCode and result", async () => {
    const result = {
      success: false,
      errorMessage: "The address could not be validated",
      reasonCode: "ADDRESS_NOT_VALID",
      integrationOrderId: 44,
      recipientDetails: {
        firstName: "Grace",
        lastName: "Hopper",
        processedAddress: null,
        addressValidated: false,
      },
    };
    svc
      .on("POST", "/v1/integration-orders/44/recipients")
      .reply(...fail(422, "ADDRESS_NOT_VALID", ["The address could not be validated"], result));
    const error = await caught(svc.client().addIntegrationRecipient(44, { address1: "nowhere" }));
    expect(error).toBeInstanceOf(IntegrationRecipientRejectedError);
    expect((error as IntegrationRecipientRejectedError).reasonCode).toBe("ADDRESS_NOT_VALID");
    expect((error as IntegrationRecipientRejectedError).result).toEqual(result);
    expect(error.errors).toEqual(["The address could not be validated"]);
    expect(error.orderId).toBeUndefined();
    expect(svc.calls()).toHaveLength(1);
  });

  it("429 → RateLimitedError carrying Retry-After once retries are used up", async () => {
    svc
      .on("GET", "/v1/me")
      .reply(429, JSON.stringify(F.errorEnvelope("RATE_LIMITED", ["slow down"])), {
        headers: { ...JSON_HEADERS, "retry-after": "0" },
      })
      .times(2);
    const error = await caught(svc.client({ retry: { maxAttempts: 2 } }).me());
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(0);
    expect(error.attempts).toBe(2);
    expect(svc.calls()).toHaveLength(2);
  });

  it("5xx → ServerError; a non-JSON error body is quoted, shortened", async () => {
    svc.on("GET", "/v1/me").reply(502, "<html>Bad gateway</html>").times(4);
    const error = await caught(svc.client().me());
    expect(error).toBeInstanceOf(ServerError);
    expect(error.message).toBe("GET /v1/me → 502: body: <html>Bad gateway</html>");
    expect(error.attempts).toBe(4);
  });

  it("another status → UnexpectedResponseError", async () => {
    svc.on("GET", "/v1/me").reply(409, JSON.stringify(F.errorEnvelope("CONFLICT", ["conflict"])), {
      headers: JSON_HEADERS,
    });
    expect(await caught(svc.client().me())).toBeInstanceOf(UnexpectedResponseError);
  });

  it("a 200 that does not match the schema → ResponseValidationError naming the field", async () => {
    svc.on("GET", "/v1/me").reply(...ok({ ...F.profile, id: "seven" }));
    const events: RequestEvent[] = [];
    const error = await caught(svc.client({ onEvent: (e) => events.push(e) }).me());
    expect(events.map((e) => [e.status, e.error])).toEqual([[200, "ResponseValidationError"]]);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues).toEqual([
      "payload.id: Invalid input: expected number, received string",
    ]);
    expect(svc.calls()).toHaveLength(1);
  });

  it("a listing page exactly in its schema's shape is read as it is; a wrong field in one is still named", async () => {
    const page = { orderId: 12, status: "Success", recipients: [F.recipient, { ...F.recipient, id: 8 }] };
    const listing = endpoints.listRecipients.response;
    expect(listing.kind === "json" && exactCheck(listing.payload)?.(page)).toBe(true);
    svc.on("GET", "/v1/order/12/recipients").reply(...ok(page));
    expect(await svc.client().listRecipients(12)).toEqual(page);
    // Keys in another order than the schema's: read through zod, with the same result.
    const { orderId, ...rest } = page;
    svc.on("GET", "/v1/order/12/recipients").reply(...ok({ ...rest, orderId }));
    expect(await svc.client().listRecipients(12)).toEqual(page);
    svc
      .on("GET", "/v1/order/12/recipients")
      .reply(...ok({ ...page, recipients: [F.recipient, { ...F.recipient, id: "eight" }] }));
    const error = await caught(svc.client().listRecipients(12));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues).toEqual([
      "payload.recipients[1].id: Invalid input: expected number, received string",
    ]);
    // The rest of the envelope is checked too when the payload is in its exact shape.
    svc.on("GET", "/v1/order/12/recipients").reply(...ok(page, { hasErrors: "no" }));
    expect(((await caught(svc.client().listRecipients(12))) as ResponseValidationError).issues).toEqual([
      "hasErrors: Invalid input: expected boolean, received string",
    ]);
  });

  it("a checkout 200 that cannot be read is still reported as accepted, never as a failure to retry", async () => {
    svc.on("POST", "/v1/order/12/checkout").reply(200, "{not json", { headers: JSON_HEADERS });
    const error = await caught(
      svc.client().checkout(12, { postageType: "Standard", productionSpeed: "Normal" }),
    );
    expect(error).toBeInstanceOf(CheckoutOutcomeUnknownError);
    expect(error.message).toContain("answered 200 (accepted)");
    expect(error.message).toContain("Do not send the checkout again");
    expect(svc.calls()).toHaveLength(1);
  });
});

describe("retry policy", () => {
  const events: RequestEvent[] = [];
  afterEach(() => {
    events.length = 0;
  });

  it("reads retry 5xx and network errors with backoff, then succeed", async () => {
    svc.on("GET", "/v1/me").reply(...fail(503, "UNAVAILABLE", ["busy"]));
    svc.on("GET", "/v1/me").replyWithError(netError("ECONNRESET", "socket hang up"));
    svc.on("GET", "/v1/me").reply(...ok(F.profile));
    const me = await svc.client({ onEvent: (e) => events.push(e) }).me();
    expect(me.id).toBe(7);
    expect(svc.calls()).toHaveLength(3);
    expect(events.map((e) => [e.attempt, e.status, e.error])).toEqual([
      [1, 503, "ServerError"],
      [2, undefined, "NetworkError"],
      [3, 200, undefined],
    ]);
    expect(events[0]?.retryInMs).toBeGreaterThanOrEqual(0);
  });

  it("honours Retry-After on a 429", async () => {
    svc.on("GET", "/v1/me").reply(429, "", { headers: { "retry-after": "1" } });
    svc.on("GET", "/v1/me").reply(...ok(F.profile));
    const started = Date.now();
    await svc.client({ onEvent: (e) => events.push(e) }).me();
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(events[0]?.retryInMs).toBe(1000);
  });

  it("does not wait for a Retry-After longer than maxRetryAfterMs", async () => {
    svc.on("GET", "/v1/me").reply(429, "", { headers: { "retry-after": "120" } });
    const error = await caught(svc.client().me());
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(120_000);
    expect(svc.calls()).toHaveLength(1);
  });

  it("idempotent deletes retry after a lost response", async () => {
    svc.on("DELETE", "/v1/order/12").replyWithError(netError("UND_ERR_SOCKET", "other side closed"));
    svc.on("DELETE", "/v1/order/12").reply(...ok({ orderId: 12, status: "Success", reasonCode: null }));
    await svc.client().deleteOrder(12);
    expect(svc.calls()).toHaveLength(2);
  });

  it("unsafe operations retry a 429 and a refused connection, but not a 5xx", async () => {
    svc.on("POST", "/v1/order").reply(429, "", { headers: { "retry-after": "0" } });
    svc.on("POST", "/v1/order").replyWithError(netError("ECONNREFUSED"));
    svc.on("POST", "/v1/order").reply(...ok({ orderId: 12, status: "Success" }));
    await svc.client().createOrder({ templateId: 3 });
    expect(svc.calls()).toHaveLength(3);

    svc.on("POST", "/v1/order").reply(...fail(500, "INTERNAL", ["boom"]));
    const error = await caught(svc.client().createOrder({ templateId: 3 }));
    expect(error).toBeInstanceOf(ServerError);
    expect(svc.calls()).toHaveLength(4);
  });

  it.each([
    [
      "appendRecipients",
      (c: DirectMailClient) => c.appendRecipients(12, [recipient]),
      "PUT",
      "/v1/order/12/recipients",
    ],
    ["createOrder", (c: DirectMailClient) => c.createOrder({ templateId: 3 }), "POST", "/v1/order"],
    [
      "recordQrScan",
      (c: DirectMailClient) => c.recordQrScan(F.statistic),
      "POST",
      "/v1/order-recipients-statistics",
    ],
    [
      "submitConversions",
      (c: DirectMailClient) => c.submitConversions([F.conversion]),
      "POST",
      "/v1/conversions",
    ],
    [
      "createAddressBookEntry",
      (c: DirectMailClient) => c.createAddressBookEntry(F.addressBookEntry),
      "POST",
      "/v1/address-book",
    ],
    [
      "addIntegrationRecipient",
      (c: DirectMailClient) => c.addIntegrationRecipient(44, { address1: "1 Main St" }),
      "POST",
      "/v1/integration-orders/44/recipients",
    ],
  ] as const)(
    "%s is sent once when the connection drops after sending: outcome unknown",
    async (_n, call, method, p) => {
      svc.on(method, p).replyWithError(netError("UND_ERR_SOCKET", "other side closed")).persist();
      const error = await caught(call(svc.client()));
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      expect(error).not.toBeInstanceOf(CheckoutOutcomeUnknownError);
      expect((error as OutcomeUnknownError).howToCheck.length).toBeGreaterThan(20);
      expect(error.cause).toBeInstanceOf(NetworkError);
      expect(svc.calls()).toHaveLength(1);
    },
  );

  it("integration recipient add retries a 500 (the spec calls it retryable)", async () => {
    svc.on("POST", "/v1/integration-orders/44/recipients").reply(...fail(500, "INTERNAL", ["try again"]));
    svc.on("POST", "/v1/integration-orders/44/recipients").reply(...ok(F.integrationOrder));
    await svc.client().addIntegrationRecipient(44, { address1: "1 Main St" });
    expect(svc.calls()).toHaveLength(2);
  });
});

describe("checkout is never sent twice", () => {
  const body = { postageType: "Standard", productionSpeed: "Normal" } as const;

  it("connection dropped after the request was written → CheckoutOutcomeUnknownError, exactly one request", async () => {
    svc
      .on("POST", "/v1/order/12/checkout")
      .replyWithError(netError("UND_ERR_SOCKET", "other side closed"))
      .persist();
    const error = await caught(svc.client({ retry: { maxAttempts: 10 } }).checkout(12, body));
    expect(error).toBeInstanceOf(CheckoutOutcomeUnknownError);
    expect(error.orderId).toBe(12);
    expect(error.message).toContain("outcome unknown");
    expect(error.message).toContain("Read the order's status (getOrder(12))");
    expect(svc.calls()).toHaveLength(1);
  });

  it("a 5xx → CheckoutOutcomeUnknownError, exactly one request", async () => {
    svc
      .on("POST", "/v1/order/12/checkout")
      .reply(...fail(502, "BAD_GATEWAY", ["upstream"]))
      .persist();
    const error = await caught(svc.client().checkout(12, body));
    expect(error).toBeInstanceOf(CheckoutOutcomeUnknownError);
    expect(error.status).toBe(502);
    expect(error.cause).toBeInstanceOf(ServerError);
    expect(error.message).toContain("the service answered 502, which does not say whether it took effect");
    expect(svc.calls()).toHaveLength(1);
  });

  it("a 429 is returned, not retried (the service refused it; the caller decides)", async () => {
    svc
      .on("POST", "/v1/order/12/checkout")
      .reply(429, "", { headers: { "retry-after": "0" } })
      .persist();
    expect(await caught(svc.client().checkout(12, body))).toBeInstanceOf(RateLimitedError);
    expect(svc.calls()).toHaveLength(1);
  });

  it("a connection refused before sending is retried (nothing reached the service)", async () => {
    svc.on("POST", "/v1/order/12/checkout").replyWithError(netError("ECONNREFUSED"));
    svc.on("POST", "/v1/order/12/checkout").reply(...ok(F.checkoutResult));
    await expect(svc.client().checkout(12, body)).resolves.toMatchObject({ orderStatus: "Payment Needed" });
    expect(svc.calls()).toHaveLength(2);
  });
});

describe("the API key never appears in errors, logs or the client's printed form", () => {
  it("is redacted from echoed messages, network errors and causes", async () => {
    const events: RequestEvent[] = [];
    const client = svc.client({ onEvent: (e) => events.push(e), retry: { maxAttempts: 2 } });
    svc.on("GET", "/v1/me").reply(...fail(401, "UNAUTHENTICATED", [`API key '${F.API_KEY}' is not valid`]));
    svc.on("GET", "/v1/order/1/checkout").reply(500, `upstream said ${F.API_KEY}`).times(2);
    svc
      .on("POST", "/v1/order/1/checkout")
      .replyWithError(netError("UND_ERR_SOCKET", `socket closed while sending x-api-key: ${F.API_KEY}`));
    svc.on("GET", "/v1/order/2/checkout").reply(...ok({ bad: F.API_KEY }));
    const errors = [
      await caught(client.me()),
      await caught(client.previewCheckout(1)),
      await caught(client.checkout(1, { postageType: "Standard", productionSpeed: "Normal" })),
      await caught(client.previewCheckout(2)),
    ];
    expect(errors.map((e) => e.constructor.name)).toEqual([
      "UnauthenticatedError",
      "ServerError",
      "CheckoutOutcomeUnknownError",
      "ResponseValidationError",
    ]);
    expect(errors[0]?.errors).toEqual(["API key '[REDACTED]' is not valid"]);
    for (const error of errors) {
      const printed = [
        error.message,
        String(error),
        error.stack,
        inspect(error, { depth: 10, showHidden: true }),
        JSON.stringify(error),
        JSON.stringify(error.errors),
        inspect(error.cause, { depth: 10, showHidden: true }),
      ].join("\n");
      expect(printed).not.toContain(F.API_KEY);
    }
    expect(inspect(events, { depth: 5 })).not.toContain(F.API_KEY);
    expect(events.length).toBeGreaterThan(3);
  });

  it("is not in the client's inspect, toString or JSON", () => {
    const client = svc.client();
    for (const text of [
      inspect(client, { showHidden: true, depth: 10 }),
      String(client),
      JSON.stringify(client),
      JSON.stringify(Object.entries(client)),
    ]) {
      expect(text).not.toContain(F.API_KEY);
    }
    expect(String(client)).toBe(`DirectMailClient(${F.ORIGIN})`);
  });

  it("a key that cannot be a header value is refused without echoing it", () => {
    const secret = "abc\ndef-SECRET";
    let message = "";
    try {
      svc.client({ apiKey: secret });
    } catch (error) {
      message = String(error);
    }
    expect(message).toContain("apiKey contains characters that cannot be sent in a header");
    expect(message).not.toContain("SECRET");
  });
});

describe("pagination", () => {
  it("iterateOrders walks every page until totalCount", async () => {
    const orders = [1, 2, 3, 4, 5].map((orderId) => ({ ...F.orderSummary, orderId }));
    for (const page of [1, 2, 3]) {
      svc.on("GET", "/v1/order").reply(
        ...ok({
          orders: orders.slice((page - 1) * 2, page * 2),
          pageNumber: page,
          pageSize: 2,
          totalCount: 5,
        }),
      );
    }
    const seen: number[] = [];
    for await (const order of svc.client().iterateOrders({ status: "Draft", pageSize: 2 }))
      seen.push(order.orderId);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(svc.calls().map((c) => c.searchParams)).toEqual([
      { status: "Draft", pageNumber: "1", pageSize: "2" },
      { status: "Draft", pageNumber: "2", pageSize: "2" },
      { status: "Draft", pageNumber: "3", pageSize: "2" },
    ]);
  });

  it("iterateRecipients stops at the first short page", async () => {
    const page = (ids: number[]) => ({
      orderId: 12,
      status: "Success",
      recipients: ids.map((id) => ({ ...F.recipient, id })),
    });
    svc.on("GET", "/v1/order/12/recipients").reply(...ok(page([1, 2])));
    svc.on("GET", "/v1/order/12/recipients").reply(...ok(page([3])));
    const ids: number[] = [];
    for await (const r of svc.client().iterateRecipients(12, { pageSize: 2 })) ids.push(r.id);
    expect(ids).toEqual([1, 2, 3]);
    expect(svc.calls()).toHaveLength(2);
  });

  it("stopping the loop early sends no further request", async () => {
    svc
      .on("GET", "/v1/order")
      .reply(...ok({ orders: [F.orderSummary], pageNumber: 1, pageSize: 1, totalCount: 9 }));
    for await (const _order of svc.client().iterateOrders({ pageSize: 1 })) break;
    expect(svc.calls()).toHaveLength(1);
  });

  it("getOrder reads one order, and undefined when it does not exist", async () => {
    svc
      .on("GET", "/v1/order")
      .reply(...ok({ orders: [F.orderSummary], pageNumber: 1, pageSize: 100, totalCount: 1 }));
    svc.on("GET", "/v1/order").reply(...fail(404, "NOT_FOUND", ["order 13 was not found"]));
    expect((await svc.client().getOrder(12))?.orderStatus).toBe("Draft");
    expect(await svc.client().getOrder(13)).toBeUndefined();
    expect(svc.calls()[0]?.searchParams).toEqual({ id: "12" });
  });
});

describe("batching", () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => ({ ...recipient, id: i + 1 }));
  const appendReply = () =>
    svc.on("PUT", "/v1/order/12/recipients").reply((req) => {
      const n = (JSON.parse(String(req.body)) as { recipients: unknown[] }).recipients.length;
      return {
        statusCode: 200,
        data: JSON.stringify(
          F.envelope({ ...F.appendResult, submittedRecipients: n, acceptedRecipients: n }),
        ),
        responseOptions: { headers: JSON_HEADERS },
      };
    });

  it("splits 12,001 recipients into 5,000 + 5,000 + 2,001, in order, one report per batch", async () => {
    appendReply().times(3);
    const report = await svc.client().appendRecipientsInBatches(12, many(12_001));
    expect(report.ok).toBe(true);
    expect(report.batches.map((b) => [b.index, b.start, b.count, b.status])).toEqual([
      [0, 0, 5000, "ok"],
      [1, 5000, 5000, "ok"],
      [2, 10_000, 2001, "ok"],
    ]);
    expect(report.batches.map((b) => (b.status === "ok" ? b.result.submittedRecipients : -1))).toEqual([
      5000, 5000, 2001,
    ]);
    const firstIds = svc
      .calls()
      .map((c) => (JSON.parse(String(c.body)) as { recipients: { id: number }[] }).recipients[0]?.id);
    expect(firstIds).toEqual([1, 5001, 10_001]);
  });

  it("a failed batch stops the rest (reported as skipped) unless continueOnError", async () => {
    appendReply();
    svc
      .on("PUT", "/v1/order/12/recipients")
      .reply(...fail(400, "INVALID_ORDER_STATUS", ["order 12 is Paid"]));
    const report = await svc.client().appendRecipientsInBatches(12, many(5), { batchSize: 2 });
    expect(report.ok).toBe(false);
    expect(report.batches.map((b) => b.status)).toEqual(["ok", "failed", "skipped"]);
    const failed = report.batches[1];
    expect(failed?.status === "failed" && failed.error).toBeInstanceOf(InvalidStatusError);
    expect(svc.calls()).toHaveLength(2);
  });

  it("never sends more than the service's limit, even when asked to", async () => {
    svc
      .on("POST", "/v1/conversions")
      .reply((req) => ({
        statusCode: 200,
        data: JSON.stringify(F.envelope(JSON.parse(String(req.body)))),
        responseOptions: { headers: JSON_HEADERS },
      }))
      .times(2);
    const records = Array.from({ length: 6000 }, () => F.conversion);
    const outcomes: number[] = [];
    const report = await svc
      .client()
      .submitConversionsInBatches(records, { batchSize: 10_000, onBatch: (b) => outcomes.push(b.count) });
    expect(outcomes).toEqual([5000, 1000]);
    expect(report.ok).toBe(true);
  });
});

describe("proofs", () => {
  it("returns the PDF bytes", async () => {
    svc
      .on("GET", "/v1/order/12/proof/101")
      .reply(200, F.PDF, { headers: { "content-type": "application/pdf" } });
    const bytes = await svc.client().getRecipientProof(12, 101);
    expect(Buffer.from(bytes).equals(F.PDF)).toBe(true);
    expect(svc.calls()[0]?.headers?.accept).toBe("application/pdf, application/json");
  });

  it("reads an error response of a proof as JSON by its status", async () => {
    svc
      .on("GET", "/v1/order/12/proof")
      .reply(...fail(400, "NO_MAILABLE_RECIPIENT", ["order 12 has no mailable recipient"]));
    const error = await caught(svc.client().getProof(12));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ errorCode: "NO_MAILABLE_RECIPIENT", orderId: 12 });
  });

  it("refuses a 200 that is not a PDF", async () => {
    svc.on("GET", "/v1/order/12/proof").reply(...ok({}));
    expect((await caught(svc.client().getProof(12))).message).toContain(
      "expected application/pdf, got 'application/json; charset=utf-8'",
    );
  });

  it("streams to a file, which appears whole or not at all", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dm-proof-"));
    try {
      svc
        .on("GET", "/v1/order/12/proof")
        .reply(200, F.PDF, { headers: { "content-type": "application/pdf" } });
      const file = path.join(dir, "proof.pdf");
      expect(await svc.client().downloadProof(12, file)).toEqual({ file, bytes: F.PDF.length });
      expect(fs.readFileSync(file).equals(F.PDF)).toBe(true);

      svc.on("GET", "/v1/order/12/proof/7").reply(...fail(404, "NOT_FOUND", ["recipient 7 not found"]));
      await expect(
        svc.client().downloadProof(12, path.join(dir, "other.pdf"), { recipientId: 7 }),
      ).rejects.toThrow(NotFoundError);
      expect(fs.readdirSync(dir)).toEqual(["proof.pdf"]);

      // A target folder that does not exist is a file-system error, and nothing is requested.
      const before = svc.calls().length;
      await expect(svc.client().downloadProof(12, path.join(dir, "missing", "p.pdf"))).rejects.toMatchObject({
        code: "ENOENT",
      });
      expect(svc.calls()).toHaveLength(before);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("cancellation", () => {
  it("an already aborted signal sends nothing", async () => {
    const error = await caught(svc.client().me({ signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(AbortedError);
    expect(svc.calls()).toHaveLength(0);
  });

  it("aborting while waiting to retry stops at once", async () => {
    svc
      .on("GET", "/v1/me")
      .reply(...fail(503, "UNAVAILABLE", ["busy"]))
      .persist();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const error = await caught(
      svc.client({ retry: { baseDelayMs: 10_000, maxDelayMs: 10_000 } }).me({ signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(AbortedError);
    expect(error.cause).toBeInstanceOf(ServerError);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(svc.calls()).toHaveLength(1);
  });
});

describe("client options", () => {
  it("refuses a base URL that is not http(s) or carries credentials", () => {
    expect(() => svc.client({ baseUrl: "ftp://x" })).toThrow("baseUrl must be http(s)");
    expect(() => svc.client({ baseUrl: "http://user:pw@x" })).toThrow("must not carry credentials");
    expect(() => svc.client({ baseUrl: "not a url" })).toThrow("is not an absolute URL");
    expect(() => svc.client({ apiKey: " " })).toThrow("apiKey is required");
  });
});
