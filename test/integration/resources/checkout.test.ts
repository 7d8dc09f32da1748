import { setTimeout } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../../provider/api/client";
import { newOrderRecipient } from "../../../provider/api/recipients";
import { UNKNOWN } from "../../../provider/resources/check";
import { CheckoutInputs } from "../../../provider/resources/checkout/inputs";
import { checkoutImplementation } from "../../../provider/resources/checkout/provider";
import { paidCheckouts } from "../../support/ledger";
import { type LedgerResult, startTestSandbox, type TestSandbox } from "../../support/sandbox";
import { configuredProvider, countingRequests, printedBy, recipient } from "./support";

let sb: TestSandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
});

/** What the ledger charged the order: its succeeded charges. */
function ledgerCharged(ledger: LedgerResult, orderId: number): number {
  const charges = ledger.entries.filter(
    (e) => e.orderId === orderId && e.kind === "charge" && e.outcome === "succeeded",
  );
  return Math.round(charges.reduce((n, e) => n + e.amount, 0) * 100) / 100;
}

/** Paid, or a later production status (the sandbox moves paid orders on to production). */
const SETTLED = ["Paid", "Ready For Production", "In Production", "Mailed", "Delivered", "Complete"];

/** An account of its own (payment behaviour, balance), a draft order with recipients, and a provider. */
async function setup(account: { payment?: "succeed" | "fail" | "hang"; balance?: number } = {}) {
  const { apiKey } = await sb.control.createAccount({ balance: 0, ...account });
  const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
  const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
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
  const checkout = await configuredProvider("Checkout", sb, apiKey);
  const inputs = async (extra: Record<string, unknown> = {}) => {
    const checked = await checkout.check(
      {},
      { orderId, postageType: "Standard", productionSpeed: "Normal", ...extra },
    );
    expect(checked.failures ?? []).toEqual([]);
    return checked.inputs;
  };
  return { apiKey, client, orderId, checkout, inputs };
}

