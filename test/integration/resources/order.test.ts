import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../../provider/api/client";
import { CREATE_MARKERS } from "../../../provider/resources/order/interrupted";
import { bounded } from "../../../provider/resources/timeouts";
import { startTestSandbox, type TestSandbox } from "../../support/sandbox";
import { configuredProvider, type Provider, printedBy } from "./support";

let sb: TestSandbox;
let apiKey: string;
let templateId: number;
let order: Provider;
let client: DirectMailClient;

beforeAll(async () => {
  sb = await startTestSandbox();
  ({ apiKey } = await sb.control.createAccount({ balance: 1000 }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard", hasQr: true }));
  order = await configuredProvider("Order", sb, apiKey);
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
});
afterAll(async () => {
  await client?.close();
  await sb?.close();
});

/** The create markers this process has on disk (interrupted.ts): what a next run would find if it stopped now. */
function markersOfThisProcess(): string[] {
  const names = fs.existsSync(CREATE_MARKERS) ? fs.readdirSync(CREATE_MARKERS) : [];
  return names.filter((name) => {
    const text = fs.readFileSync(path.join(CREATE_MARKERS, name), "utf8");
    return (JSON.parse(text) as { pid: number }).pid === process.pid;
  });
}

async function created(inputs: Record<string, unknown> = {}) {
  const checked = await order.check({}, { templateId, ...inputs });
  expect(checked.failures ?? []).toEqual([]);
  return order.create(checked.inputs);
}

describe("Order", () => {
  it("check names the property and says what is allowed", async () => {
    const result = await order.check({}, { templateId: "five", qrUrl: "not a url", colour: "red" });
    const byProperty = Object.fromEntries((result.failures ?? []).map((f) => [f.property, f.reason]));
    expect(byProperty.templateId).toMatch(/templateId must be a whole number/);
    expect(byProperty.qrUrl).toMatch(/qrUrl must be an absolute URL/);
    expect(Object.values(byProperty).join(" ")).toMatch(/colour/);
  });

  it("create makes a Draft order from the template and reports what the service says", async () => {
    const { id, outs } = await created({ useQr: true });
    expect(outs.orderId).toBe(Number(id));
    expect(outs.status).toBe("Draft");
    expect(outs.templateId).toBe(templateId);
    expect(outs.adopted).toBe(false);
    const live = await client.getOrder(Number(id));
    expect(live?.templateId).toBe(templateId);
  });

  it("a changed input replaces a draft order, and nothing changes when nothing changed", async () => {
    const { id, outs } = await created();
    expect(await order.diff(id, outs, { templateId })).toEqual({ changes: false });
    expect(await order.diff(id, outs, { templateId, qrUrl: "https://example.com/x" })).toEqual({
      changes: true,
      replaces: ["qrUrl"],
      deleteBeforeReplace: false,
    });
  });

  it("a changed input on a paid order fails the plan, naming the order, its status, the input and a way out", async () => {
    const { id, outs } = await created();
    await sb.control.setOrderState(Number(id), { apiKey, status: "Paid" });
    const attempt = order.diff(id, outs, { templateId, handwritingFont: "Casual" });
    await expect(attempt).rejects.toThrow(`Order ${id} is "Paid": handwritingFont cannot change`);
    await expect(attempt).rejects.toThrow(/declare a new Order resource/);
  });

  it("read reports status drift and drops an order deleted elsewhere", async () => {
    const { id, outs } = await created();
    await sb.control.setOrderState(Number(id), { apiKey, status: "Edits Needed" });
    const read = await order.read(id, outs);
    expect(read.props.status).toBe("Edits Needed");
    await client.deleteOrder(Number(id));
    expect(await order.read(id, outs)).toEqual({});
  });

  it("delete removes a draft; an order already gone is success; a paid one leaves the stack and stays at the service", async () => {
    const draft = await created();
    expect(await printedBy(() => order.delete(draft.id, draft.outs))).toBe(
      `[directmail] Order ${draft.id}: deleted\n`,
    );
    expect(await client.getOrder(Number(draft.id))).toBeUndefined();
    await expect(order.delete(draft.id, draft.outs)).resolves.toBeUndefined();

    const paid = await created();
    await sb.control.setOrderState(Number(paid.id), { apiKey, status: "Paid" });
    expect(await printedBy(() => order.delete(paid.id, paid.outs))).toBe(
      `[directmail] Order ${paid.id} is "Paid": it stays at the service and leaves this stack\n`,
    );
    expect((await client.getOrder(Number(paid.id)))?.orderStatus).toBe("Paid");
  });

  it("a draft the service refuses to delete fails with the way out, and stays", async () => {
    const stuck = await created();
    await sb.control.setOrderState(Number(stuck.id), { apiKey, paidRecipientSearches: 1 });
    await expect(order.delete(stuck.id, stuck.outs)).rejects.toThrow(
      `Order ${stuck.id} is "Draft", but the service does not delete it (order ${stuck.id} has paid recipient ` +
        "searches and cannot be deleted). To keep it at the service and let it leave this stack, set `retain: true`",
    );
    expect((await client.getOrder(Number(stuck.id)))?.orderStatus).toBe("Draft");
  });

  it("adopts an existing order instead of creating one, and refuses one made from another template", async () => {
    const existing = await client.createOrder({ templateId });
    const before = (await client.listOrders()).totalCount;
    const adopted = await created({ existingOrderId: existing.orderId });
    expect(adopted.id).toBe(String(existing.orderId));
    expect(adopted.outs.adopted).toBe(true);
    expect((await client.listOrders()).totalCount).toBe(before);

    const { id: otherTemplate } = await sb.control.createTemplate({ apiKey, name: "Letter" });
    const checked = await order.check({}, { templateId: otherTemplate, existingOrderId: existing.orderId });
    await expect(order.create(checked.inputs)).rejects.toThrow(
      `Order ${existing.orderId} was made from template ${templateId}, not ${otherTemplate}`,
    );
    await expect(created({ existingOrderId: 999_999 })).rejects.toThrow(/names no order of this account/);
  });

  it("a create that passes its customTimeouts has taken its create marker away when it fails: the next up does not take it for an interrupted one", async () => {
    const before = (await client.listOrders()).totalCount;
    await sb.control.addFault({
      method: "POST",
      path: "/v1/order",
      kind: "delay",
      delayMs: 5_000,
      after: true,
      times: 1,
    });
    const checked = await order.check({}, { templateId });
    // The engine may stop the provider as soon as it hears of the failure (under load, before
    // anything else of the provider runs): what is on disk then is what the next run finds.
    const atTheAnswer = await bounded("Order", "create", 1, () => order.create(checked.inputs)).then(
      () => expect.fail("the create did not time out"),
      (error: Error) => ({ message: error.message, markers: markersOfThisProcess() }),
    );
    await sb.control.clearFaults();
    expect(atTheAnswer.message).toContain(
      "Order create did not finish within its customTimeouts.create of 1 s",
    );
    expect(atTheAnswer.markers).toEqual([]);
    // The create reached the service: its order is the Draft the timeout left outside any stack.
    expect((await client.listOrders()).totalCount).toBe(before + 1);
  });
});
