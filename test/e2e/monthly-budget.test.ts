import { setTimeout } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { newOrderRecipient } from "../../provider/api/recipients";
import { type LedgerResult, startTestSandbox, type TestSandbox } from "../support/sandbox";
import { campaignStack } from "./support/campaign-stack";
import { createTestStack, type TestStack, writePlainConfig } from "./support/pulumi";
import { pulumiIn } from "./support/yaml-program";

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
async function campaign(
  config: Record<string, string> = {},
  options: Parameters<typeof campaignStack>[2] = {},
) {
  const { apiKey, templateId, client, t, dispose } = await campaignStack(sb, config, options);
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
  return { apiKey, templateId, client, t, paidElsewhere };
}

const budget = (value: string) => ({ "directmail:monthlyBudget": { value } });

/**
 * `pulumi up --yes` as its user runs it (`--skip-preview` among `flags` skips the plan), which must
 * succeed: what it printed. Unlike the Automation API's up, it reads no outputs and no history after.
 */
async function up(t: TestStack, ...flags: string[]) {
  const result = await pulumiIn(t, "up", "--yes", ...flags);
  expect(result.code, result.output).toBe(0);
  return result.output;
}

/** The stack's one order, as the service lists it (each campaign() has a template of its own). */
async function orderOf(client: DirectMailClient, templateId: number) {
  const [order] = (await client.listOrders()).orders.filter((o) => o.templateId === templateId);
  return order?.orderId as number;
}

/*
 * Tests run in order, and a test that says so starts where the one before it ended (its stack, its
 * account and their refused draft): a stack and its first `up` serve two tests.
 */
describe("directmail:monthlyBudget against the ledger, under the real pulumi CLI", {
  timeout: 300_000,
}, () => {
  /** A draft whose checkout was refused, of an account that paid 5.00 USD elsewhere this month. */
  let refused: { apiKey: string; t: TestStack; orderId: number; elsewhere: number };

  it("up checks again just before the send: a charge elsewhere since the plan stops it, and nothing is sent", async () => {
    const { apiKey, templateId, client, t, paidElsewhere } = await campaign();
    await up(t, "--skip-preview");
    const orderId = await orderOf(client, templateId);
    writePlainConfig(t, { checkout: "true", "directmail:monthlyBudget": "5" });
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
    const upping = t.stack.up({ onOutput: (text) => (output += text) }).then(
      () => undefined,
      (error: Error) => error,
    );
    const fired = async () => (await sb.control.listFaults()).faults.find((f) => f.id === held.id)?.fired;
    while ((await fired()) !== 3) await setTimeout(50);
    const elsewhere = await paidElsewhere();
    const failure = await upping;
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
    refused = { apiKey, t, orderId, elsewhere };
  });

  it("after a month change (the sandbox's clock) last month's charges no longer count", async () => {
    // The draft refused above: 5.00 USD spent elsewhere this month, a budget of 5.00 USD.
    const { apiKey, t, orderId, elsewhere } = refused;
    await expect(t.stack.preview()).rejects.toThrow(
      `spent this month 5.00 USD (${await month()}), planned by this change 5.00 USD, budget 5.00 USD, left -5.00 USD`,
    );

    // To one hour into the next calendar month (UTC) of the service's clock.
    const now = new Date((await sb.control.clock()).now);
    const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 1);
    await sb.control.advanceClock(Math.ceil((next - now.getTime()) / 1000));
    const nextMonth = await month();
    expect(nextMonth).not.toBe(`${now.toISOString().slice(0, 7)} (UTC)`);

    // `pulumi up` with its preview: the plan passes, then the up.
    expect(await up(t)).toContain(
      `within directmail:monthlyBudget: spent this month 0.00 USD (${nextMonth}), planned by this change 5.00 USD, ` +
        "budget 5.00 USD, left 0.00 USD",
    );
    expect(charges(await sb.control.ledger(apiKey))).toEqual([
      [elsewhere, 5],
      [orderId, 5],
    ]);
  });
});

