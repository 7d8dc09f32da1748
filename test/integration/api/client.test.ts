/**
 * DirectMailClient against the sandbox over real HTTP on loopback: every method, the error classes
 * the sandbox can produce, and the retry policy under injected faults (including the checkout that
 * must be sent once when the connection drops after the service took it).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DirectMailClient, type DirectMailClientOptions, newOrderRecipient } from "../../../provider";
import {
  CheckoutOutcomeUnknownError,
  DirectMailError,
  ForbiddenError,
  InsufficientBalanceError,
  IntegrationRecipientRejectedError,
  InvalidStatusError,
  NotFoundError,
  OutcomeUnknownError,
  RateLimitedError,
  RequestValidationError,
  ServerError,
  UnauthenticatedError,
} from "../../../provider/api/errors";
import { startTestSandbox, type TestSandbox } from "../../support/sandbox";

let sb: TestSandbox;
const clients: DirectMailClient[] = [];

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await sb.close();
});
beforeEach(async () => {
  await sb.control.clearFaults();
});

function clientFor(apiKey: string, options: Partial<DirectMailClientOptions> = {}): DirectMailClient {
  const c = new DirectMailClient({
    baseUrl: sb.url,
    apiKey,
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ...options,
  });
  clients.push(c);
  return c;
}

interface Account {
  apiKey: string;
  client: DirectMailClient;
  templateId: number;
  qrTemplateId: number;
}

async function account(
  options: Parameters<TestSandbox["control"]["createAccount"]>[0] = {},
): Promise<Account> {
  const { apiKey } = await sb.control.createAccount({ balance: 1000, ...options });
  const { id: templateId } = await sb.control.createTemplate({
    apiKey,
    name: "Plain",
    product: "Handwritten Postcard",
  });
  const { id: qrTemplateId } = await sb.control.createTemplate({
    apiKey,
    name: "QR",
    product: "Handwritten Postcard",
    hasQr: true,
    qrUrl: "https://shop.example.com/offer",
  });
  return { apiKey, client: clientFor(apiKey), templateId, qrTemplateId };
}

const person = (i: number) =>
  newOrderRecipient({
    address: {
      address1: `${i} Oak Avenue`,
      city: "Springfield",
      state: "IL",
      zipCode: "62701",
      country: "US",
    },
    personal: { firstName: `R${i}`, lastName: "Test" },
    metadata: { text: "Thanks for being a customer!" },
  });
const people = (n: number, start = 1) => Array.from({ length: n }, (_, i) => person(start + i));

async function orderWith(a: Account, n: number): Promise<number> {
  const { orderId } = await a.client.createOrder({ templateId: a.templateId });
  if (n > 0) await a.client.appendRecipients(orderId, people(n));
  return orderId;
}

async function caught(promise: Promise<unknown>): Promise<DirectMailError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DirectMailError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

const CHECKOUT = { postageType: "Standard", productionSpeed: "Normal" } as const;

describe("profile, templates, fonts", () => {
  it("me() in three lines, and a wrong key is UnauthenticatedError", async () => {
    const { apiKey, profile } = await sb.control.createAccount({ email: "me@example.com" });
    const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
    const me = await client.me();
    await client.close();
    expect(me).toMatchObject({ id: profile.id, email: "me@example.com" });
    const error = await caught(clientFor("dm_wrong_key_123").me());
    expect(error).toBeInstanceOf(UnauthenticatedError);
    expect(error.status).toBe(401);
  });

  it("serviceTime is the service's clock (its Date header), which the sandbox's advanceClock moves", async () => {
    const { apiKey } = await sb.control.createAccount();
    const client = clientFor(apiKey);
    await sb.control.advanceClock(40 * 24 * 3600);
    const service = (await client.serviceTime()).getTime();
    const sandbox = Date.parse((await sb.control.clock()).now);
    // The header has whole seconds; this machine's clock is 40 days behind.
    expect(Math.abs(service - sandbox)).toBeLessThan(2000);
    expect(service - Date.now()).toBeGreaterThan(39 * 24 * 3600 * 1000);
  });

  it("listTemplates and listFonts", async () => {
    const a = await account();
    const templates = await a.client.listTemplates();
    expect(templates.map((t) => t.id).sort()).toEqual([a.templateId, a.qrTemplateId].sort());
    expect(templates.find((t) => t.id === a.qrTemplateId)?.hasQr).toBe(true);
    const fonts = await a.client.listFonts();
    expect(fonts.length).toBeGreaterThan(0);
    // A listed font is accepted by order creation.
    const name = fonts[0]?.name ?? "";
    await expect(
      a.client.createOrder({ templateId: a.templateId, handwritingFont: name }),
    ).resolves.toMatchObject({
      status: "Success",
    });
  });
});

describe("orders and recipients", () => {
  it("createOrder, listOrders, getOrder, iterateOrders", async () => {
    const a = await account();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await a.client.createOrder({ templateId: a.templateId })).orderId);
    const page = await a.client.listOrders({ status: "Draft", pageSize: 2, pageNumber: 1 });
    expect(page).toMatchObject({ pageNumber: 1, pageSize: 2 });
    expect(page.orders).toHaveLength(2);
    expect(page.totalCount).toBeGreaterThanOrEqual(5);
    const all: number[] = [];
    for await (const o of a.client.iterateOrders({ status: "Draft", pageSize: 2 })) all.push(o.orderId);
    expect(all).toEqual(expect.arrayContaining(ids));
    expect(new Set(all).size).toBe(all.length);
    const one = await a.client.getOrder(ids[0] ?? 0);
    expect(one).toMatchObject({ orderId: ids[0], orderStatus: "Draft", templateId: a.templateId });
    expect(await a.client.getOrder(999_999)).toBeUndefined();
  });

  it("appendSerializedRecipients sends rows already written as JSON, as the service lists them back", async () => {
    const a = await account();
    const orderId = await orderWith(a, 0);
    const rows = people(3).map((recipient) => Buffer.from(JSON.stringify(recipient)));
    const result = await a.client.appendSerializedRecipients(orderId, rows);
    expect(result).toMatchObject({ orderId, submittedRecipients: 3, acceptedRecipients: 3 });
    const listed = await a.client.listRecipients(orderId);
    expect(listed.recipients.map((r) => r.personal.firstName).sort()).toEqual(["R1", "R2", "R3"]);
  });

  it("appendRecipients (both paths), listRecipients, iterateRecipients, deleteRecipients", async () => {
    const a = await account();
    const orderId = await orderWith(a, 0);
    const first = await a.client.appendRecipients(orderId, people(3));
    expect(first).toMatchObject({ orderId, submittedRecipients: 3, acceptedRecipients: 3 });
    const second = await a.client.appendRecipients(orderId, people(2, 4), { useAlias: true });
    expect(second.totalRecipients).toBe(5);

    const page = await a.client.listRecipients(orderId, { pageSize: 2 });
    expect(page.recipients).toHaveLength(2);
    const ids: number[] = [];
    for await (const r of a.client.iterateRecipients(orderId, { pageSize: 2 })) ids.push(r.id);
    expect(ids).toHaveLength(5);
    const found = await a.client.listRecipients(orderId, { search: "R4" });
    expect(found.recipients.map((r) => r.personal.firstName)).toEqual(["R4"]);

    const removed = await a.client.deleteRecipients(orderId, [ids[0] ?? 0, 987_654]);
    expect(removed).toMatchObject({
      requestedRecipients: 2,
      deletedRecipients: 1,
      notFoundRecipientIds: [987_654],
    });
  });

  it("appendRecipientsInBatches sends 5,000 + rest in order", async () => {
    const a = await account();
    const orderId = await orderWith(a, 0);
    const report = await a.client.appendRecipientsInBatches(orderId, people(5003));
    expect(report.ok).toBe(true);
    expect(report.batches.map((b) => [b.start, b.count])).toEqual([
      [0, 5000],
      [5000, 3],
    ]);
    const last = report.batches[1];
    expect(last?.status === "ok" && last.result.totalRecipients).toBe(5003);
  }, 60_000);

  it("deleteOrder, then NotFoundError for the deleted id", async () => {
    const a = await account();
    const orderId = await orderWith(a, 1);
    expect(await a.client.deleteOrder(orderId)).toMatchObject({ orderId });
    const error = await caught(a.client.deleteOrder(orderId));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, errorCode: "NOT_FOUND", orderId });
  });

  it("client-side validation names the field and sends nothing", async () => {
    const a = await account();
    const error = await caught(a.client.createOrder({ templateId: 0 }));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.message).toContain("body.templateId");
  });
});

describe("checkout, proofs, analytics", () => {
  it("preview, proofs, checkout, settlement, invalid status afterwards, analytics, transactions, delivery status", async () => {
    const a = await account();
    const orderId = await orderWith(a, 2);
    const preview = await a.client.previewCheckout(orderId, {
      postageType: "FirstClass",
      productionSpeed: "Normal",
    });
    expect(preview.orderId).toBe(orderId);
    expect(preview.totalCharges).toBeGreaterThan(0);

    const pdf = await a.client.getProof(orderId);
    expect(Buffer.from(pdf.subarray(0, 5)).toString()).toBe("%PDF-");
    const recipients = (await a.client.listRecipients(orderId)).recipients;
    const second = recipients[1]?.id ?? 0;
    expect(Buffer.from((await a.client.getRecipientProof(orderId, second)).subarray(0, 5)).toString()).toBe(
      "%PDF-",
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dm-int-proof-"));
    try {
      const saved = await a.client.downloadProof(orderId, path.join(dir, "p.pdf"), { recipientId: second });
      expect(saved.bytes).toBe(fs.statSync(saved.file).size);
      expect(fs.readFileSync(saved.file).subarray(0, 5).toString()).toBe("%PDF-");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(await caught(a.client.getRecipientProof(orderId, 999_999))).toBeInstanceOf(NotFoundError);

    const outcome = await a.client.checkout(orderId, CHECKOUT);
    expect(outcome).toMatchObject({ orderId, status: "Success", orderStatus: "Payment Needed" });
    expect(outcome.warnings.join(" ")).toMatch(/payment/i);

    const again = await caught(a.client.checkout(orderId, CHECKOUT));
    expect(again).toBeInstanceOf(InvalidStatusError);
    expect(again.orderId).toBe(orderId);
    expect(await caught(a.client.appendRecipients(orderId, people(1, 50)))).toBeInstanceOf(
      InvalidStatusError,
    );
    // While payment is pending: recipient delete, order delete and preview are refused too.
    expect(await caught(a.client.deleteRecipients(orderId, [second]))).toBeInstanceOf(InvalidStatusError);
    expect(await caught(a.client.deleteOrder(orderId))).toBeInstanceOf(InvalidStatusError);
    expect(await caught(a.client.previewCheckout(orderId))).toBeInstanceOf(InvalidStatusError);

    await sb.control.advanceClock(outcome.settlementExpectedWithinSeconds + 1);
    expect((await a.client.getOrder(orderId))?.orderStatus).not.toBe("Payment Needed");

    const analytics = await a.client.getAnalytics([orderId, 999_999]);
    const entries = new Map(analytics.orders.map((o) => [o.orderId, o]));
    expect(entries.get(orderId)?.status).toBe("Success");
    expect(entries.get(orderId)?.totalCards).toBe(2);
    expect(entries.get(999_999)?.status).not.toBe("Success");

    const report = await a.client.getTransactions([orderId]);
    expect(report.orders[0]).toMatchObject({ orderId, status: "Success" });
    expect(report.orders[0]?.transactions.length).toBeGreaterThan(0);

    const status = await a.client.getDeliveryStatus(orderId, { firstName: "R1", lastName: "Test" });
    expect(status.orderId).toBe(orderId);
    const byAddress = await a.client.getDeliveryStatus(orderId, { address1: "2 Oak Avenue" });
    expect(byAddress.firstName).toBe("R2");
  });

  it("autoBill false with too small a balance: InsufficientBalanceError on preview and checkout, nothing charged", async () => {
    const a = await account({ balance: 0 });
    const orderId = await orderWith(a, 1);
    const preview = await caught(a.client.previewCheckout(orderId, { ...CHECKOUT, autoBill: false }));
    expect(preview).toBeInstanceOf(InsufficientBalanceError);
    expect(preview.errorCode).toBe("INSUFFICIENT_BALANCE");
    const pay = await caught(a.client.checkout(orderId, { ...CHECKOUT, autoBill: false }));
    expect(pay).toBeInstanceOf(InsufficientBalanceError);
    expect((await sb.control.ledger(a.apiKey)).entries.filter((e) => e.kind === "charge")).toEqual([]);
    expect((await a.client.getOrder(orderId))?.orderStatus).toBe("Draft");
  });

  it("recordQrScan is accepted and echoed", async () => {
    const a = await account();
    const { orderId } = await a.client.createOrder({ templateId: a.qrTemplateId, useQr: true });
    await a.client.appendRecipients(orderId, people(1));
    const [r] = (await a.client.listRecipients(orderId)).recipients;
    const scan = await a.client.recordQrScan({
      orderId,
      statisticName: 1,
      statisticValue: "1",
      orderRecipientId: r?.id ?? 0,
    });
    expect(scan).toMatchObject({ orderId, orderRecipientId: r?.id, statisticValue: "1" });
  });
});

describe("automations", () => {
  it("listIntegrationOrders, addIntegrationRecipient (accepted and rejected with a reasonCode), proximity", async () => {
    const a = await account();
    const { id } = await sb.control.createIntegrationOrder({
      apiKey: a.apiKey,
      name: "Welcome",
      templateId: a.templateId,
    });
    const list = await a.client.listIntegrationOrders();
    expect(list.map((o) => o.id)).toContain(id);

    const added = await a.client.addIntegrationRecipient(id, {
      firstName: "Grace",
      lastName: "Hopper",
      address1: "10 Oak Avenue",
      city: "Springfield",
      state: "IL",
      zipCode: "62701",
    });
    expect(added.id).toBe(id);

    const rejected = await caught(
      a.client.addIntegrationRecipient(id, {
        firstName: "Grace",
        lastName: "Hopper",
        address1: "10 Oak Avenue",
        city: "Springfield",
        state: "IL",
        zipCode: "62701",
        returnFirstName: "Ada",
      }),
    );
    expect(rejected).toBeInstanceOf(IntegrationRecipientRejectedError);
    expect((rejected as IntegrationRecipientRejectedError).reasonCode).toMatch(
      /^RETURN_|DUPLICATE_RECIPIENT$/,
    );
    expect(rejected.status).toBe(422);

    const proximity = await a.client.requestProximityMailing(id, {
      Name: "Around the shop",
      Addresses: [
        { address1: "1 Oak Avenue", city: "Springfield", state: "IL", zip: "62701", DesiredCount: 3 },
      ],
      MultiUse: false,
    });
    expect(proximity.id).toBe(id);
  });

  it("a basic tier gets ForbiddenError naming the feature", async () => {
    const a = await account({ tier: "basic" });
    const error = await caught(a.client.listIntegrationOrders());
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as ForbiddenError).feature).toBe("automations");
    const conversions = await caught(a.client.getConversionStatus(1));
    expect((conversions as ForbiddenError).feature).toBe("conversions");
  });
});

describe("conversions and address book", () => {
  it("submitConversions, getConversionStatus, deleteConversion, batches", async () => {
    const a = await account();
    const record = {
      firstName: "Grace",
      lastName: "Hopper",
      primaryEmail: "grace@example.com",
      revenue: "10",
    };
    const sent = await a.client.submitConversions([record]);
    expect(sent.records).toHaveLength(1);
    expect(sent.hasErrors).toBe(false);
    const partial = await a.client.submitConversions([record, { primaryEmail: "nope" }], { partial: true });
    expect(partial.hasErrors).toBe(true);
    expect(partial.errors.join(" ")).toContain("primaryEmail");

    // The spec's response carries no id; the sandbox reports it in the envelope's metadata.
    const conversionId = Number(sent.metadata.conversionId);
    expect(conversionId).toBeGreaterThan(0);
    const status = await a.client.getConversionStatus(conversionId);
    expect(status.id).toBe(conversionId);
    expect(typeof (await a.client.deleteConversion(conversionId))).toBe("string");

    const report = await a.client.submitConversionsInBatches(
      Array.from({ length: 5001 }, () => record),
      { onBatch: () => undefined },
    );
    expect(report.batches.map((b) => [b.count, b.status])).toEqual([
      [5000, "ok"],
      [1, "ok"],
    ]);
  }, 60_000);

  it("createAddressBookEntry and the legacy path", async () => {
    const a = await account();
    const entry = {
      firstName: "Grace",
      lastName: "Hopper",
      toOrganization: "Navy",
      address1: "1 Oak Avenue",
      address2: "",
      city: "Springfield",
      state: "IL",
      zip: "62701",
      phoneNumber: null,
    };
    const one = await a.client.createAddressBookEntry(entry);
    const two = await a.client.createAddressBookEntryLegacy(entry);
    expect(one.id).toBeGreaterThan(0);
    expect(two.id).not.toBe(one.id);
    expect((await sb.control.addressBook(a.apiKey)).entries).toHaveLength(2);
  });
});

describe("retry policy against injected faults", () => {
  it("a read retries 503s and 429 with Retry-After", async () => {
    const a = await account();
    await sb.control.addFault({ method: "GET", path: "/v1/me", kind: "status", status: 503, times: 2 });
    await sb.control.addFault({
      method: "GET",
      path: "/v1/me",
      kind: "status",
      status: 429,
      times: 1,
      retryAfterSeconds: 0,
    });
    const events: number[] = [];
    const c = clientFor(a.apiKey, { onEvent: (e) => events.push(e.status ?? 0) });
    await expect(c.me()).resolves.toMatchObject({ email: expect.any(String) });
    expect(events).toEqual([503, 503, 429, 200]);
  });

  it("checkout with the connection reset after the service took it: sent once, charged once, outcome unknown", async () => {
    const a = await account();
    const orderId = await orderWith(a, 1);
    await sb.control.addFault({ method: "POST", path: "/v1/order/*/checkout", kind: "reset", after: true });
    const c = clientFor(a.apiKey, { retry: { maxAttempts: 10, baseDelayMs: 1 } });
    const error = await caught(c.checkout(orderId, CHECKOUT));
    expect(error).toBeInstanceOf(CheckoutOutcomeUnknownError);
    expect(error.message).toContain(`getOrder(${orderId})`);
    const faults = (await sb.control.listFaults()).faults;
    expect(faults[0]?.fired).toBe(1);
    // Following the error's advice: the order's status says the checkout was accepted.
    expect((await c.getOrder(orderId))?.orderStatus).toBe("Payment Needed");
    await sb.control.advanceClock(30);
    const charges = (await sb.control.ledger(a.apiKey)).entries.filter(
      (e) => e.kind === "charge" && e.outcome === "succeeded",
    );
    expect(new Set(charges.map((e) => e.checkoutId)).size).toBe(1);
  });

  it("checkout answered 500 after taking effect is outcome unknown, not retried", async () => {
    const a = await account();
    const orderId = await orderWith(a, 1);
    await sb.control.addFault({
      method: "POST",
      path: "/v1/order/*/checkout",
      kind: "status",
      status: 500,
      after: true,
    });
    const error = await caught(a.client.checkout(orderId, CHECKOUT));
    expect(error).toBeInstanceOf(CheckoutOutcomeUnknownError);
    expect(error.cause).toBeInstanceOf(ServerError);
    expect((await sb.control.listFaults()).faults[0]?.fired).toBe(1);
  });

  it("append with the connection reset after it took effect: not repeated, so no duplicates", async () => {
    const a = await account();
    const orderId = await orderWith(a, 0);
    await sb.control.addFault({ method: "PUT", path: "/v1/order/*/recipients", kind: "reset", after: true });
    const error = await caught(a.client.appendRecipients(orderId, people(2)));
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    await sb.control.clearFaults();
    expect((await a.client.listRecipients(orderId)).recipients).toHaveLength(2);
  });

  it("integration recipient add retries a 500 that happened before it took effect", async () => {
    const a = await account();
    const { id } = await sb.control.createIntegrationOrder({
      apiKey: a.apiKey,
      name: "W",
      templateId: a.templateId,
    });
    await sb.control.addFault({
      method: "POST",
      path: "/v1/integration-orders/*/recipients",
      kind: "status",
      status: 500,
      times: 1,
    });
    await a.client.addIntegrationRecipient(id, {
      firstName: "Alan",
      lastName: "Turing",
      address1: "20 Oak Avenue",
      city: "Springfield",
      state: "IL",
      zipCode: "62701",
    });
    expect((await sb.control.integrationRecipients(a.apiKey, id)).recipients).toHaveLength(1);
  });

  it("a long Retry-After is handed to the caller instead of waited for", async () => {
    const a = await account();
    await sb.control.addFault({
      method: "GET",
      path: "/v1/order",
      kind: "status",
      status: 429,
      retryAfterSeconds: 600,
    });
    const error = await caught(a.client.listOrders());
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(600_000);
  });
});

describe("coverage of this file", () => {
  it("calls every public method of DirectMailClient", () => {
    const source = fs.readFileSync(__filename, "utf8");
    const methods = Object.getOwnPropertyNames(DirectMailClient.prototype).filter(
      (name) => !["constructor", "close", "toString", "toJSON"].includes(name),
    );
    expect(methods.length).toBeGreaterThanOrEqual(31);
    expect(methods.filter((name) => !source.includes(`.${name}(`))).toEqual([]);
  });
});
