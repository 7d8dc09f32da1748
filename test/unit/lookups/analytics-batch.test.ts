/** The Order's refresh reads analytics through one batcher: the reads of one moment share a request. */
import { describe, expect, it } from "vitest";
import type { DirectMailClient } from "../../../provider/api/client";
import { ORDER_IDS_PER_REQUEST } from "../../../provider/api/order-entries";
import type { OrderAnalyticsEntry } from "../../../provider/api/schemas/analytics";
import { analyticsBatcher } from "../../../provider/lookups/analytics-batch";

function fakeClient(fail = false) {
  const calls: number[][] = [];
  const client = {
    getAnalytics: async (ids: number[]) => {
      calls.push(ids);
      if (fail) throw new Error("service down");
      return {
        orderId: null,
        status: "Success",
        orders: ids.map((orderId) => ({ orderId, status: orderId > 0 ? "Success" : "InvalidId" })),
      };
    },
  } as unknown as DirectMailClient;
  return { client, calls };
}

describe("analyticsBatcher", () => {
  it("sends the reads of one moment as one request, each read getting its own order's entry", async () => {
    const { client, calls } = fakeClient();
    const read = analyticsBatcher(() => client);
    const entries = await Promise.all([read(3), read(1), read(3), read(2)]);
    expect(calls).toEqual([[3, 1, 2]]);
    expect(entries.map((e) => (e as OrderAnalyticsEntry).orderId)).toEqual([3, 1, 3, 2]);
    await read(4);
    expect(calls).toEqual([[3, 1, 2], [4]]);
  });

  it("splits a large refresh into requests of at most ORDER_IDS_PER_REQUEST ids", async () => {
    const { client, calls } = fakeClient();
    const read = analyticsBatcher(() => client);
    const ids = Array.from({ length: ORDER_IDS_PER_REQUEST * 2 + 1 }, (_, i) => i + 1);
    await Promise.all(ids.map(read));
    expect(calls.map((c) => c.length)).toEqual([ORDER_IDS_PER_REQUEST, ORDER_IDS_PER_REQUEST, 1]);
  });

  it("fails every read of a failed request with its error", async () => {
    const { client } = fakeClient(true);
    const read = analyticsBatcher(() => client);
    const results = await Promise.allSettled([read(1), read(2)]);
    expect(results.map((r) => r.status === "rejected" && (r.reason as Error).message)).toEqual([
      "service down",
      "service down",
    ]);
  });
});
