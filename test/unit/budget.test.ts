/** The monthly budget's sum and comparison, this month's charges, and the stack setting. */
import { describe, expect, it } from "vitest";
import { chargesThisMonth, monthStart } from "../../provider/api/charges";
import type { DirectMailClient } from "../../provider/api/client";
import { aboveBudget, budgetLeft, describeBudget } from "../../provider/budget";
import { parseMonthlyBudget, resolveSettings } from "../../provider/settings";

describe("the monthly budget", () => {
  it("passes exactly at the budget and fails one cent above it, to the cent", () => {
    expect(aboveBudget({ spent: 5, planned: 5, budget: 10 })).toBe(false);
    expect(aboveBudget({ spent: 5, planned: 5.01, budget: 10 })).toBe(true);
    expect(aboveBudget({ spent: 5, planned: 5, budget: 9.99 })).toBe(true);
    // Sums of prices drift in floating point; the budget is held to the cent.
    expect(aboveBudget({ spent: 0.1, planned: 0.2, budget: 0.3 })).toBe(false);
  });

  it("says each figure, and what is left (negative above the budget)", () => {
    const since = new Date("2026-11-01T00:00:00Z");
    expect(describeBudget({ spent: 1200, planned: 50.5, budget: 1250 }, since)).toBe(
      "spent this month 1,200.00 USD (2026-11 (UTC)), planned by this change 50.50 USD, budget 1,250.00 USD, " +
        "left -0.50 USD",
    );
    expect(budgetLeft({ spent: 0.1, planned: 0.2, budget: 1 })).toBe(0.7);
  });

  it("says the part of what was spent that has not settled yet, when there is some", () => {
    const since = new Date("2026-11-01T00:00:00Z");
    expect(
      describeBudget({ spent: 10, unsettled: 7.5, planned: 5, budget: 12 }, since, "this checkout"),
    ).toBe(
      "spent this month 10.00 USD (2026-11 (UTC), 7.50 USD of it not yet settled), this checkout 5.00 USD, " +
        "budget 12.00 USD, left -3.00 USD",
    );
    expect(describeBudget({ spent: 10, unsettled: 0, planned: 0, budget: 12 }, since)).toBe(
      "spent this month 10.00 USD (2026-11 (UTC)), planned by this change 0.00 USD, budget 12.00 USD, left 2.00 USD",
    );
  });

  it("is read from directmail:monthlyBudget only, and a value that is not an amount fails", () => {
    const config = (value: string | undefined) => ({
      get: (key: string) => (key === "directmail:monthlyBudget" ? value : undefined),
    });
    expect(resolveSettings(config("1250.50"), {}).monthlyBudget).toBe(1250.5);
    expect(resolveSettings(config(undefined), {}).monthlyBudget).toBeUndefined();
    expect(parseMonthlyBudget("  ")).toBeUndefined();
    for (const bad of ["-5", "ten", "1e3", "$500", "Infinity"])
      expect(() => parseMonthlyBudget(bad)).toThrow(
        /directmail:monthlyBudget must be an amount of US dollars/,
      );
  });
});

describe("this month's charges", () => {
  it("start at the first instant of the service's UTC calendar month", () => {
    expect(monthStart(new Date("2026-12-31T23:59:59.999Z")).toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect(monthStart(new Date("2027-01-01T00:00:00.000Z")).toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });

  it("sum the debits of every order dated this month; last month's charges and credits do not count", async () => {
    const t = (amount: number, createdDate: string, isCredit = false) => ({ amount, createdDate, isCredit });
    const entries: Record<number, unknown> = {
      1: {
        orderId: 1,
        status: "Success",
        transactions: [t(5, "2026-10-31T23:59:59Z"), t(2.5, "2026-11-01T00:00:00Z")],
      },
      2: {
        orderId: 2,
        status: "Success",
        transactions: [t(0.1, "2026-11-15T00:00:00Z"), t(0.2, "2026-11-20T00:00:00Z")],
      },
      3: { orderId: 3, status: "Success", transactions: [t(4, "2026-11-02T00:00:00Z", true)] },
      4: { orderId: 4, status: "NotFound", transactions: [t(100, "2026-11-02T00:00:00Z")] },
    };
    const asked: number[][] = [];
    const orderIds = [1, 2, 3, 4, ...Array.from({ length: 200 }, (_, i) => 1000 + i)];
    const client = {
      serviceTime: async () => new Date("2026-11-30T12:00:00Z"),
      iterateOrders: async function* () {
        for (const orderId of orderIds) yield { orderId };
      },
      getTransactions: async (ids: number[]) => {
        asked.push(ids);
        return {
          orders: ids.map((id) => entries[id] ?? { orderId: id, status: "Success", transactions: [] }),
        };
      },
    } as unknown as DirectMailClient;
    const month = await chargesThisMonth(client);
    expect(month).toEqual({
      charged: 2.8,
      unsettled: 0,
      checkedOut: new Set(),
      since: new Date("2026-11-01T00:00:00Z"),
    });
    // Every order is asked about, in reports of at most 100.
    expect(asked.map((ids) => ids.length)).toEqual([100, 100, 4]);
  });

  it("count the price of every checkout still settling, less what its ledger already debited, and name the orders checked out", async () => {
    const entry = (orderId: number, orderStatus: string, totalPrice: number, debited: number[] = []) => ({
      orderId,
      status: "Success",
      orderStatus,
      totalPrice,
      transactions: debited.map((amount) => ({
        amount,
        createdDate: "2026-11-02T00:00:00Z",
        isCredit: false,
      })),
    });
    const entries = [
      entry(1, "Payment Needed", 7.5),
      // Settled in part already: only the rest is still to come.
      entry(2, "Payment Needed", 10, [4]),
      entry(3, "Paid", 5, [5]),
      entry(4, "Draft", 12.5),
      { orderId: 5, status: "NotFound", orderStatus: "Payment Needed", totalPrice: 99, transactions: [] },
    ];
    const client = {
      serviceTime: async () => new Date("2026-11-30T12:00:00Z"),
      iterateOrders: async function* () {
        for (const e of entries) yield { orderId: e.orderId };
      },
      getTransactions: async (ids: number[]) => ({ orders: entries.filter((e) => ids.includes(e.orderId)) }),
    } as unknown as DirectMailClient;
    const month = await chargesThisMonth(client);
    expect(month).toEqual({
      charged: 9,
      unsettled: 13.5,
      checkedOut: new Set([1, 2, 3]),
      since: new Date("2026-11-01T00:00:00Z"),
    });
  });
});
