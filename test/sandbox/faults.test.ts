import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { type Account, CHECKOUT, newAccount, newOrder, orderStatus } from "./fixtures";
import { http } from "./http";

let sb: TestSandbox;
let a: Account;
beforeAll(async () => {
  sb = await startTestSandbox();
  a = await newAccount(sb);
});
afterEach(() => sb.control.clearFaults());
afterAll(() => sb.close());

const orderCount = async () => (await a.c.get("/v1/order")).json.payload.totalCount as number;

describe("fault injection (control API: POST/GET/DELETE /_sandbox/faults)", () => {
  test("status before: the request never takes effect", async () => {
    const before = await orderCount();
    await sb.control.addFault({ method: "POST", path: "/v1/order", kind: "status", status: 503, times: 1 });
    const r = await a.c.post("/v1/order", { templateId: a.templateId });
    expect(r.status).toBe(503);
    expect(r.json.errorCode).toBe("SANDBOX_FAULT");
    expect(await orderCount()).toBe(before);
    // times: 1, used up: the next request goes through.
    expect((await a.c.post("/v1/order", { templateId: a.templateId })).status).toBe(200);
    expect(await orderCount()).toBe(before + 1);
  });

  test("status after: the request takes effect, then the status is returned", async () => {
    const before = await orderCount();
    await sb.control.addFault({
      method: "POST",
      path: "/v1/order",
      kind: "status",
      status: 500,
      after: true,
      times: 1,
    });
    const r = await a.c.post("/v1/order", { templateId: a.templateId });
    expect(r.status).toBe(500);
    expect(await orderCount()).toBe(before + 1);
  });

  test("reset before: the connection is destroyed and nothing happens", async () => {
    const orderId = await newOrder(a, 1);
    await sb.control.addFault({ path: "/v1/order/*/checkout", method: "POST", kind: "reset", times: 1 });
    await expect(a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT)).rejects.toThrow();
    expect(await orderStatus(a, orderId)).toBe("Draft");
  });

  test("reset after a checkout: accepted and charged exactly once, though the client never heard", async () => {
    const orderId = await newOrder(a, 1);
    await sb.control.addFault({
      path: "/v1/order/{id}/checkout",
      method: "POST",
      kind: "reset",
      after: true,
      times: 1,
    });
    await expect(a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT)).rejects.toThrow();
    expect(await orderStatus(a, orderId)).toBe("Payment Needed");
    await sb.control.advanceClock(3);
    const charges = (await sb.control.ledger(a.apiKey)).entries.filter(
      (e) => e.orderId === orderId && e.kind === "charge",
    );
    expect(charges).toHaveLength(1);
  });

  test("delay before and after hold the answer back by delayMs", async () => {
    await sb.control.addFault({ path: "/v1/me", kind: "delay", delayMs: 300, times: 1 });
    let t = Date.now();
    expect((await a.c.get("/v1/me")).status).toBe(200);
    expect(Date.now() - t).toBeGreaterThanOrEqual(290);
    await sb.control.addFault({
      path: "/v1/order",
      method: "POST",
      kind: "delay",
      delayMs: 1500,
      after: true,
      times: 1,
    });
    const before = await orderCount();
    t = Date.now();
    let answered = false;
    const pending = a.c.post("/v1/order", { templateId: a.templateId }).then((r) => {
      answered = true;
      return r;
    });
    // After: the order exists while the answer is still held back.
    let count = await orderCount();
    while (count === before && Date.now() - t < 1200) count = await orderCount();
    expect(count).toBe(before + 1);
    expect(answered).toBe(false);
    expect((await pending).status).toBe(200);
    expect(Date.now() - t).toBeGreaterThanOrEqual(1490);
  });

  test("delay before: a request received in full runs after the delay even when its client gave up", async () => {
    // A slow service: the client times out and hangs up, the service still applies the request.
    await sb.control.addFault({ method: "POST", path: "/v1/order", kind: "delay", delayMs: 800, times: 1 });
    const before = await orderCount();
    const gaveUp = fetch(`${sb.url}/v1/order`, {
      method: "POST",
      headers: { "x-api-key": a.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ templateId: a.templateId }),
      signal: AbortSignal.timeout(200),
    });
    await expect(gaveUp).rejects.toThrow();
    expect(await orderCount()).toBe(before);
    const t = Date.now();
    let count = before;
    while (count === before && Date.now() - t < 3000) count = await orderCount();
    expect(count).toBe(before + 1);
  });

  test("times counts firings; without times a fault fires until cleared", async () => {
    await sb.control.addFault({ path: "/v1/me", kind: "status", status: 502, times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await a.c.get("/v1/me")).status);
    expect(statuses).toEqual([502, 502, 200]);
    await sb.control.addFault({ path: "/v1/me", kind: "status", status: 500 });
    for (let i = 0; i < 5; i++) expect((await a.c.get("/v1/me")).status).toBe(500);
    const listed = (await sb.control.listFaults()).faults;
    expect(listed.map((f) => [f.fired, f.remaining])).toEqual([
      [2, 0],
      [5, null],
    ]);
    await sb.control.clearFaults();
    expect((await a.c.get("/v1/me")).status).toBe(200);
  });

  test("matching: method, '*' for one segment, '**' for any, '{name}' like '*'; the control API is never faulted", async () => {
    await sb.control.addFault({ method: "GET", path: "/v1/order/*/recipients", kind: "status", status: 418 });
    await sb.control.addFault({ path: "/v1/conversions/**", kind: "status", status: 409 });
    const orderId = await newOrder(a, 1);
    expect((await a.c.get(`/v1/order/${orderId}/recipients`)).status).toBe(418);
    expect((await a.c.del(`/v1/order/${orderId}/recipients`, { recipientIds: [1] })).status).toBe(200);
    expect((await a.c.get(`/v1/order/${orderId}/recipients/delivery-status?address1=x`)).status).not.toBe(
      418,
    );
    expect((await a.c.get("/v1/conversions/5/status")).status).toBe(409);
    expect((await a.c.get("/v1/order")).status).toBe(200);
    await sb.control.addFault({ path: "/_sandbox/**", kind: "status", status: 500 });
    expect(Number.isNaN(Date.parse((await sb.control.clock()).now))).toBe(false);
  });

  test("429 carries Retry-After; 403 has no body", async () => {
    await sb.control.addFault({
      path: "/v1/me",
      kind: "status",
      status: 429,
      retryAfterSeconds: 7,
      times: 1,
    });
    const limited = await a.c.get("/v1/me");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("7");
    expect(limited.json.errorCode).toBe("RATE_LIMITED");
    await sb.control.addFault({ path: "/v1/me", kind: "status", status: 403, times: 1 });
    const forbidden = await a.c.get("/v1/me");
    expect(forbidden.status).toBe(403);
    expect(forbidden.bytes.length).toBe(0);
  });

  test("a fault spec is validated", async () => {
    for (const bad of [
      { path: "/v1/me", kind: "status" },
      { path: "/v1/me", kind: "delay" },
      { kind: "reset" },
      { path: "/v1/me", kind: "explode" },
      { path: "/v1/me", kind: "reset", probability: 2 },
    ]) {
      const r = await http(sb.url, "POST", "/_sandbox/faults", { body: bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.json.error).toMatch(/\w{3,}/);
    }
  });
});

describe("fault probability (deterministic random source)", () => {
  test("a fault fires when random() < probability; a miss does not use up a time", async () => {
    const draws = [0.9, 0.1, 0.6, 0.2, 0.3];
    const own = await startTestSandbox({ random: () => draws.shift() ?? 0.99 });
    try {
      const b = await newAccount(own);
      await own.control.addFault({ path: "/v1/me", kind: "status", status: 500, probability: 0.5, times: 2 });
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await b.c.get("/v1/me")).status);
      // 0.9 miss, 0.1 fire, 0.6 miss, 0.2 fire (times used up), then no fault at all.
      expect(statuses).toEqual([200, 500, 200, 500, 200]);
      expect(draws).toEqual([0.3]);
    } finally {
      await own.close();
    }
  });

  test("probability 0 never fires", async () => {
    await sb.control.addFault({ path: "/v1/me", kind: "status", status: 500, probability: 0 });
    for (let i = 0; i < 10; i++) expect((await a.c.get("/v1/me")).status).toBe(200);
  });
});