describe("Checkout", { timeout: 30_000 }, () => {
  it("check names the property and what is allowed", async () => {
    const { checkout, orderId } = await setup();
    const result = await checkout.check(
      {},
      { orderId, postageType: "HailTrace", productionSpeed: "Slow", maxTotal: -1 },
    );
    const properties = (result.failures ?? []).map((f) => f.property).sort();
    expect(properties).toEqual(["maxTotal", "postageType", "productionSpeed"]);
    expect(result.failures?.find((f) => f.property === "postageType")?.reason).toMatch(
      /Standard.*FirstClass/,
    );
  });

  it("pays once, waits for settlement, and reports Paid with what the ledger charged", async () => {
    const { apiKey, client, orderId, checkout, inputs } = await setup();
    const { id, outs } = await checkout.create(await inputs());
    expect(id).toBe(String(orderId));
    expect(SETTLED).toContain(outs.orderStatus);
    expect(outs.totalCharges).toBe(ledgerCharged(await sb.control.ledger(apiKey), orderId));
    expect(outs.totalCharges).toBe(7.5);
    expect([outs.totalTax, outs.totalCredits]).toEqual([null, 0]);
    expect(outs.recordedExisting).toBe(false);
    expect(SETTLED).toContain((await client.getOrder(orderId))?.orderStatus);
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(1);
    await client.close();
  });

  it("refuses, charging nothing, when the total exceeds maxTotal: in the plan, and at the checkout", async () => {
    const { apiKey, client, orderId, checkout } = await setup();
    const message =
      `Checkout of order ${orderId} would charge 7.50 USD, more than maxTotal 7.49 USD; nothing was charged. ` +
      "Raise maxTotal if that price is intended, or lower the price: fewer recipients, Standard postage or Normal " +
      "production.";
    const news = { orderId, postageType: "Standard", productionSpeed: "Normal", maxTotal: 7.49 };
    await expect(checkout.check({}, news)).rejects.toThrow(message);
    await expect(checkout.create(CheckoutInputs.parse(news))).rejects.toThrow(message);
    expect((await client.getOrder(orderId))?.orderStatus).toBe("Draft");
    expect((await sb.control.ledger(apiKey)).entries).toEqual([]);
    await client.close();
  });

  it("autoBill false with a short balance is refused by the preview, in the plan and at the checkout, with no side effect", async () => {
    const { apiKey, client, orderId, checkout } = await setup({ balance: 0.5 });
    const ledger = await sb.control.ledger(apiKey);
    const message =
      `Checkout of order ${orderId} has autoBill false, and the account's balance does not cover the price (the ` +
      "service: autoBill is false and the available balance 0.50 does not cover the order total 7.50); nothing " +
      "was charged. Add funds to the account, or set autoBill to true so that the payment method pays what the " +
      "balance does not cover.";
    const news = { orderId, postageType: "Standard", productionSpeed: "Normal", autoBill: false };
    await expect(checkout.check({}, news)).rejects.toThrow(message);
    await expect(checkout.create(CheckoutInputs.parse(news))).rejects.toThrow(message);
    expect((await client.getOrder(orderId))?.orderStatus).toBe("Draft");
    expect(await sb.control.ledger(apiKey)).toEqual(ledger);
    await client.close();
  });

  it("a failed payment fails with guidance; refresh then drops the checkout so the next up pays once", async () => {
    const { apiKey, client, orderId, checkout, inputs } = await setup({ payment: "fail" });
    const checked = await inputs();
    await expect(checkout.create(checked)).rejects.toThrow(
      /Payment for order \d+ failed.*run `pulumi up` again/s,
    );
    expect((await client.getOrder(orderId))?.orderStatus).toBe("Draft");
    // A stack that recorded the checkout before the failure: refresh makes it disappear.
    const recorded = { ...checked, orderStatus: "Payment Needed", recordedExisting: false };
    expect(await checkout.read(String(orderId), recorded)).toEqual({});
    await sb.control.updateAccount({ apiKey, payment: "succeed" });
    const retry = await checkout.create(checked);
    expect(SETTLED).toContain(retry.outs.orderStatus);
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(1);
    await client.close();
  });

  it("a payment still pending after the wait is success: nothing is lost, no second charge", async () => {
    const { apiKey, client, orderId, checkout, inputs } = await setup({ payment: "hang" });
    const { outs } = await checkout.create(await inputs({ settlementWaitSeconds: 2 }));
    expect(outs.orderStatus).toBe("Payment Needed");
    expect((await client.getOrder(orderId))?.orderStatus).toBe("Payment Needed");
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(0);
    await client.close();
  });

  it("an order already checked out is recorded, never charged again", async () => {
    const { apiKey, client, orderId, checkout, inputs } = await setup();
    const first = await checkout.create(await inputs());
    expect(SETTLED).toContain(first.outs.orderStatus);
    const again = await checkout.create(await inputs());
    expect(again.outs.recordedExisting).toBe(true);
    expect(again.outs.totalCharges).toBe(ledgerCharged(await sb.control.ledger(apiKey), orderId));
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(1);
    await client.close();
  });

  // The fault hits the checkout request itself, before or after the service applies it.
  const checkoutFaults = [
    { name: "a connection reset", fault: { kind: "reset" as const } },
    { name: "a 5xx", fault: { kind: "status" as const, status: 503 } },
  ];

  it.each(checkoutFaults)(
    "$name before the checkout took effect fails without charging; the next attempt charges once",
    async ({ fault }) => {
      const { apiKey, client, orderId, checkout, inputs } = await setup();
      await sb.control.addFault({
        method: "POST",
        path: `/v1/order/${orderId}/checkout`,
        ...fault,
        times: 1,
      });
      const checked = await inputs();
      await expect(checkout.create(checked)).rejects.toThrow(
        /has not been checked out; run `pulumi up` again/,
      );
      expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(0);
      const retry = await checkout.create(checked);
      expect(SETTLED).toContain(retry.outs.orderStatus);
      expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(1);
      await client.close();
    },
  );

  it.each(checkoutFaults)(
    "$name after the checkout took effect is resolved by reading the status: one charge",
    async ({ fault }) => {
      const { apiKey, client, orderId, checkout, inputs } = await setup();
      await sb.control.addFault({
        method: "POST",
        path: `/v1/order/${orderId}/checkout`,
        ...fault,
        after: true,
        times: 1,
      });
      const { outs } = await checkout.create(await inputs());
      expect(SETTLED).toContain(outs.orderStatus);
      expect(outs.recordedExisting).toBe(false);
      expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(1);
      await client.close();
    },
  );

  it("a checkout the service applies after the client gave up: seen while waiting, or recorded by the next up; charged once", async () => {
    /** The hooks with a client that gives up after 1 s, and a checkout the service applies after `delayMs`. */
    const slowService = async (delayMs: number) => {
      const order = await setup();
      const impatient = new DirectMailClient({ baseUrl: sb.url, apiKey: order.apiKey, timeoutMs: 1000 });
      const settings = { baseUrl: sb.url, apiKey: order.apiKey, baseUrlSource: "config" as const };
      const checkout = checkoutImplementation({ settings: () => settings, client: () => impatient });
      const path = `/v1/order/${order.orderId}/checkout`;
      await sb.control.addFault({ method: "POST", path, kind: "delay", delayMs, times: 1 });
      const paid = async () => paidCheckouts(await sb.control.ledger(order.apiKey), order.orderId);
      return { ...order, checkout, checked: await order.inputs(), paid, impatient };
    };

    // Applied 1 s after the client gave up: the status, read again for a while, shows it.
    const soon = await slowService(2000);
    const { outs } = await soon.checkout.create(soon.checked);
    expect(SETTLED).toContain(outs.orderStatus);
    expect(outs.recordedExisting).toBe(false);
    expect(await soon.paid()).toBe(1);

    // Applied later still: the run fails without claiming that nothing is pending, and the next
    // one records the checkout the service applied meanwhile, charging nothing more.
    const late = await slowService(5500);
    await expect(late.checkout.create(late.checked)).rejects.toThrow(
      `The order is still "Draft" 3 s later, so it has not been checked out; run \`pulumi up\` again: it reads ` +
        "the order's status first, so a checkout that the service applies even later is recorded, never charged twice.",
    );
    await setTimeout(2000);
    const again = await late.checkout.create(late.checked);
    expect(again.outs.recordedExisting).toBe(true);
    await sb.control.advanceClock(5);
    expect(await late.paid()).toBe(1);
    for (const o of [soon, late]) {
      await o.impatient.close();
      await o.client.close();
    }
  });

  it("after payment a changed term fails the plan and never replaces; a changed guard updates in place", async () => {
    const { client, orderId, checkout, inputs } = await setup();
    const { id, outs } = await checkout.create(await inputs());
    await expect(checkout.diff(id, outs, await inputs({ postageType: "FirstClass" }))).rejects.toThrow(
      new RegExp(`Order ${orderId} is "(Paid|Ready For Production)": its checkout cannot change postageType`),
    );
    const guard = await checkout.diff(id, outs, await inputs({ maxTotal: 1000 }));
    expect(guard).toEqual({ changes: true });
    const updated = await checkout.update(id, outs, await inputs({ maxTotal: 1000 }));
    expect(updated.outs.maxTotal).toBe(1000);
    expect(await checkout.diff(id, outs, await inputs())).toEqual({ changes: false });
    await client.close();
  });

  it("read keeps a paid checkout with its live status; delete changes nothing at the service", async () => {
    const { apiKey, client, orderId, checkout, inputs } = await setup();
    const { id, outs } = await checkout.create(await inputs());
    const read = await checkout.read(id, outs);
    expect(SETTLED).toContain(read.props.orderStatus);
    const status = (await client.getOrder(orderId))?.orderStatus;
    expect(await printedBy(() => checkout.delete(id, outs))).toBe(
      `[directmail] Order ${orderId} is "${status}": its checkout stays at the service (nothing is refunded) ` +
        "and leaves this stack\n",
    );
    expect((await client.getOrder(orderId))?.orderStatus).toBe(status);
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(1);
    await client.close();
  });
});

