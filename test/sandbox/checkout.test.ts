import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CheckoutPreviewResponse, CheckoutResponse } from "../../provider/api/schemas";
import { DEFAULT_TIMINGS, PRICES } from "../../sandbox/assumptions";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { CHECKOUT, expectError, newAccount, newOrder, orderStatus, parsed } from "./fixtures";
import { recipients, sleep } from "./http";

let sb: TestSandbox;
beforeAll(async () => {
  // The service's own checkout timings, as it ships them (the test helper's are quicker).
  sb = await startTestSandbox({ timings: DEFAULT_TIMINGS });
});
afterAll(() => sb.close());

const BASE = PRICES.base["Handwritten Postcard"] as number;
const snapshot = (sbx: TestSandbox) =>
  JSON.stringify([
    sbx.sandbox.store.all("SELECT * FROM orders ORDER BY id"),
    sbx.sandbox.store.all("SELECT * FROM checkouts ORDER BY id"),
    sbx.sandbox.store.all("SELECT * FROM ledger ORDER BY id"),
    sbx.sandbox.store.all("SELECT id, balance FROM accounts ORDER BY id"),
  ]);

describe("GET /v1/order/{id}/checkout (preview, entry 8)", () => {
  test("prices the order with line items, credits from the balance, speeds and postage; changes nothing", async () => {
    const a = await newAccount(sb, { balance: 4 });
    const orderId = await newOrder(a, 4);
    const before = snapshot(sb);
    const r = await a.c.get(
      `/v1/order/${orderId}/checkout?postageType=FirstClass&productionSpeed=ExpeditedFaster`,
    );
    const p = parsed(CheckoutPreviewResponse, r).payload;
    const perPiece = BASE + (PRICES.postage.FirstClass as number) + (PRICES.speed.ExpeditedFaster as number);
    expect(p.totalCharges).toBeCloseTo(perPiece * 4, 2);
    expect(p.lineItems.map((l) => [l.name, l.quantity])).toEqual([
      ["Handwritten Postcard", 4],
      ["FirstClass postage", 4],
      ["ExpeditedFaster production", 4],
    ]);
    expect(p.lineItems[0]?.transactionSubType).toBe("HandWrittenPostCard");
    expect(p.totalCredits).toBe(4);
    expect(p.credits[0]?.total).toBe(4);
    expect(p.balance).toBeCloseTo(perPiece * 4 - 4, 2);
    expect(Object.keys(p.productionSpeeds).sort()).toEqual([
      "ExpeditedFaster",
      "ExpeditedFastest",
      "HailTrace",
      "Normal",
    ]);
    expect(Date.parse(p.productionSpeeds.ExpeditedFastest as string)).toBeLessThan(
      Date.parse(p.productionSpeeds.Normal as string),
    );
    expect(p.postageTypePrices.FirstClass).toBeGreaterThan(p.postageTypePrices.Standard as number);
    expect(p.productionSpeedPrices.ExpeditedFastest).toBeGreaterThan(
      p.productionSpeedPrices.Normal as number,
    );
    expect(Date.parse(p.estimatedDeliveryDateMin as string)).toBeLessThan(
      Date.parse(p.estimatedDeliveryDateMax as string),
    );
    // Side-effect free: the same rows, status and balance after as before; it can be repeated.
    await a.c.get(`/v1/order/${orderId}/checkout`);
    expect(snapshot(sb)).toBe(before);
    expect(await orderStatus(a, orderId)).toBe("Draft");
  });

  test("is not required before checkout", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 1);
    expect((await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT)).status).toBe(200);
  });

  test("autoBill=false with a short balance is 402 INSUFFICIENT_BALANCE, still without side effects", async () => {
    const a = await newAccount(sb, { balance: 1 });
    const orderId = await newOrder(a, 3);
    const before = snapshot(sb);
    expectError(await a.c.get(`/v1/order/${orderId}/checkout?autoBill=false`), 402, "INSUFFICIENT_BALANCE");
    expect(snapshot(sb)).toBe(before);
    expect((await a.c.get(`/v1/order/${orderId}/checkout?autoBill=true`)).status).toBe(200);
    await sb.control.updateAccount({ apiKey: a.apiKey, balance: 100 });
    const covered = parsed(
      CheckoutPreviewResponse,
      await a.c.get(`/v1/order/${orderId}/checkout?AutoBill=FALSE`),
    ).payload;
    expect(covered.balance).toBe(0);
  });

  test("holdUntilDate must be later than the normal estimated production completion", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 1);
    const normal = parsed(CheckoutPreviewResponse, await a.c.get(`/v1/order/${orderId}/checkout`)).payload
      .productionSpeeds.Normal as string;
    const at = encodeURIComponent(normal);
    const { errors } = expectError(
      await a.c.get(`/v1/order/${orderId}/checkout?holdUntilDate=${at}`),
      400,
      "INVALID_HOLD_UNTIL_DATE",
    );
    expect(errors).toMatch(/^holdUntilDate: /);
    const later = encodeURIComponent(new Date(Date.parse(normal) + 86400_000).toISOString());
    expect((await a.c.get(`/v1/order/${orderId}/checkout?HoldUntilDate=${later}`)).status).toBe(200);
  });

  test("HailTrace and unknown values are 400 naming the parameter", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 1);
    expect((await a.c.get(`/v1/order/${orderId}/checkout?postageType=HailTrace`)).json.errors[0]).toMatch(
      /^postageType: /,
    );
    expect((await a.c.get(`/v1/order/${orderId}/checkout?productionSpeed=HailTrace`)).json.errors[0]).toMatch(
      /^productionSpeed: /,
    );
    expect((await a.c.get(`/v1/order/${orderId}/checkout?productionSpeed=Warp`)).status).toBe(400);
  });

  test("an order with no mailable recipient cannot be priced or checked out", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 0);
    expectError(await a.c.get(`/v1/order/${orderId}/checkout`), 400, "ORDER_HAS_NO_RECIPIENTS");
    expectError(await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT), 400, "ORDER_HAS_NO_RECIPIENTS");
  });
});

