import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  OrderAnalyticsResponse,
  OrderTransactionResponse,
  RecipientStatisticResponse,
} from "../../provider/api/schemas";
import { DEFAULT_TIMINGS, PRICES } from "../../sandbox/assumptions";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { expectError, newAccount, newOrder, parsed } from "./fixtures";
import { recipient } from "./http";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());

const scan = (orderId: number, orderRecipientId: number, statisticValue: unknown = "1") => ({
  orderId,
  statisticName: 1,
  statisticValue,
  orderRecipientId,
});

describe("POST /v1/order-recipients-statistics (entry 17)", () => {
  test("echoes the record with its recipient; the scan is applied shortly after, not at once", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 2);
    const [r1] = (await a.c.get(`/v1/order/${orderId}/recipients`)).json.payload.recipients;
    const res = parsed(
      RecipientStatisticResponse,
      await a.c.post("/v1/order-recipients-statistics", scan(orderId, r1.id, "3")),
    );
    expect(res.payload).toMatchObject({
      orderId,
      statisticName: 1,
      statisticValue: "3",
      orderRecipientId: r1.id,
    });
    expect(res.payload.orderRecipient).toMatchObject({ id: r1.id, firstName: "R1", qrCodeScanCount: 0 });
    const totals = async () =>
      parsed(OrderAnalyticsResponse, await a.c.get(`/v1/order/analytics?id=${orderId}`)).payload.orders[0]
        ?.qrCode;
    expect((await totals())?.totalScans).toBe(0);
    await sb.control.advanceClock(DEFAULT_TIMINGS.scanSeconds);
    const after = await totals();
    expect(after?.totalScans).toBe(3);
    expect(after?.recipients).toEqual([
      { id: r1.id, firstName: "R1", lastName: "Test", totalScans: "3", lastScan: expect.any(String) },
    ]);
    await a.c.post("/v1/order-recipients-statistics", scan(orderId, r1.id, "2"));
    await sb.control.advanceClock(DEFAULT_TIMINGS.scanSeconds);
    expect((await totals())?.totalScans).toBe(5);
  });

  test("a statisticValue that is not a whole number is 400 naming the value", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 1);
    const rid = (await a.c.get(`/v1/order/${orderId}/recipients`)).json.payload.recipients[0].id;
    // One rule everywhere: digits only, nothing trimmed; the value itself is named.
    for (const bad of ["abc", "1.5", "-2", "", 7, " 7", "7 ", "+7", "1e3", "2147483648"]) {
      const { errors } = expectError(
        await a.c.post("/v1/order-recipients-statistics", scan(orderId, rid, bad)),
        400,
        "INVALID_STATISTIC_VALUE",
      );
      expect(errors).toBe(
        `statisticValue: ${JSON.stringify(bad)} is not a whole number from 0 to 2147483647 written in digits only`,
      );
    }
    await sb.control.advanceClock(10);
    expect(
      (await a.c.get(`/v1/order/analytics?id=${orderId}`)).json.payload.orders[0].qrCode.totalScans,
    ).toBe(0);
  });

  test("the recipient must belong to the order (404), other fields are validated (400)", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 1);
    const other = await newOrder(a, 1);
    const foreign = (await a.c.get(`/v1/order/${other}/recipients`)).json.payload.recipients[0].id;
    expectError(await a.c.post("/v1/order-recipients-statistics", scan(orderId, foreign)), 404, "NOT_FOUND");
    const { errors } = expectError(
      await a.c.post("/v1/order-recipients-statistics", { statisticValue: "1" }),
      400,
    );
    expect(errors).toMatch(/^orderId: /m);
    expect(errors).toMatch(/^orderRecipientId: /m);
  });
});

describe("GET /v1/order/analytics (entry 12)", () => {
  test("delivery counts follow the carrier timeline; every bucket adds up to totalCards", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    await sb.control.addDoNotMail({
      apiKey: a.apiKey,
      address1: "4 Dnm St",
      city: "Springfield",
      state: "IL",
      zip: "62701",
    });
    await a.c.put(`/v1/order/${orderId}/recipients`, {
      recipients: [
        recipient({ firstName: "A", address1: "1 Pine St" }),
        recipient({ firstName: "B", address1: "2 Pine St" }),
        recipient({ firstName: "C", address1: "3 Pine Towers" }),
        recipient({ firstName: "D", address1: "4 Dnm St" }),
      ],
    });
    const get = async () =>
      parsed(OrderAnalyticsResponse, await a.c.get(`/v1/order/analytics?id=${orderId}`)).payload.orders[0];
    const before = await get();
    expect(before).toMatchObject({
      status: "Success",
      totalCards: 3,
      waitingUSPS: 0,
      delivered: 0,
      paidDate: null,
      orderStatus: "Draft",
      campaignName: "Plain card",
      product: "Handwritten Postcard",
    });
    await a.c.post(`/v1/order/${orderId}/checkout`, { postageType: "Standard", productionSpeed: "Normal" });
    await sb.control.advanceClock(3 + 3600 + 3 * 86400);
    const mailed = await get();
    expect(mailed).toMatchObject({
      orderStatus: "Mailed",
      waitingUSPS: 3,
      postageType: "Standard",
      productionSpeed: "Normal",
    });
    expect(mailed?.paidDate).not.toBeNull();
    expect(Date.parse(mailed?.minEstimatedDeliveredDate as string)).toBeLessThan(
      Date.parse(mailed?.maxEstimatedDeliveredDate as string),
    );
    await sb.control.advanceClock(36 * 3600);
    const transit = await get();
    expect(transit?.inTransit).toBe(3);
    await sb.control.advanceClock(6 * 86400);
    const done = await get();
    // C's address was confirmed only to the building (DPV D): it comes back undeliverable.
    expect(done).toMatchObject({
      delivered: 2,
      undeliverable: 1,
      waitingUSPS: 0,
      inTransit: 0,
      orderStatus: "Complete",
    });
    for (const entry of [before, mailed, transit, done]) {
      const sum = entry
        ? entry.mailed +
          entry.inTransit +
          entry.localFacility +
          entry.delivered +
          entry.undeliverable +
          entry.waitingUSPS
        : -1;
      expect(sum === 0 || sum === entry?.totalCards).toBe(true);
    }
  });

  test("orders that cannot be processed get an error status in their own entry; the request succeeds", async () => {
    const a = await newAccount(sb);
    const b = await newAccount(sb);
    const mine = await newOrder(a, 1);
    const theirs = await newOrder(b, 1);
    const r = parsed(
      OrderAnalyticsResponse,
      await a.c.get(`/v1/order/analytics?id=${mine},${theirs},424242,${a.templateId}`),
    );
    expect(r.payload.orders.map((o) => [o.orderId, o.status])).toEqual([
      [mine, "Success"],
      [theirs, "NotFound"],
      [424242, "NotFound"],
      [a.templateId, "NotFound"],
    ]);
    const { errors } = expectError(await a.c.get("/v1/order/analytics"), 400);
    expect(errors).toMatch(/^id: /);
  });
});

