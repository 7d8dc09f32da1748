/**
 * Load: 50 concurrent clients (autocannon) on a mix of reads and writes against `directmail sandbox`
 * (file-backed, as users run it) in a child process. Every request must succeed (no non-2xx, socket
 * error or timeout), and afterwards the sandbox must hold exactly what the 2xx writes created: the
 * orders, the appended recipients (per order), the address-book entries, and a ledger with nothing
 * but the opening credit (the mix previews checkouts, which must not charge).
 */
import * as fs from "node:fs";
import { afterAll, expect, test } from "vitest";
import { http, recipient } from "../sandbox/http";
import { type CliSandbox, scratchDir, startCliSandbox } from "../support/cli-sandbox";
import { controlClient } from "../support/sandbox";
import { atScale, recordFigures } from "./support/figures";

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
interface AutocannonRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
  onResponse?: (status: number, body: string) => void;
}
// autocannon ships no types; this is the part of its programmatic API the test uses.
const autocannon = require("autocannon") as (
  options: object,
  done: (error: Error | null, result: AutocannonResult) => void,
) => unknown;

const SECONDS = atScale(3, 30);
const CONNECTIONS = 50;
/** Orders the appends spread over (a fresh order per append would test order creation twice). */
const APPEND_TARGETS = 20;

const data = scratchDir("load");
let sandbox: CliSandbox | undefined;
afterAll(async () => {
  await sandbox?.stop();
  fs.rmSync(data, { recursive: true, force: true });
});