describe("directmail:monthlyBudget counts the checkouts sent and not yet settled, under the real pulumi CLI", {
  timeout: 300_000,
}, () => {
  /** The plan's refusal of a checkout of 5.00 USD, with another of 5.00 USD unsettled, against a budget of 6. */
  const aboveWithUnsettled = async (orderId: number) =>
    `Checkout of order ${orderId} would take the account above directmail:monthlyBudget: spent this month ` +
    `5.00 USD (${await month()}, 5.00 USD of it not yet settled), planned by this change 5.00 USD, budget ` +
    "6.00 USD, left -4.00 USD; nothing was charged. Raise directmail:monthlyBudget if that spending is " +
    "intended, or check out fewer orders or fewer recipients this month.";
  /** The second campaign's refused draft, and the first's order, charged 5.00 USD at the end. */
  let refused: { apiKey: string; t: TestStack; orderId: number; elsewhere: number };

  it("a checkout still in Payment Needed counts in the next up of another campaign: it is refused, and one charge settles", async () => {
    // The payment processor does not answer until the account's behaviour changes: settlement waits.
    const first = await campaign(
      { checkout: "true", settlementWaitSeconds: "1", "directmail:monthlyBudget": "6" },
      { account: { payment: "hang" } },
    );
    await up(first.t, "--skip-preview");
    const outputs = JSON.parse((await pulumiIn(first.t, "stack", "output", "--json")).stdout);
    expect(outputs.checkoutStatus).toBe("Payment Needed");
    const firstOrder = outputs.orderId as number;

    const second = await campaign(
      { checkout: "true", settlementWaitSeconds: "1", "directmail:monthlyBudget": "6" },
      { apiKey: first.apiKey },
    );
    const failure = await second.t.stack.up().then(
      () => undefined,
      (error: Error) => error,
    );
    const secondOrder = await orderOf(second.client, second.templateId);
    expect(failure?.message).toContain(await aboveWithUnsettled(secondOrder));
    expect((await second.client.getOrder(secondOrder))?.orderStatus).toBe("Draft");

    // The processor answers at last: the first checkout is charged, and it alone.
    await sb.control.updateAccount({ apiKey: first.apiKey, payment: "succeed" });
    await sb.control.advanceClock(5);
    expect(charges(await sb.control.ledger(first.apiKey))).toEqual([[firstOrder, 5]]);
    refused = { apiKey: first.apiKey, t: second.t, orderId: secondOrder, elsewhere: firstOrder };
  });

  it("then, that charge settled: the preview fails one cent above the budget with each figure; exactly at the budget the preview and the up pass", async () => {
    // The second campaign's draft, of an account that paid 5.00 USD for the first this month; the
    // up waits for its payment to settle, as by default.
    const { apiKey, t, orderId, elsewhere } = refused;
    writePlainConfig(t, { settlementWaitSeconds: undefined, "directmail:monthlyBudget": "9.99" });
    await expect(t.stack.preview()).rejects.toThrow(
      `Checkout of order ${orderId} would take the account above directmail:monthlyBudget: spent this month ` +
        `5.00 USD (${await month()}), planned by this change 5.00 USD, budget 9.99 USD, left -0.01 USD; nothing ` +
        "was charged. Raise directmail:monthlyBudget if that spending is intended, or check out fewer orders or " +
        "fewer recipients this month.",
    );
    expect(charges(await sb.control.ledger(apiKey))).toEqual([[elsewhere, 5]]);

    writePlainConfig(t, { "directmail:monthlyBudget": "10" });
    // `pulumi up` with its preview: what the plan says, then what the send says.
    const output = await up(t);
    expect(output).toContain(
      `Checkout of order ${orderId}: within directmail:monthlyBudget: spent this month 5.00 USD ` +
        `(${await month()}), planned by this change 5.00 USD, budget 10.00 USD, left 0.00 USD`,
    );
    expect(output).toContain(
      `Checkout of order ${orderId}: within directmail:monthlyBudget: spent this month 5.00 USD ` +
        `(${await month()}), this checkout 5.00 USD, budget 10.00 USD, left 0.00 USD`,
    );
    expect(charges(await sb.control.ledger(apiKey))).toEqual([
      [elsewhere, 5],
      [orderId, 5],
    ]);
  });

  it("two new Checkouts in one up whose sum is above the budget: one is sent, the other refused by its plan", async () => {
    const { apiKey } = await sb.control.createAccount({ balance: 0, payment: "hang" });
    const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
    const recipients = [1, 2].map((i) => ({
      firstName: `Ada${i}`,
      lastName: "Lovelace",
      address1: `${100 + i} Main St`,
      city: "Springfield",
      state: "IL",
      zipCode: "62701",
    }));
    const t = await createTestStack("orders", {
      config: {
        "directmail:baseUrl": { value: sb.url },
        "directmail:apiKey": { value: apiKey, secret: true },
        templateId: { value: String(templateId) },
        recipients: { value: JSON.stringify(recipients) },
        orders: { value: "2" },
        checkout: { value: "true" },
        settlementWaitSeconds: { value: "1" },
        ...budget("6"),
      },
    });
    cleanup.push(() => t.dispose());
    // One order's recipients arrive late: its checkout is planned once the other was sent, and still
    // settles (the processor does not answer), so the ledger alone shows nothing yet.
    await sb.control.addFault({
      method: "PUT",
      path: "/v1/order/*/recipients",
      kind: "delay",
      delayMs: 6000,
      times: 1,
    });
    const failure = await t.stack.up().then(
      () => undefined,
      (error: Error) => error,
    );
    await sb.control.clearFaults();

    await sb.control.updateAccount({ apiKey, payment: "succeed" });
    await sb.control.advanceClock(5);
    const charged = charges(await sb.control.ledger(apiKey));
    expect(charged).toHaveLength(1);
    const [[paid]] = charged as [[number, number]];
    expect(charged).toEqual([[paid, 5]]);
    const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
    cleanup.push(() => client.close());
    const orders = (await client.listOrders()).orders.filter((o) => o.templateId === templateId);
    const refused = orders.map((o) => o.orderId).find((id) => id !== paid) as number;
    expect(orders).toHaveLength(2);
    expect(failure?.message).toContain(await aboveWithUnsettled(refused));
    expect(failure?.message).not.toContain(`Checkout of order ${paid} would take`);
    expect((await client.getOrder(refused))?.orderStatus).toBe("Draft");
  });
});
