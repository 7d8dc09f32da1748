/**
 * A campaign under the real pulumi CLI against the sandbox: an order, 1,000 recipients from a CSV
 * file and a checkout go through up, a no-change preview, a recipient change, a refresh after a
 * change made directly through the API, the checkout added later, and destroy, which leaves the
 * paid order at the service; the stored state holds no API key and no recipient rows.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { paidCheckouts } from "../support/ledger";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { recipientsCsv } from "./support/campaign";
import { destroyOnce, previewOnce, refreshOnce, upOnce } from "./support/one-command";
import { createTestStack, type TestStack, writePlainConfig } from "./support/pulumi";

let sb: TestSandbox;
let apiKey: string;
let client: DirectMailClient;
let t: TestStack;
const rows = Array.from({ length: 1000 }, (_, i) => i);

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  ({ apiKey } = await sb.control.createAccount({ balance: 0 }));
  const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  t = await createTestStack("campaign", {
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
      templateId: { value: String(templateId) },
      recipientsFile: { value: "recipients.csv" },
    },
  });
  fs.writeFileSync(path.join(t.workDir, "recipients.csv"), recipientsCsv(rows));
}, 120_000);

afterAll(async () => {
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

async function liveCount(orderId: number): Promise<number> {
  return (await client.getOrder(orderId))?.recipientCount ?? -1;
}

describe("a campaign under the real pulumi CLI", { timeout: 240_000 }, () => {
  let orderId: number;

  it("up creates a draft order with 1,000 recipients from the CSV", async () => {
    const up = await upOnce(t);
    expect(up.summary.result).toBe("succeeded");
    orderId = up.outputs.orderId?.value;
    expect(up.outputs.orderStatus?.value).toBe("Draft");
    expect(up.outputs.accepted?.value).toBe(1000);
    expect(await liveCount(orderId)).toBe(1000);
  });

  it("the stored state holds neither the API key nor recipient rows", () => {
    const { text } = t.readStateFile();
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain("Main St");
    expect(text).not.toContain("Lovelace");
    expect(Buffer.byteLength(text)).toBeLessThan(100_000);
  });

  it("a second preview shows no change", async () => {
    const preview = await previewOnce(t);
    expect(Object.keys(preview.changeSummary).filter((op) => op !== "same")).toEqual([]);
  });

  it("an edited CSV updates only the recipients", async () => {
    fs.writeFileSync(path.join(t.workDir, "recipients.csv"), recipientsCsv([...rows.slice(1), 5000]));
    const up = await upOnce(t);
    expect(up.summary.resourceChanges).toMatchObject({ update: 1 });
    expect(await liveCount(orderId)).toBe(1000);
    const names = [];
    for await (const r of client.iterateRecipients(orderId, { pageSize: 1000 }))
      names.push(r.personal.firstName);
    expect(names).toContain("Ada5000");
    expect(names).not.toContain("Ada0");
  });

  it("refresh sees a recipient removed through the API, and the next up puts it back", async () => {
    const page = await client.listRecipients(orderId, { pageSize: 1 });
    await client.deleteRecipients(orderId, [page.recipients[0]?.id as number]);
    const refresh = await refreshOnce(t);
    expect(refresh.summary.resourceChanges?.update).toBe(1);
    const up = await upOnce(t);
    expect(up.summary.resourceChanges).toMatchObject({ update: 1 });
    expect(await liveCount(orderId)).toBe(1000);
  });

  it("adding the checkout pays once and waits for settlement", async () => {
    writePlainConfig(t, { checkout: "true" });
    const up = await upOnce(t);
    expect(up.summary.resourceChanges).toMatchObject({ create: 1 });
    expect(["Paid", "Ready For Production"]).toContain(up.outputs.checkoutStatus?.value);
    expect(up.outputs.totalCharges?.value).toBeGreaterThan(0);
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(1);
  });

  // A recipient change after payment, refused by the plan with a message naming the order and its
  // status, is proven by row-messages.test.ts (a CSV list: the exact message in preview) and
  // retire.test.ts (preview and up: once, under its resource, the ledger unchanged); an up of the
  // unchanged campaign program after payment changes nothing and pays no second time in
  // money-safety.test.ts ("the next up changes nothing").

  it("destroy of a paid campaign finishes: it leaves the stack and the order stays at the service, paid once", async () => {
    const status = (await client.getOrder(orderId))?.orderStatus;
    const destroy = await destroyOnce(t);
    expect(destroy.summary.result).toBe("succeeded");
    expect(destroy.stdout).toContain(`[directmail] Order ${orderId} is "${status}": it stays at the service`);
    expect(await client.getOrder(orderId)).toMatchObject({ orderStatus: status, recipientCount: 1000 });
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(1);
  });
});
