/**
 * The hooks of Conversions and AutomationRecipients over real HTTP against the sandbox, for what the
 * end-to-end tests do not reach cheaply: batches of at most 5,000 records, a recipient queued by an
 * interrupted run, a paused automation, and the guard re-checked at apply time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSandbox, type TestSandbox } from "../../support/sandbox";
import { configuredProvider, countingRequests, type Provider, printedBy, recipient } from "./support";

let sb: TestSandbox;
let apiKey: string;
let templateId: number;
let conversions: Provider;
let automation: Provider;

beforeAll(async () => {
  sb = await startTestSandbox({ timings: { conversionDeleteSeconds: 0.2 } });
  ({ apiKey } = await sb.control.createAccount({ tier: "pro" }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Card" }));
  conversions = await configuredProvider("Conversions", sb, apiKey);
  automation = await configuredProvider("AutomationRecipients", sb, apiKey);
});
afterAll(async () => {
  await sb?.close();
});

describe("Conversions hooks", () => {
  it("5,001 records go in two uploads of at most 5,000; destroy deletes both and waits", async () => {
    const records = Array.from({ length: 5001 }, (_, i) => ({ uniqueId: `R-${i}`, revenue: String(i) }));
    const { inputs } = await conversions.check({}, { records, keyField: "uniqueId", deleteWaitSeconds: 10 });
    let outs: any;
    const { result, requests } = await countingRequests(() =>
      printedBy(async () => {
        ({ outs } = await conversions.create(inputs));
      }),
    );
    const submits = requests.filter((r) => r.operationId === "submitConversions");
    expect(submits).toHaveLength(2);
    expect(result).toContain("upload 1 of 2");
    expect(result).toContain("upload 2 of 2");
    expect(outs.uploads.map((u: { records: number }) => u.records)).toEqual([5000, 1]);
    const said = await printedBy(() => conversions.delete("x", outs));
    expect(said).toContain("deleting 2 uploads");
    expect(said).toContain("(2 of 2)");
  });
});

describe("AutomationRecipients hooks", () => {
  it("a recipient queued already (an interrupted run) is recorded, not mailed again", async () => {
    const { id } = await sb.control.createIntegrationOrder({ apiKey, name: "A", templateId });
    const { inputs } = await automation.check(
      {},
      { integrationOrderId: id, recipients: [recipient(1), recipient(2)] },
    );
    // The first recipient reached the service before the run was interrupted.
    await automation.create({ ...inputs, recipients: [recipient(1)] });
    const said = await printedBy(async () => {
      const { outs } = await automation.create(inputs);
      expect(outs).toMatchObject({ mailedCount: 2, refusedCount: 0 });
    });
    expect(said).toContain("DUPLICATE_RECIPIENT, queued already: recorded, not mailed again");
    expect((await sb.control.integrationRecipients(apiKey, id)).recipients).toHaveLength(2);
  });

  it("a paused automation stops the update with its reason code and what to do; nothing is mailed", async () => {
    const { id } = await sb.control.createIntegrationOrder({
      apiKey,
      name: "P",
      templateId,
      status: "Paused",
    });
    const { inputs } = await automation.check({}, { integrationOrderId: id, recipients: [recipient(3)] });
    await expect(automation.create(inputs)).rejects.toThrow(
      `Integration order ${id} refused recipients row 1: ORDER_NOT_AVAILABLE: integration order ${id} is Paused; ` +
        "recipients are added only while it is Active. Nothing was mailed; make the automation Active with a " +
        "template in the web application, then run `pulumi up` again.",
    );
    expect((await sb.control.integrationRecipients(apiKey, id)).recipients).toEqual([]);
  });

  it("maxNew fails the plan: check for a new resource, diff for a change (the hooks a preview runs)", async () => {
    const { id } = await sb.control.createIntegrationOrder({ apiKey, name: "M", templateId });
    const message = (n: number) =>
      `Integration order ${id}: this change would mail ${n} new recipients, more than maxNew 1; nothing was mailed.`;
    await expect(
      automation.check({}, { integrationOrderId: id, recipients: [recipient(6), recipient(7)], maxNew: 1 }),
    ).rejects.toThrow(message(2));
    const { inputs } = await automation.check(
      {},
      { integrationOrderId: id, recipients: [recipient(6)], maxNew: 1 },
    );
    const { outs } = await automation.create(inputs);
    const more = { ...inputs, recipients: [recipient(6), recipient(7), recipient(8)] };
    const { inputs: checked } = await automation.check(inputs, more);
    await expect(automation.diff("x", outs, checked)).rejects.toThrow(message(2));
    expect((await sb.control.integrationRecipients(apiKey, id)).recipients).toHaveLength(1);
  });

  it("maxNew is enforced again when applied (an up without a preview), before anything is sent", async () => {
    const { id } = await sb.control.createIntegrationOrder({ apiKey, name: "G", templateId });
    const inputs = { integrationOrderId: id, recipients: [recipient(4), recipient(5)], maxNew: 1 };
    await expect(automation.create(inputs)).rejects.toThrow(
      `Integration order ${id}: this change would mail 2 new recipients, more than maxNew 1; nothing was mailed.`,
    );
    expect((await sb.control.integrationRecipients(apiKey, id)).recipients).toEqual([]);
  });
});