describe("Checkout's cap: maxTotal holds against what the service charges", { timeout: 30_000 }, () => {
  /** Recipients appended from outside the stack (another stack, the web application). */
  const appendElsewhere = (client: DirectMailClient, orderId: number, count: number) =>
    client.appendRecipients(
      orderId,
      Array.from({ length: count }, (_, i) =>
        newOrderRecipient({
          address: { address1: `${100 + i} Oak Ave`, city: "Springfield", state: "IL", zipCode: "62701" },
          personal: { firstName: `X${i}`, lastName: "Elsewhere" },
        }),
      ),
    );

  it("refuses to send, charging nothing, when the order holds another count than the stack applied", async () => {
    const { apiKey, client, orderId, checkout, inputs } = await setup();
    await expect(checkout.create(await inputs({ expectedRecipientCount: 2 }))).rejects.toThrow(
      `Checkout of order ${orderId} was not sent: the order holds 3 recipients at the service, and this stack's ` +
        "OrderRecipients holds 2; nothing was charged. Recipients were added or removed outside this stack " +
        "(another stack, the web application) since the list was applied. Remove them at the service, or run " +
        "`pulumi refresh` to take them into the stack and then `pulumi up`, whose plan prices them.",
    );
    expect((await client.getOrder(orderId))?.orderStatus).toBe("Draft");
    expect((await sb.control.ledger(apiKey)).entries).toEqual([]);
    const { outs } = await checkout.create(await inputs({ expectedRecipientCount: 3 }));
    expect(outs.totalCharges).toBe(7.5);
    await client.close();
  });

  it("recipients appended while the checkout is on its way: the charge above maxTotal fails the hook, the state keeps the charge; a later update fails until maxTotal accepts it", async () => {
    const { apiKey, client, orderId, checkout, inputs } = await setup();
    const delay = await sb.control.addFault({
      method: "POST",
      path: `/v1/order/${orderId}/checkout`,
      kind: "delay",
      delayMs: 1500,
      times: 1,
    });
    const checked = await inputs({ maxTotal: 10, expectedRecipientCount: 3 });
    const created = checkout.create(checked).then(
      () => undefined,
      (error: { message: string; id?: string; properties?: Record<string, unknown> }) => error,
    );
    // The checkout is held by the delay once its fault fired: append then.
    const fired = async () => (await sb.control.listFaults()).faults.find((f) => f.id === delay.id)?.fired;
    while ((await fired()) !== 1) await setTimeout(20);
    await appendElsewhere(client, orderId, 5);
    const error = await created;
    const charged = ledgerCharged(await sb.control.ledger(apiKey), orderId);
    expect(charged).toBe(20);
    expect(error?.message).toBe(
      `Checkout of order ${orderId} charged 20.00 USD for 8 pieces, more than maxTotal 10.00 USD: it was priced ` +
        "7.50 USD for 3 recipients just before it was sent, and the service charged for 8: recipients were added " +
        "to the order while the checkout was on its way (the service holds no price). The charge stands at the " +
        "service and the stack records it; this update fails until maxTotal is raised to 20.00 USD to accept it. " +
        "Ask the service about a refund if it is not intended.",
    );
    // The host sends the state with the failure: the engine records the checkout and its charge.
    expect(error?.id).toBe(String(orderId));
    const state = error?.properties as Record<string, unknown>;
    expect(state).toMatchObject({ orderId, totalCharges: 20, recordedExisting: false, maxTotal: 10 });

    // The next up (an update of that state) fails while maxTotal is below the charge, and passes once it is not.
    await expect(checkout.update(String(orderId), state, checked)).rejects.toThrow(
      `Checkout of order ${orderId} charged 20.00 USD for 8 pieces, more than maxTotal 10.00 USD: the state ` +
        "recorded that charge when the order was checked out.",
    );
    const raised = await inputs({ maxTotal: 20, expectedRecipientCount: 3 });
    expect((await checkout.update(String(orderId), state, raised)).outs).toMatchObject({ totalCharges: 20 });
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(1);
    await client.close();
  });

  it("refresh reads the charge from the ledger, not what the state recorded", async () => {
    const { apiKey, client, orderId, checkout, inputs } = await setup();
    const { id, outs } = await checkout.create(await inputs());
    const read = await checkout.read(id, { ...outs, totalCharges: 1 });
    expect(read.props.totalCharges).toBe(ledgerCharged(await sb.control.ledger(apiKey), orderId));
    await client.close();
  });
});

