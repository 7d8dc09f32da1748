import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../../provider/api/client";
import { newOrderRecipient } from "../../../provider/api/recipients";
import { paidCheckouts } from "../../support/ledger";
import { startTestSandbox, type TestSandbox } from "../../support/sandbox";
import { configuredProvider, printedBy } from "./support";

let sb: TestSandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
});

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

  it("pays once, waits for settlement, and reports Paid with the previewed total", async () => {
    const { apiKey, client, orderId, checkout, inputs } = await setup();
    const { id, outs } = await checkout.create(await inputs());
    expect(id).toBe(String(orderId));
    expect(SETTLED).toContain(outs.orderStatus);
    expect(outs.totalCharges).toBeGreaterThan(0);
    expect(outs.recordedExisting).toBe(false);
    expect(SETTLED).toContain((await client.getOrder(orderId))?.orderStatus);
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(1);
    await client.close();
  });

  it("refuses, charging nothing, when the total exceeds maxTotal", async () => {
    const { apiKey, client, orderId, checkout, inputs } = await setup();
    await expect(checkout.create(await inputs({ maxTotal: 0.01 }))).rejects.toThrow(
      /more than maxTotal 0.01; nothing was charged/,
    );
    expect((await client.getOrder(orderId))?.orderStatus).toBe("Draft");
    expect((await sb.control.ledger(apiKey)).entries).toEqual([]);
    await client.close();
  });

  it("autoBill false with a short balance is refused by the preview, with no side effect", async () => {
    const { apiKey, client, orderId, checkout, inputs } = await setup({ balance: 0.5 });
    await expect(checkout.create(await inputs({ autoBill: false }))).rejects.toThrow(/balance/i);
    expect((await client.getOrder(orderId))?.orderStatus).toBe("Draft");
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(0);
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
    expect(again.outs.totalCharges).toBeNull();
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
      await expect(checkout.create(checked)).rejects.toThrow(/not checked out and no charge is pending/);
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
