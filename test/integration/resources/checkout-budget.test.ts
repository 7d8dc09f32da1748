/**
 * The monthly budget at the send, over HTTP against the sandbox: checkouts of one run sent at the
 * same time, whose payment has not settled, and whose orders the service does not show checked out
 * yet while the other is checked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../../provider/api/client";
import { newOrderRecipient } from "../../../provider/api/recipients";
import type { CheckoutInputs } from "../../../provider/resources/checkout/inputs";
import { checkoutImplementation } from "../../../provider/resources/checkout/provider";
import { type LedgerResult, startTestSandbox, type TestSandbox } from "../../support/sandbox";

let sb: TestSandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
});

/** The account's succeeded charges, order by order. */
const charges = (ledger: LedgerResult) =>
  ledger.entries
    .filter((e) => e.kind === "charge" && e.outcome === "succeeded")
    .map((e) => [e.orderId, e.amount]);

/**
 * An account whose payments wait (`hang`), `orders` drafts of three recipients each (7.50 USD at the
 * sandbox's prices), and the Checkout hooks with `directmail:monthlyBudget` 10.
 */
async function setup(orders: number) {
  const { apiKey } = await sb.control.createAccount({ balance: 0, payment: "hang" });
  const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
  const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  const orderIds: number[] = [];
  for (let i = 0; i < orders; i++) {
    const { orderId } = await client.createOrder({ templateId });
    await client.appendRecipients(
      orderId,
      [1, 2, 3].map((n) =>
        newOrderRecipient({
          address: { address1: `${n} Main St`, city: "Springfield", state: "IL", zipCode: "62701" },
          personal: { firstName: `R${n}`, lastName: "Smith" },
        }),
      ),
    );
    orderIds.push(orderId);
  }
  const settings = { baseUrl: sb.url, apiKey, baseUrlSource: "config" as const, monthlyBudget: 10 };
  const checkout = checkoutImplementation({ settings: () => settings, client: () => client });
  /**
   * The inputs of the order's checkout, waiting `settlementWaitSeconds` for its payment, as `check`
   * gives them. Not planned: the plan's own sum is not what these tests are about.
   */
  const inputs = (orderId: number, settlementWaitSeconds = 1): CheckoutInputs => ({
    orderId,
    postageType: "Standard",
    productionSpeed: "Normal",
    autoBill: true,
    settlementWaitSeconds,
  });
  const month = `${(await sb.control.clock()).now.slice(0, 7)} (UTC)`;
  return { apiKey, client, orderIds, checkout, inputs, month };
}

describe("Checkout against directmail:monthlyBudget at the send", { timeout: 60_000 }, () => {
  it("two checkouts sent at once, both on their way while the other is checked: one is sent, the other refused", async () => {
    const { apiKey, client, orderIds, checkout, inputs, month } = await setup(2);
    const [a, b] = orderIds as [number, number];
    // Each checkout is held on its way: the service shows neither order checked out while the other
    // is checked, so only what this run sends can stop the second.
    await sb.control.addFault({ method: "POST", path: "/v1/order/*/checkout", kind: "delay", delayMs: 2000 });
    const results = await Promise.allSettled([checkout.create(inputs(a)), checkout.create(inputs(b))]);
    await sb.control.clearFaults();

    const sent = results.flatMap((r, i) => (r.status === "fulfilled" ? [orderIds[i] as number] : []));
    const refused = results.flatMap((r) => (r.status === "rejected" ? [(r.reason as Error).message] : []));
    expect(sent).toHaveLength(1);
    const other = sent[0] === a ? b : a;
    expect(refused).toEqual([
      `Checkout of order ${other} was not sent: it would take the account above directmail:monthlyBudget: spent ` +
        `this month 7.50 USD (${month}, 7.50 USD of it not yet settled), this checkout 7.50 USD, budget 10.00 USD, ` +
        "left -5.00 USD; nothing was charged. Raise directmail:monthlyBudget if that spending is intended, or " +
        "check out fewer orders or fewer recipients this month.",
    ]);
    expect((await client.getOrder(other))?.orderStatus).toBe("Draft");

    await sb.control.updateAccount({ apiKey, payment: "succeed" });
    await sb.control.advanceClock(5);
    expect(charges(await sb.control.ledger(apiKey))).toEqual([[sent[0], 7.5]]);
    await client.close();
  });

  it("a checkout the service refuses, or whose payment fails, no longer counts: the next one is sent", async () => {
    const { apiKey, client, orderIds, checkout, inputs } = await setup(3);
    const [a, b, c] = orderIds as [number, number, number];
    await sb.control.addFault({
      method: "POST",
      path: `/v1/order/${a}/checkout`,
      kind: "status",
      status: 400,
    });
    await expect(checkout.create(inputs(a))).rejects.toThrow();
    await sb.control.clearFaults();

    await sb.control.updateAccount({ apiKey, payment: "fail" });
    await expect(checkout.create(inputs(b, 20))).rejects.toThrow(`Payment for order ${b} failed`);

    await sb.control.updateAccount({ apiKey, payment: "succeed" });
    const { outs } = await checkout.create(inputs(c, 20));
    expect(outs.totalCharges).toBe(7.5);
    expect(charges(await sb.control.ledger(apiKey))).toEqual([[c, 7.5]]);
    await client.close();
  });
});