test(
  `${CONNECTIONS} clients for ${SECONDS} s on reads and writes: no error, and the writes are all there`,
  async () => {
    sandbox = await startCliSandbox(data);
    const url = sandbox.url;
    const control = controlClient(url);
    const { apiKey, balance } = await control.createAccount({ email: "load@shop.test", balance: 500 });
    const { id: templateId } = await control.createTemplate({ apiKey, name: "Load card" });
    const targets: number[] = [];
    for (let i = 0; i < APPEND_TARGETS; i++) {
      const r = await http(url, "POST", "/v1/order", { apiKey, body: { templateId } });
      targets.push(r.json.payload.orderId);
    }
    await http(url, "PUT", `/v1/order/${targets[0]}/recipients`, {
      apiKey,
      body: { recipients: [recipient({ firstName: "Seed" })] },
    });

    const headers = { "x-api-key": apiKey, "content-type": "application/json" };
    let seq = 0;
    // What the 2xx answers acknowledged, and what was sent: autocannon stops at the deadline without
    // waiting for the requests in flight, which the sandbox may still carry out.
    const created = { orders: 0, addressBook: 0 };
    const sent = { orders: 0, addressBook: 0 };
    const appended = new Map<number, number>(targets.map((t) => [t, t === targets[0] ? 1 : 0]));
    const appendsSent = new Map<number, number>(appended);
    const ok = (status: number) => status >= 200 && status < 300;
    const requests: AutocannonRequest[] = [
      { method: "GET", path: "/v1/me", headers },
      {
        method: "POST",
        path: "/v1/order",
        headers,
        body: JSON.stringify({ templateId }),
        setupRequest: (request) => {
          sent.orders++;
          return request;
        },
        onResponse: (status) => {
          if (ok(status)) created.orders++;
        },
      },
      {
        method: "PUT",
        path: "/",
        headers,
        setupRequest: (request) => {
          const n = ++seq;
          const target = targets[n % APPEND_TARGETS] as number;
          const batch = [
            recipient({ firstName: `L${n}a`, address1: `${n} Oak Avenue` }),
            recipient({ firstName: `L${n}b`, address1: `${n} Elm Street` }),
          ];
          appendsSent.set(target, (appendsSent.get(target) ?? 0) + batch.length);
          return {
            ...request,
            path: `/v1/order/${target}/recipients`,
            body: JSON.stringify({ recipients: batch }),
          };
        },
      },
      { method: "GET", path: `/v1/order?id=${targets[0]}`, headers },
      { method: "GET", path: `/v1/order/${targets[0]}/recipients?pageSize=50`, headers },
      { method: "GET", path: `/v1/order/${targets[0]}/checkout`, headers },
      {
        method: "POST",
        path: "/v1/address-book",
        headers,
        setupRequest: (request) => {
          sent.addressBook++;
          return {
            ...request,
            body: JSON.stringify({
              firstName: "Ada",
              lastName: `Load${++seq}`,
              toOrganization: "",
              address1: `${seq} Oak Avenue`,
              address2: "",
              city: "Springfield",
              state: "IL",
              zip: "62701",
              phoneNumber: null,
            }),
          };
        },
        onResponse: (status) => {
          if (ok(status)) created.addressBook++;
        },
      },
      { method: "GET", path: "/v1/templates", headers },
    ];
    // Appends are counted from their answers: the answer names the order it appended to.
    (requests[2] as AutocannonRequest).onResponse = (status, body) => {
      if (!ok(status)) return;
      const { payload } = JSON.parse(body);
      appended.set(payload.orderId, (appended.get(payload.orderId) ?? 0) + 2);
    };

    const result = await new Promise<AutocannonResult>((resolve, reject) =>
      autocannon({ url, connections: CONNECTIONS, duration: SECONDS, timeout: 10, requests }, (error, r) =>
        error ? reject(error) : resolve(r),
      ),
    );
    const loadErrors = result.non2xx + result.errors + result.timeouts;
    recordFigures("load", {
      loadSeconds: SECONDS,
      loadErrors,
      loadP99Ms: result.latency.p99,
      loadRequestsPerSec: Math.round(result.requests.average),
    });
    expect({ non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts }).toEqual({
      non2xx: 0,
      errors: 0,
      timeouts: 0,
    });
    expect(result.requests.total).toBeGreaterThan(CONNECTIONS * 8);

    // Consistency: every acknowledged write is there once; beyond them, at most the writes still in
    // flight at the deadline (sent, never answered), and nothing else.
    const within = (n: number, acknowledged: number, sentCount: number, what: string) => {
      expect(n, `${what}: at least the ${acknowledged} acknowledged`).toBeGreaterThanOrEqual(acknowledged);
      expect(n, `${what}: at most the ${sentCount} sent`).toBeLessThanOrEqual(sentCount);
    };
    expect(sent.orders - created.orders + sent.addressBook - created.addressBook).toBeLessThanOrEqual(
      CONNECTIONS,
    );
    const orders = await http(url, "GET", "/v1/order?pageSize=1000", { apiKey });
    within(orders.json.payload.totalCount - APPEND_TARGETS, created.orders, sent.orders, "orders");
    const counts = new Map<number, number>(
      orders.json.payload.orders.map((o: { orderId: number; recipientCount: number }) => [
        o.orderId,
        o.recipientCount,
      ]),
    );
    for (const target of targets) {
      const n = counts.get(target) ?? 0;
      within(n, appended.get(target) ?? 0, appendsSent.get(target) ?? 0, `recipients of order ${target}`);
      const listed = await http(url, "GET", `/v1/order/${target}/recipients?pageSize=1000`, { apiKey });
      const names = listed.json.payload.recipients.map(
        (r: { personal: { firstName: string } }) => r.personal.firstName,
      );
      expect(new Set(names).size, `distinct recipients of order ${target}`).toBe(n);
    }
    within(
      (await control.addressBook(apiKey)).entries.length,
      created.addressBook,
      sent.addressBook,
      "address book",
    );
    const ledger = await control.ledger(apiKey);
    expect(ledger.entries.map((e) => [e.kind, e.amount])).toEqual([["credit", balance]]);
    expect(ledger.balance).toBe(balance);
    expect(created.orders).toBeGreaterThan(0);
    expect(created.addressBook).toBeGreaterThan(0);
    expect([...appended.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(CONNECTIONS);
  },
  atScale(60_000, 180_000),
);

test("50 concurrent checkouts of the same order: one is accepted, one charge on the ledger", async () => {
  const url = (sandbox as CliSandbox).url;
  const control = controlClient(url);
  const { apiKey, balance } = await control.createAccount({ email: "race@shop.test", balance: 500 });
  const { id: templateId } = await control.createTemplate({ apiKey, name: "Race card" });
  const orders: number[] = [];
  for (let i = 0; i < 5; i++) {
    const id = (await http(url, "POST", "/v1/order", { apiKey, body: { templateId } })).json.payload.orderId;
    await http(url, "PUT", `/v1/order/${id}/recipients`, { apiKey, body: { recipients: [recipient()] } });
    orders.push(id);
  }
  const answers = await Promise.all(
    orders.flatMap((id) =>
      Array.from({ length: CONNECTIONS }, () =>
        http(url, "POST", `/v1/order/${id}/checkout`, {
          apiKey,
          body: { postageType: "Standard", productionSpeed: "Normal" },
        }).then((r) => ({ id, status: r.status, code: r.json?.errorCode })),
      ),
    ),
  );
  for (const id of orders) {
    const mine = answers.filter((a) => a.id === id);
    expect(
      mine.filter((a) => a.status === 200),
      `order ${id}`,
    ).toHaveLength(1);
    // Every other attempt finds the order no longer in Draft.
    expect(new Set(mine.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.code}`))).toEqual(
      new Set(["400 INVALID_ORDER_STATUS"]),
    );
  }
  await control.advanceClock(30);
  const ledger = await control.ledger(apiKey);
  const charges = ledger.entries.filter((e) => e.kind === "charge");
  expect(charges.map((e) => e.orderId).sort()).toEqual([...orders].sort());
  expect(charges.every((e) => e.outcome === "succeeded")).toBe(true);
  expect(ledger.balance).toBeCloseTo(balance - charges.reduce((sum, e) => sum + e.amount, 0), 2);
});
