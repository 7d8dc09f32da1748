/**
 * The spec's state table as a matrix: every order status against every operation the table
 * constrains. Orders are put in each status through the control API, then the public API is asked.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { EDITABLE_ORDER_STATUSES, ORDER_STATUS } from "../../provider/api/schemas";
import { DEFAULT_TIMINGS } from "../../sandbox/assumptions";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { type Account, CHECKOUT, newAccount, newOrder, orderStatus } from "./fixtures";
import { recipients } from "./http";

let sb: TestSandbox;
let a: Account;
beforeAll(async () => {
  sb = await startTestSandbox();
  a = await newAccount(sb, { balance: 1000 });
});
afterAll(() => sb.close());

/** Every status of the one list the client and the sandbox share. */
const STATUSES = Object.values(ORDER_STATUS);
/** The spec's editable statuses ("Needs Edits" is the deletion rule's spelling of "Edits Needed"). */
const EDITABLE = new Set(["Draft", "Edits Needed", "Needs Edits"]);

/** Each operation the table constrains, and its success status in an editable order. */
const operations: [
  string,
  (orderId: number, recipientId: number) => Promise<{ status: number; json: any }>,
  number,
][] = [
  ["append", (id) => a.c.put(`/v1/order/${id}/recipients`, { recipients: recipients(1, 900) }), 200],
  ["recipient delete", (id, r) => a.c.del(`/v1/order/${id}/recipients`, { recipientIds: [r] }), 200],
  ["order delete", (id) => a.c.del(`/v1/order/${id}`), 200],
  ["checkout preview", (id) => a.c.get(`/v1/order/${id}/checkout`), 200],
  ["checkout", (id) => a.c.post(`/v1/order/${id}/checkout`, CHECKOUT), 200],
];

describe("state table: which operations each order status allows", () => {
  const cases = STATUSES.flatMap((status) =>
    operations.map(([name, call, ok]) => [status, name, call, ok] as const),
  );
  test.each(cases)("%s: %s", async (status, _name, call, ok) => {
    const orderId = await newOrder(a, 1);
    const recipientId = (await a.c.get(`/v1/order/${orderId}/recipients`)).json.payload.recipients[0].id;
    await sb.control.setOrderState(orderId, { apiKey: a.apiKey, status });
    const before = (await a.c.get(`/v1/order?id=${orderId}`)).json.payload.orders[0];
    const r = await call(orderId, recipientId);
    if (EDITABLE.has(status)) {
      expect(r.status, JSON.stringify(r.json)).toBe(ok);
    } else {
      // One standard invalid-status error for every operation the table refuses (spec).
      expect(r.status).toBe(400);
      expect(r.json.errorCode).toBe("INVALID_ORDER_STATUS");
      expect(r.json.errors[0]).toContain(`'${status}'`);
      // Refused means unchanged: same status, same recipients.
      const after = (await a.c.get(`/v1/order?id=${orderId}`)).json.payload.orders[0];
      expect(after).toMatchObject({ orderStatus: before.orderStatus, recipientCount: before.recipientCount });
      expect(await orderStatus(a, orderId)).toBe(status);
    }
  });

  test("the shared list of editable statuses is the spec's", () => {
    expect(new Set(EDITABLE_ORDER_STATUSES)).toEqual(EDITABLE);
  });

  test("every status an order passes through is one the client knows (ORDER_STATUS)", async () => {
    const seen: (string | undefined)[] = [];
    const note = async (orderId: number) => seen.push(await orderStatus(a, orderId));
    const held = await newOrder(a, 1);
    await note(held);
    const hold = new Date(Date.parse((await sb.control.clock()).now) + 5 * 86400_000).toISOString();
    await a.c.post(`/v1/order/${held}/checkout`, { ...CHECKOUT, holdUntilDate: hold });
    await note(held);
    for (const seconds of [DEFAULT_TIMINGS.settlementSeconds, 5 * 86400, 3600, 3 * 86400, 5 * 86400]) {
      await sb.control.advanceClock(seconds);
      await note(held);
    }
    expect(seen).toEqual([
      "Draft",
      "Payment Needed",
      "Paid",
      "Ready For Production",
      "In Production",
      "Mailed",
      "Complete",
    ]);
    const known = new Set<string | undefined>(STATUSES);
    for (const status of seen) expect(known.has(status), `${status}`).toBe(true);
  });
});
