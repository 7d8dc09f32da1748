/**
 * `directmail status` and `directmail report` read many orders in few requests: the analytics and
 * the transaction report (entries 12 and 13) take a list of ids, and the sandbox answers one entry
 * per listed id, in the listed order. Counted in the sandbox's own request log, for one order more
 * than a request carries: two requests of each, where a request per order would be hundreds.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orderStatus } from "../../../cli/commands/status";
import { gatherOrders } from "../../../cli/report/gather";
import { DirectMailClient } from "../../../provider/api/client";
import { ORDER_IDS_PER_REQUEST } from "../../../provider/api/order-entries";
import { startTestSandbox, type TestSandbox } from "../../support/sandbox";

const ORDERS = ORDER_IDS_PER_REQUEST + 1;
const log: string[] = [];
let sb: TestSandbox;
let client: DirectMailClient;
let orderIds: number[];

beforeAll(async () => {
  sb = await startTestSandbox({ requestLog: true, log: (line) => log.push(line) });
  const { apiKey } = await sb.control.createAccount({ balance: 100 });
  const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  orderIds = [];
  for (let i = 0; i < ORDERS; i++) orderIds.push((await client.createOrder({ templateId })).orderId);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await sb?.close();
});

/** The v1 requests the sandbox logged while `work` ran, by method and path (no query). */
async function requestsOf(work: () => Promise<unknown>): Promise<string[]> {
  const before = log.length;
  await work();
  return log
    .slice(before)
    .map((line) => / (GET|POST|PUT|DELETE) (\/v1\/[^? ]*)/.exec(line))
    .filter((m) => m !== null)
    .map((m) => `${m[1]} ${m[2]}`);
}

describe("reading many orders", () => {
  it("the sandbox answers a list of ids with one entry per id, in the listed order, a missing one in its own entry", async () => {
    const [first, second] = orderIds as [number, number];
    const ids = [second, 999_999_999, first];
    const analytics = await client.getAnalytics(ids);
    const transactions = await client.getTransactions(ids);
    for (const report of [analytics, transactions]) {
      expect(report.orders.map((e) => [e.orderId, e.status])).toEqual([
        [second, "Success"],
        [999_999_999, "NotFound"],
        [first, "Success"],
      ]);
    }
  });

  it(`directmail status of ${ORDERS} orders: two analytics and two transactions requests`, async () => {
    let reports: Awaited<ReturnType<typeof orderStatus>> = [];
    const requests = await requestsOf(async () => {
      reports = await orderStatus(
        client,
        orderIds.map((orderId) => ({ orderId, campaign: null })),
      );
    });
    expect(reports.map((r) => [r.orderId, r.status])).toEqual(orderIds.map((id) => [id, "Draft"]));
    expect(requests.sort()).toEqual([
      "GET /v1/order/analytics",
      "GET /v1/order/analytics",
      "GET /v1/order/transaction",
      "GET /v1/order/transaction",
    ]);
  });

  it(`directmail report of ${ORDERS} orders: two analytics and two transactions requests`, async () => {
    let orders: Awaited<ReturnType<typeof gatherOrders>> = [];
    const requests = await requestsOf(async () => {
      orders = await gatherOrders(
        client,
        orderIds.map((orderId) => ({ orderId, campaign: `c-${orderId}`, drops: undefined })),
      );
    });
    expect(orders.map((o) => [o.orderId, o.name, o.error])).toEqual(
      orderIds.map((id) => [id, `c-${id}`, undefined]),
    );
    expect(requests.sort()).toEqual([
      "GET /v1/order/analytics",
      "GET /v1/order/analytics",
      "GET /v1/order/transaction",
      "GET /v1/order/transaction",
    ]);
  });
});
