import { setTimeout } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newOrderRecipient } from "../../provider/api/recipients";
import { type LedgerResult, startTestSandbox, type TestSandbox } from "../support/sandbox";
import { campaignStack } from "./support/campaign-stack";

let sb: TestSandbox;
const cleanup: (() => Promise<void>)[] = [];

beforeAll(async () => {
  sb = await startTestSandbox({
    log: () => {},
    timings: { settlementSeconds: 2, settlementExpectedWithinSeconds: 30 },
  });
});
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
  await sb?.close();
});

/** The account's succeeded charges, order by order. */
const charges = (ledger: LedgerResult) =>
  ledger.entries
    .filter((e) => e.kind === "charge" && e.outcome === "succeeded")
    .map((e) => [e.orderId, e.amount]);

/** The sandbox clock's month as the figures name it. */
const month = async () => `${(await sb.control.clock()).now.slice(0, 7)} (UTC)`;

/** A stack of the campaign program over two recipients (5.00 USD at the sandbox's prices), and its account. */
async function campaign(config: Record<string, string> = {}) {
  const { apiKey, templateId, client, t, dispose } = await campaignStack(sb, config);
  cleanup.push(dispose);
  /** An order of the same account paid outside this stack (another campaign): 5.00 USD. */
  const paidElsewhere = async () => {
    const { orderId } = await client.createOrder({ templateId });
    await client.appendRecipients(
      orderId,
      [1, 2].map((i) =>
        newOrderRecipient({
          address: { address1: `${300 + i} Elm St`, city: "Springfield", state: "IL", zipCode: "62701" },
          personal: { firstName: `Other${i}`, lastName: "Campaign" },
        }),
      ),
    );
    await client.checkout(orderId, {
      postageType: "Standard",
      productionSpeed: "Normal",
      holdUntilDate: null,
    });
    await sb.control.advanceClock(5);
    expect(charges(await sb.control.ledger(apiKey))).toContainEqual([orderId, 5]);
    return orderId;
  };
  return { apiKey, client, t, paidElsewhere };
}

const budget = (value: string) => ({ "directmail:monthlyBudget": { value } });

describe("directmail:monthlyBudget against the ledger, under the real pulumi CLI", {
  timeout: 300_000,
}, () => {
  it("the preview fails one cent above the budget with each figure; exactly at the budget the preview and the up pass", async () => {
    const { apiKey, t, paidElsewhere } = await campaign();
    const orderId = (await t.stack.up()).outputs.orderId?.value as number;
    const elsewhere = await paidElsewhere();

    await t.stack.setAllConfig({ checkout: { value: "true" }, ...budget("9.99") });
    await expect(t.stack.preview()).rejects.toThrow(
      `Checkout of order ${orderId} would take the account above directmail:monthlyBudget: spent this month ` +
        `5.00 USD (${await month()}), planned by this change 5.00 USD, budget 9.99 USD, left -0.01 USD; nothing ` +
        "was charged. Raise directmail:monthlyBudget if that spending is intended, or check out fewer orders or " +
        "fewer recipients this month.",
    );
    expect(charges(await sb.control.ledger(apiKey))).toEqual([[elsewhere, 5]]);

    await t.stack.setAllConfig(budget("10"));
    const preview = await t.stack.preview();
    expect(preview.stdout).toContain(
      `Checkout of order ${orderId}: within directmail:monthlyBudget: spent this month 5.00 USD ` +
        `(${await month()}), planned by this change 5.00 USD, budget 10.00 USD, left 0.00 USD`,
    );
    const up = await t.stack.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.stdout).toContain(
      `Checkout of order ${orderId}: within directmail:monthlyBudget: spent this month 5.00 USD ` +
        `(${await month()}), this checkout 5.00 USD, budget 10.00 USD, left 0.00 USD`,
    );
    expect(charges(await sb.control.ledger(apiKey))).toEqual([
      [elsewhere, 5],
      [orderId, 5],
    ]);
  });

  it("up checks again just before the send: a charge elsewhere since the plan stops it, and nothing is sent", async () => {
    const { apiKey, client, t, paidElsewhere } = await campaign();
    const orderId = (await t.stack.up()).outputs.orderId?.value as number;
    await t.stack.setAllConfig({ checkout: { value: "true" }, ...budget("5") });
    // The provider asks /v1/me once when it starts (is the key good?), the plan reads the service's
    // clock from it, then the send again: held at that third one, another campaign is paid.
    const held = await sb.control.addFault({
      method: "GET",
      path: "/v1/me",
      kind: "delay",
      delayMs: 4000,
      times: 3,
    });
    let output = "";
    const up = t.stack.up({ onOutput: (text) => (output += text) }).then(
      () => undefined,
      (error: Error) => error,
    );
    const fired = async () => (await sb.control.listFaults()).faults.find((f) => f.id === held.id)?.fired;
    while ((await fired()) !== 3) await setTimeout(50);
    const elsewhere = await paidElsewhere();
    const failure = await up;
    await sb.control.clearFaults();

    expect(output).toContain(
      `Checkout of order ${orderId}: within directmail:monthlyBudget: spent this month 0.00 USD (${await month()}), ` +
        "planned by this change 5.00 USD, budget 5.00 USD, left 0.00 USD",
    );
    expect(failure?.message).toContain(
      `Checkout of order ${orderId} was not sent: it would take the account above directmail:monthlyBudget: spent ` +
        `this month 5.00 USD (${await month()}), this checkout 5.00 USD, budget 5.00 USD, left -5.00 USD; nothing ` +
        "was charged.",
    );
    expect(output).not.toContain("charging 5.00 USD");
    expect(charges(await sb.control.ledger(apiKey))).toEqual([[elsewhere, 5]]);
    expect((await client.getOrder(orderId))?.orderStatus).toBe("Draft");
  });

  it("after a month change (the sandbox's clock) last month's charges no longer count", async () => {
    const { apiKey, t, paidElsewhere } = await campaign();
    const orderId = (await t.stack.up()).outputs.orderId?.value as number;
    const elsewhere = await paidElsewhere();
    await t.stack.setAllConfig({ checkout: { value: "true" }, ...budget("5") });
    await expect(t.stack.preview()).rejects.toThrow(
      `spent this month 5.00 USD (${await month()}), planned by this change 5.00 USD, budget 5.00 USD, left -5.00 USD`,
    );

    // To one hour into the next calendar month (UTC) of the service's clock.
    const now = new Date((await sb.control.clock()).now);
    const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 1);
    await sb.control.advanceClock(Math.ceil((next - now.getTime()) / 1000));
    const nextMonth = await month();
    expect(nextMonth).not.toBe(`${now.toISOString().slice(0, 7)} (UTC)`);

    const preview = await t.stack.preview();
    expect(preview.stdout).toContain(
      `within directmail:monthlyBudget: spent this month 0.00 USD (${nextMonth}), planned by this change 5.00 USD, ` +
        "budget 5.00 USD, left 0.00 USD",
    );
    expect((await t.stack.up()).summary.result).toBe("succeeded");
    expect(charges(await sb.control.ledger(apiKey))).toEqual([
      [elsewhere, 5],
      [orderId, 5],
    ]);
  });
});