describe("Checkout's plan: the price in `pulumi preview`", { timeout: 30_000 }, () => {
  /** What check prints for these inputs, the requests it made, and that it charged nothing. */
  async function plan(
    setupResult: Awaited<ReturnType<typeof setup>>,
    news: Record<string, unknown>,
    olds: Record<string, unknown> = {},
  ) {
    const { apiKey, client, orderId, checkout } = setupResult;
    const ledger = await sb.control.ledger(apiKey);
    const statusBefore = (await client.getOrder(orderId))?.orderStatus;
    const { result, requests } = await countingRequests(() =>
      printedBy(async () => {
        const checked = await checkout.check(olds, {
          orderId,
          postageType: "Standard",
          productionSpeed: "Normal",
          ...news,
        });
        expect(checked.failures ?? []).toEqual([]);
      }),
    );
    expect(await sb.control.ledger(apiKey)).toEqual(ledger);
    expect((await client.getOrder(orderId))?.orderStatus).toBe(statusBefore);
    return { printed: result, operations: requests.map((r) => r.operationId) };
  }

  it("shows the exact price, what the balance covers and the guard, reading only", async () => {
    const order = await setup({ balance: 5 });
    const said = (line: string) => `[directmail] Checkout of order ${order.orderId}: ${line}\n`;
    expect(await plan(order, { maxTotal: 10 })).toEqual({
      printed: said(
        "price 7.50 USD for 3 recipients (Standard postage, Normal production); the balance covers 5.00 USD, " +
          "the payment method is charged 2.50 USD; within maxTotal 10.00 USD",
      ),
      operations: ["listOrders", "previewCheckout"],
    });
    // FirstClass costs 0.20 more a piece, ExpeditedFastest 0.25.
    const { printed } = await plan(order, { postageType: "FirstClass", productionSpeed: "ExpeditedFastest" });
    expect(printed).toBe(
      said(
        "price 8.85 USD for 3 recipients (FirstClass postage, ExpeditedFastest production); the balance covers " +
          "5.00 USD, the payment method is charged 3.85 USD; no maxTotal set",
      ),
    );
    // A price equal to maxTotal is within it.
    expect((await plan(order, { maxTotal: 7.5 })).printed).toContain("within maxTotal 7.50 USD");
    await order.client.close();
  });

  it("plans terms the state already holds without a request (nothing is charged for them); changed ones are priced", async () => {
    const order = await setup({ balance: 0 });
    // The inputs of the state: the order is still a draft, so new terms would be priced.
    const olds = await order.inputs({ maxTotal: 100 });
    expect(await plan(order, { maxTotal: 100 }, olds)).toEqual({ printed: "", operations: [] });
    expect((await plan(order, { maxTotal: 50 }, olds)).operations).toEqual(["listOrders", "previewCheckout"]);
    await order.client.close();
  });

  it("says, without a request, that a new order's price is known once its draft is applied", async () => {
    const order = await setup();
    expect(await plan(order, { orderId: UNKNOWN })).toEqual({
      printed:
        "[directmail] Checkout of a new order: no price yet, as the order does not exist. Draft first: apply the " +
        "campaign without checkout, then add checkout in a second change, whose plan shows the exact price and " +
        "enforces maxTotal (docs/review.md)\n",
      operations: [],
    });
    await order.client.close();
  });

  it("gives no price for an order without recipients, and no new charge for one already checked out", async () => {
    const order = await setup();
    const { orderId: empty } = await order.client.createOrder({
      templateId: (await order.client.getOrder(order.orderId))?.templateId as number,
    });
    expect(await plan({ ...order, orderId: empty }, {})).toEqual({
      printed: `[directmail] Checkout of order ${empty}: no price yet: the order has no recipients; the price is known once they are applied\n`,
      operations: ["listOrders"],
    });
    const { outs } = await order.checkout.create(await order.inputs());
    expect((await plan(order, {}, outs)).printed).toBe("");
    expect((await plan(order, {})).printed).toBe(
      `[directmail] Checkout of order ${order.orderId}: the order is already "${outs.orderStatus}": nothing is ` +
        "charged, the checkout is recorded\n",
    );
    await order.client.close();
  });

  it("when the same plan changes the order's recipients, gives no price of the list about to be replaced; once applied, the price", async () => {
    const order = await setup({ balance: 0 });
    const { orderId } = await order.client.createOrder({
      templateId: (await order.client.getOrder(order.orderId))?.templateId as number,
    });
    const recipients = await configuredProvider("OrderRecipients", sb, order.apiKey);
    const list = (ns: number[]) =>
      recipients.check({}, { orderId, recipients: ns.map((n) => recipient(n)) }).then((r) => r.inputs);
    const { outs } = await recipients.create(await list([1, 2]));
    const bigger = await list([1, 2, 3, 4]);
    await recipients.diff(String(orderId), outs, bigger);
    expect((await plan({ ...order, orderId }, { maxTotal: 1 })).printed).toBe(
      `[directmail] Checkout of order ${orderId}: no price yet: this plan changes the order's recipients (4 ` +
        "declared), and the service prices the list it holds. maxTotal is enforced when the change is applied, " +
        "before anything is charged; to see the exact price in a plan, apply the recipient change first, then add " +
        "the checkout\n",
    );
    await recipients.update(String(orderId), outs, bigger);
    expect((await plan({ ...order, orderId }, { maxTotal: 100 })).printed).toBe(
      `[directmail] Checkout of order ${orderId}: price 10.00 USD for 4 recipients (Standard postage, Normal ` +
        "production); the balance covers 0.00 USD, the payment method is charged 10.00 USD; within maxTotal 100.00 USD\n",
    );
  });
});