describe("an id list with unusable entries (entries 12 and 13)", () => {
  test.each([
    ["analytics", OrderAnalyticsResponse],
    ["transaction", OrderTransactionResponse],
  ] as const)(
    "/v1/order/%s: each unusable entry fails in its own entry, in the listed order; the request succeeds",
    async (name, schema) => {
      const a = await newAccount(sb);
      const orderId = await newOrder(a, 1);
      const r = await a.c.get(`/v1/order/${name}?id=${orderId},abc,,0,%205,1e3,99999999999999999999,424242`);
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      // The client's schema reads such entries (orderId null where the entry is not a whole number).
      const body = parsed(schema, r);
      expect(body.hasErrors).toBe(false);
      expect(body.payload.orders.map((o) => [o.orderId, o.status])).toEqual([
        [orderId, "Success"],
        [null, "InvalidId"],
        [null, "InvalidId"],
        [0, "InvalidId"],
        // The one whole-number rule: nothing is trimmed.
        [null, "InvalidId"],
        [null, "InvalidId"],
        [null, "InvalidId"],
        [424242, "NotFound"],
      ]);
      // An entry whose id is unusable alone still answers 200, with the request-level orderId null.
      const alone = parsed(schema, await a.c.get(`/v1/order/${name}?id=abc`));
      expect(alone.payload).toMatchObject({
        orderId: null,
        status: "Success",
        orders: [{ orderId: null, status: "InvalidId" }],
      });
      // Only a missing or empty list fails the request.
      for (const q of ["", "?id="]) {
        const { errors } = expectError(await a.c.get(`/v1/order/${name}${q}`), 400, "INVALID_REQUEST");
        expect(errors).toMatch(/^id: /);
      }
    },
  );
});

describe("GET /v1/order/transaction (entry 13)", () => {
  test("line items and price breakdown of a paid order, with its charges as transactions", async () => {
    const a = await newAccount(sb, { balance: 1 });
    const orderId = await newOrder(a, 2);
    await a.c.post(`/v1/order/${orderId}/checkout`, {
      postageType: "FirstClass",
      productionSpeed: "ExpeditedFaster",
    });
    await sb.control.advanceClock(3);
    const r = parsed(OrderTransactionResponse, await a.c.get(`/v1/order/transaction?id=${orderId},55`));
    expect(r.payload.status).toBe("Success");
    const [entry, missing] = r.payload.orders;
    const base = PRICES.base["Handwritten Postcard"] as number;
    expect(entry).toMatchObject({
      orderId,
      status: "Success",
      volume: 2,
      product: "Handwritten Postcard",
      orderStatus: "Ready For Production",
      transactionType: "LineItemDebit",
      transactionSubType: "HandWrittenPostCard",
      isCredit: false,
      detail: {
        basePrice: base,
        postagePrice: PRICES.postage.FirstClass,
        expedited: PRICES.speed.ExpeditedFaster,
        doubleSided: 0,
        extraText: 0,
      },
    });
    const perPiece = base + (PRICES.postage.FirstClass as number) + (PRICES.speed.ExpeditedFaster as number);
    expect(entry?.costPerPiece).toBeCloseTo(perPiece, 2);
    expect(entry?.totalPrice).toBeCloseTo(perPiece * 2, 2);
    expect(entry?.transactions.map((t) => t.amount)).toEqual([1, Math.round((perPiece * 2 - 1) * 100) / 100]);
    expect(entry?.transactions.every((t) => t.orderId === orderId && !t.isCredit)).toBe(true);
    expect(missing).toMatchObject({ orderId: 55, status: "NotFound", transactions: [] });
  });

  test("an unpaid order reports its volume and no transactions", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 3);
    const entry = parsed(OrderTransactionResponse, await a.c.get(`/v1/order/transaction?id=${orderId}`))
      .payload.orders[0];
    expect(entry).toMatchObject({ status: "Success", volume: 3, paidDate: null, transactions: [] });
  });
});