describe("POST /v1/order/{id}/checkout (execute, entry 9) and settlement", () => {
  test("accepted: Payment Needed at once, pollAfterSeconds, settlementExpectedWithinSeconds and the warning; nothing charged yet", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 2);
    const r = await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT);
    const body = parsed(CheckoutResponse, r);
    expect(body.payload).toEqual({
      orderId,
      status: "Success",
      orderStatus: "Payment Needed",
      pollAfterSeconds: DEFAULT_TIMINGS.pollAfterSeconds,
      settlementExpectedWithinSeconds: DEFAULT_TIMINGS.settlementExpectedWithinSeconds,
    });
    expect(body.hasWarnings).toBe(true);
    expect(body.warnings.join(" ")).toMatch(/payment is being processed/i);
    expect(await orderStatus(a, orderId)).toBe("Payment Needed");
    expect((await sb.control.ledger(a.apiKey)).entries.filter((e) => e.kind === "charge")).toEqual([]);
  });

  test("settles by itself on wall time within a few seconds (no clock advance)", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 1);
    const accepted = (await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT)).json.payload;
    const deadline = Date.now() + accepted.settlementExpectedWithinSeconds * 1000;
    await sleep(accepted.pollAfterSeconds * 1000);
    let status = await orderStatus(a, orderId);
    while (status === "Payment Needed" && Date.now() < deadline) {
      await sleep(250);
      status = await orderStatus(a, orderId);
    }
    expect(["Paid", "Ready For Production"]).toContain(status);
  });

  test("in Payment Needed: recipient delete, order delete, preview and a further checkout are the standard 400", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 2);
    await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT);
    const rid = (await a.c.get(`/v1/order/${orderId}/recipients`)).json.payload.recipients[0].id;
    expectError(
      await a.c.del(`/v1/order/${orderId}/recipients`, { recipientIds: [rid] }),
      400,
      "INVALID_ORDER_STATUS",
    );
    expectError(await a.c.del(`/v1/order/${orderId}`), 400, "INVALID_ORDER_STATUS");
    expectError(await a.c.get(`/v1/order/${orderId}/checkout`), 400, "INVALID_ORDER_STATUS");
    expectError(await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT), 400, "INVALID_ORDER_STATUS");
    expectError(
      await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: recipients(1, 9) }),
      400,
      "INVALID_ORDER_STATUS",
    );
    await sb.control.advanceClock(3);
    expect((await sb.control.ledger(a.apiKey)).entries.filter((e) => e.kind === "charge")).toHaveLength(1);
  });

  test("payment succeeds: Paid, one card charge, then production and delivery progress over time", async () => {
    const a = await newAccount(sb, { payment: "succeed" });
    const orderId = await newOrder(a, 3);
    await a.c.post(`/v1/order/${orderId}/checkout`, {
      postageType: "FirstClass",
      productionSpeed: "ExpeditedFastest",
    });
    await sb.control.advanceClock(DEFAULT_TIMINGS.settlementSeconds);
    expect(await orderStatus(a, orderId)).toBe("Ready For Production");
    const order = (await a.c.get(`/v1/order?id=${orderId}`)).json.payload.orders[0];
    expect(order.paidDate).not.toBeNull();
    const { entries, balance } = await sb.control.ledger(a.apiKey);
    expect(balance).toBe(0);
    const perPiece = BASE + (PRICES.postage.FirstClass as number) + (PRICES.speed.ExpeditedFastest as number);
    expect(entries.map((e) => [e.kind, e.method, e.outcome, e.orderId])).toEqual([
      ["charge", "card", "succeeded", orderId],
    ]);
    expect(entries[0]?.amount).toBeCloseTo(perPiece * 3, 2);
    await sb.control.advanceClock(3600);
    expect(await orderStatus(a, orderId)).toBe("In Production");
    await sb.control.advanceClock(86400);
    expect(await orderStatus(a, orderId)).toBe("Mailed");
    await sb.control.advanceClock(4 * 86400);
    expect(await orderStatus(a, orderId)).toBe("Complete");
  });

  test("autoBill true applies the balance first, then charges the card for the shortfall", async () => {
    const a = await newAccount(sb, { balance: 3 });
    const orderId = await newOrder(a, 2);
    await a.c.post(`/v1/order/${orderId}/checkout`, { ...CHECKOUT, autoBill: true });
    await sb.control.advanceClock(3);
    const { entries, balance } = await sb.control.ledger(a.apiKey);
    expect(balance).toBe(0);
    const charges = entries.filter((e) => e.kind === "charge");
    expect(charges.map((e) => [e.method, e.amount])).toEqual([
      ["balance", 3],
      ["card", Math.round((BASE * 2 - 3) * 100) / 100],
    ]);
    expect(new Set(charges.map((e) => e.checkoutId)).size).toBe(1);
  });

  test("autoBill false: the balance must cover it, else 402 with no charge, no deduction, status unchanged", async () => {
    const a = await newAccount(sb, { balance: 2 });
    const orderId = await newOrder(a, 2);
    const before = snapshot(sb);
    expectError(
      await a.c.post(`/v1/order/${orderId}/checkout`, { ...CHECKOUT, autoBill: false }),
      402,
      "INSUFFICIENT_BALANCE",
    );
    expect(snapshot(sb)).toBe(before);
    expect(await orderStatus(a, orderId)).toBe("Draft");
    await sb.control.updateAccount({ apiKey: a.apiKey, balance: 50 });
    expect((await a.c.post(`/v1/order/${orderId}/checkout`, { ...CHECKOUT, autoBill: false })).status).toBe(
      200,
    );
    await sb.control.advanceClock(3);
    const { entries, balance } = await sb.control.ledger(a.apiKey);
    expect(entries.filter((e) => e.kind === "charge").map((e) => e.method)).toEqual(["balance"]);
    expect(balance).toBe(50 - BASE * 2);
  });

  test("payment fails: back to Draft, editable again, a failed attempt in the ledger, no money moved", async () => {
    const a = await newAccount(sb, { payment: "fail", balance: 1 });
    const orderId = await newOrder(a, 2);
    await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT);
    await sb.control.advanceClock(3);
    expect(await orderStatus(a, orderId)).toBe("Draft");
    const ledger = await sb.control.ledger(a.apiKey);
    expect(ledger.balance).toBe(1);
    expect(ledger.entries.filter((e) => e.kind === "charge").map((e) => e.outcome)).toEqual(["failed"]);
    expect((await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: recipients(1, 20) })).status).toBe(
      200,
    );
    expect((await a.c.get(`/v1/order?id=${orderId}`)).json.payload.orders[0].paidDate).toBeNull();
  });

  test("a second checkout after a failed payment charges again (the sandbox models every charge)", async () => {
    const a = await newAccount(sb, { payment: "fail" });
    const orderId = await newOrder(a, 1);
    await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT);
    await sb.control.advanceClock(3);
    await sb.control.updateAccount({ apiKey: a.apiKey, payment: "succeed" });
    await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT);
    await sb.control.advanceClock(3);
    expect(await orderStatus(a, orderId)).toBe("Ready For Production");
    const charges = (await sb.control.ledger(a.apiKey)).entries.filter((e) => e.kind === "charge");
    expect(charges.map((e) => e.outcome)).toEqual(["failed", "succeeded"]);
    expect(new Set(charges.map((e) => e.checkoutId)).size).toBe(2);
  });

  test("two orders checked out are two charges; each checkout is counted in the ledger", async () => {
    const a = await newAccount(sb);
    const one = await newOrder(a, 1);
    const two = await newOrder(a, 1);
    await a.c.post(`/v1/order/${one}/checkout`, CHECKOUT);
    await a.c.post(`/v1/order/${two}/checkout`, CHECKOUT);
    await sb.control.advanceClock(3);
    const charges = (await sb.control.ledger(a.apiKey)).entries.filter(
      (e) => e.kind === "charge" && e.outcome === "succeeded",
    );
    expect(charges.map((e) => e.orderId)).toEqual([one, two]);
  });

  test("hang: the order stays in Payment Needed past settlementExpectedWithinSeconds, nothing charged", async () => {
    const a = await newAccount(sb, { payment: "hang" });
    const orderId = await newOrder(a, 1);
    const accepted = (await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT)).json.payload;
    await sb.control.advanceClock(accepted.settlementExpectedWithinSeconds * 10);
    expect(await orderStatus(a, orderId)).toBe("Payment Needed");
    expect((await sb.control.ledger(a.apiKey)).entries.filter((e) => e.kind === "charge")).toEqual([]);
    expectError(await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT), 400, "INVALID_ORDER_STATUS");
  });

  test("a hanging payment settles once when the account's behaviour changes (the processor answers at last)", async () => {
    const a = await newAccount(sb, { payment: "hang" });
    const orderId = await newOrder(a, 1);
    await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT);
    await sb.control.advanceClock(60);
    expect(await orderStatus(a, orderId)).toBe("Payment Needed");
    await sb.control.updateAccount({ apiKey: a.apiKey, payment: "succeed" });
    expect(await orderStatus(a, orderId)).toBe("Ready For Production");
    await sb.control.updateAccount({ apiKey: a.apiKey, payment: "fail" });
    await sb.control.advanceClock(60);
    const charges = (await sb.control.ledger(a.apiKey)).entries.filter((e) => e.kind === "charge");
    expect(charges.map((e) => e.outcome)).toEqual(["succeeded"]);
  });

  test("holdUntilDate keeps a paid order Paid until the date, then production starts", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 1);
    const now = Date.parse((await sb.control.clock()).now);
    // Given with an offset: compared and stored as UTC (5 days from now, written in UTC+02:00).
    const hold = new Date(now + 5 * 86400_000 + 2 * 3600_000).toISOString().replace("Z", "+02:00");
    expect(
      (await a.c.post(`/v1/order/${orderId}/checkout`, { ...CHECKOUT, holdUntilDate: hold })).status,
    ).toBe(200);
    await sb.control.advanceClock(3);
    expect(await orderStatus(a, orderId)).toBe("Paid");
    // In Paid: append, recipient delete, order delete, preview and checkout are refused, nothing changes.
    expectError(
      await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: recipients(1, 30) }),
      400,
      "INVALID_ORDER_STATUS",
    );
    expectError(
      await a.c.del(`/v1/order/${orderId}/recipients`, { recipientIds: [1] }),
      400,
      "INVALID_ORDER_STATUS",
    );
    expectError(await a.c.del(`/v1/order/${orderId}`), 400, "INVALID_ORDER_STATUS");
    expectError(await a.c.get(`/v1/order/${orderId}/checkout`), 400, "INVALID_ORDER_STATUS");
    expectError(await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT), 400, "INVALID_ORDER_STATUS");
    expect((await a.c.get(`/v1/order?id=${orderId}`)).json.payload.orders[0].recipientCount).toBe(1);
    await sb.control.advanceClock(5 * 86400);
    expect(await orderStatus(a, orderId)).toBe("Ready For Production");
  });

  test("execute: holdUntilDate too early, HailTrace, missing fields are 400 naming the field", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 1);
    const soon = new Date(Date.parse((await sb.control.clock()).now) + 86400_000).toISOString();
    expect(
      (await a.c.post(`/v1/order/${orderId}/checkout`, { ...CHECKOUT, holdUntilDate: soon })).json.errors[0],
    ).toMatch(/^holdUntilDate: /);
    expect(
      (await a.c.post(`/v1/order/${orderId}/checkout`, { ...CHECKOUT, postageType: "HailTrace" })).json
        .errors[0],
    ).toMatch(/^postageType: /);
    expect(
      (await a.c.post(`/v1/order/${orderId}/checkout`, { ...CHECKOUT, productionSpeed: "HailTrace" })).json
        .errors[0],
    ).toMatch(/^productionSpeed: /);
    const { errors } = expectError(await a.c.post(`/v1/order/${orderId}/checkout`, {}), 400);
    expect(errors).toMatch(/^postageType: /m);
    expect(errors).toMatch(/^productionSpeed: /m);
    expect(await orderStatus(a, orderId)).toBe("Draft");
    expect(
      (await a.c.post(`/v1/order/${orderId}/checkout`, { ...CHECKOUT, holdUntilDate: null })).status,
    ).toBe(200);
  });

  test("concurrent checkouts of one order: exactly one is accepted, one charge", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 2);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400]);
    await sb.control.advanceClock(3);
    const charges = (await sb.control.ledger(a.apiKey)).entries.filter((e) => e.kind === "charge");
    expect(charges).toHaveLength(1);
  });

  test("an order in Edits Needed can be checked out", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 1);
    await sb.control.setOrderState(orderId, { apiKey: a.apiKey, status: "Edits Needed" });
    expect((await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT)).json.payload.orderStatus).toBe(
      "Payment Needed",
    );
  });
});
