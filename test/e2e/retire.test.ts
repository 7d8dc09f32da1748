/**
 * Refusals and retirement under the real pulumi CLI, through the project's own program and campaign
 * files: a refused change and a refused delete reach the user once, under their resource, with no
 * stack trace and no machine path; a paid campaign whose file is removed, or that `pulumi destroy`
 * meets, leaves the stack and stays at the service; `retain: true` keeps even a draft there.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import type { LedgerResult } from "../support/sandbox";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { campaignYaml } from "./support/campaign";
import { destroyOnce, previewOnce, stateOutputs, upOnce } from "./support/one-command";
import { diagnostics, run, shownElsewhere } from "./support/output";
import { createTestStack, type TestStack } from "./support/pulumi";

const repoRoot = path.resolve(__dirname, "../..");
const STACK = "pulumi:pulumi:Stack (directmail-campaigns-e2e):";
const resource = (kind: string, name: string) => `pulumi-nodejs:dynamic/directmail:${kind} (${name}):`;

let sb: TestSandbox;
let apiKey: string;
let templateId: number;
let client: DirectMailClient;
let t: TestStack;
/** Order ids by campaign name, after the first `up`. */
const orders: Record<string, number> = {};
/** Each campaign's outputs after the first `up`. */
let firstUp: Record<string, { orderStatus: string; checkoutStatus?: string }> = {};

const file = (name: string) => path.join(t.workDir, "campaigns", `${name}.yaml`);
const write = (name: string, options: Parameters<typeof campaignYaml>[2] = {}) =>
  fs.writeFileSync(file(name), campaignYaml(name, templateId, options));
const statusOf = async (name: string) => (await client.getOrder(orders[name] as number))?.orderStatus;
const ledger = async (): Promise<LedgerResult> => sb.control.ledger(apiKey);

/** What must never reach the user: a stack trace, a machine path, the host's `Error: ...: Error: ...`. */
function expectNoInternals(output: string) {
  expect(output).not.toMatch(/^\s+at /m);
  expect(output).not.toContain(repoRoot);
  expect(output).not.toContain("Error:");
  expect(output).not.toContain("[directmail] failed");
}

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  ({ apiKey } = await sb.control.createAccount({ balance: 0 }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  t = await createTestStack("root", {
    from: ["Pulumi.yaml", "program"],
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
      campaignsDir: { value: "campaigns" },
    },
  });
  fs.mkdirSync(path.join(t.workDir, "campaigns"));
  write("paid", { pay: true });
  write("paid-too", { pay: true });
  write("draft");
  write("kept", { retain: true });
  write("stuck");
  const up = await upOnce(t);
  for (const [name, value] of Object.entries(up.outputs)) orders[name] = value.value.orderId;
  firstUp = Object.fromEntries(Object.entries(up.outputs).map(([name, value]) => [name, value.value]));
}, 180_000);

afterAll(async () => {
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

describe("refusals and retirement under the real pulumi CLI", { timeout: 240_000 }, () => {
  it("a campaign's orderStatus is the order's status after its checkout, and Draft without one", async () => {
    for (const name of ["paid", "paid-too"]) {
      const status = await statusOf(name);
      expect(["Paid", "Ready For Production"]).toContain(status);
      expect(firstUp[name]).toMatchObject({ orderStatus: status, checkoutStatus: status });
    }
    expect(firstUp.draft?.orderStatus).toBe("Draft");
    expect(await statusOf("draft")).toBe("Draft");
  });

  it("a recipient change after payment is refused in preview and in up: once, under its resource, with no stack trace", async () => {
    const before = await ledger();
    write("paid", { pay: true, zip: "62702" });
    const status = await statusOf("paid");
    const message =
      `Order ${orders.paid} is "${status}": its recipients cannot change (declared 2, now 2; added: row 1 of ` +
      "the inline list; removed: 1), because the service changes recipients only in Draft, Edits Needed, Needs " +
      "Edits. Put the recipient list back as it was. To mail the changed list, declare it as a new campaign (a " +
      "new Order), and keep this campaign as it was or remove it: an order past draft stays at the service " +
      "(`retain: true` keeps any order there).";
    const expected = { [resource("OrderRecipients", "paid-recipients")]: [`error: ${message}`] };

    for (const command of [
      (onOutput: (text: string) => void) => previewOnce(t, { onOutput }),
      (onOutput: (text: string) => void) => upOnce(t, { onOutput }),
    ]) {
      const { output, failed } = await run(command);
      expect(failed).toBe(true);
      expect(diagnostics(output)).toEqual(expected);
      expect(shownElsewhere(output, "paid-recipients", message)).toEqual([]);
      expectNoInternals(output);
    }
    expect(await ledger()).toEqual(before);
    write("paid", { pay: true });
  });

  it("removing a paid campaign's file retires it: up finishes, the order stays at the service, the ledger is unchanged", async () => {
    const before = await ledger();
    const status = await statusOf("paid");
    fs.rmSync(file("paid"));
    const { output, failed } = await run((onOutput) => upOnce(t, { onOutput }));
    expect(failed).toBe(false);
    const order = `[directmail] Order ${orders.paid} is "${status}":`;
    expect(diagnostics(output)).toEqual({
      [STACK]: [
        `${order} its checkout stays at the service (nothing is refunded) and leaves this stack`,
        `${order} its recipients stay at the service and leave this stack`,
        `${order} it stays at the service and leaves this stack`,
      ],
    });
    expect(output).toMatch(/Resources:\n\s+- 4 deleted\n/);
    expectNoInternals(output);
    expect(await client.getOrder(orders.paid as number)).toMatchObject({
      orderStatus: status,
      recipientCount: 2,
    });
    expect(await ledger()).toEqual(before);
    expect(stateOutputs(t).paid).toBeUndefined();
  });

  it("a draft the service refuses to delete fails the up once, with the way out; retain: true then lets it leave", async () => {
    const stuck = orders.stuck as number;
    await sb.control.setOrderState(stuck, { apiKey, paidRecipientSearches: 1 });
    fs.rmSync(file("stuck"));
    const { output, failed } = await run((onOutput) => upOnce(t, { onOutput }));
    expect(failed).toBe(true);
    const message =
      `Order ${stuck} is "Draft", but the service does not delete it (order ${stuck} has paid recipient searches ` +
      "and cannot be deleted). To keep it at the service and let it leave this stack, set `retain: true` in its " +
      "campaign file (`retainOnDelete: true` on its resources in a program), run `pulumi up`, then remove it.";
    const shown = diagnostics(output);
    // The provider's progress line and the engine's summary reach the Stack's group in either order.
    shown[STACK]?.sort();
    expect(shown).toEqual({
      [STACK]: [`[directmail] Recipients of order ${stuck}: removed 2 recipients`, "error: update failed"],
      [resource("Order", "stuck")]: [`error: ${message}`],
    });
    expect(shownElsewhere(output, "stuck", message)).toEqual([]);
    expectNoInternals(output);

    // The documented way out: the file back with `retain: true`, an up, then the file removed.
    write("stuck", { retain: true });
    expect((await upOnce(t)).summary.result).toBe("succeeded");
    fs.rmSync(file("stuck"));
    const retired = await run((onOutput) => upOnce(t, { onOutput }));
    expect(retired.failed).toBe(false);
    expectNoInternals(retired.output);
    expect(await client.getOrder(stuck)).toMatchObject({ orderStatus: "Draft", recipientCount: 2 });
  });

  it("destroy finishes: the paid campaign leaves the stack, the draft is deleted at the service, the retained draft stays", async () => {
    const before = await ledger();
    const status = await statusOf("paid-too");
    const { output, failed } = await run((onOutput) => destroyOnce(t, { onOutput }));
    expect(failed).toBe(false);
    const paid = `[directmail] Order ${orders["paid-too"]} is "${status}":`;
    const shown = diagnostics(output);
    expect(Object.keys(shown)).toEqual([STACK]);
    // Campaigns are destroyed side by side: their lines may interleave.
    expect(shown[STACK]?.toSorted()).toEqual(
      [
        `${paid} its checkout stays at the service (nothing is refunded) and leaves this stack`,
        `${paid} its recipients stay at the service and leave this stack`,
        `${paid} it stays at the service and leaves this stack`,
        `[directmail] Recipients of order ${orders.draft}: removed 2 recipients`,
        `[directmail] Order ${orders.draft}: deleted`,
      ].toSorted(),
    );
    expectNoInternals(output);

    expect(await client.getOrder(orders.draft as number)).toBeUndefined();
    expect(await client.getOrder(orders["paid-too"] as number)).toMatchObject({
      orderStatus: status,
      recipientCount: 2,
    });
    expect(await client.getOrder(orders.kept as number)).toMatchObject({
      orderStatus: "Draft",
      recipientCount: 2,
    });
    expect(await ledger()).toEqual(before);
    expect(t.readStateFile().checkpoint.checkpoint.latest.resources ?? []).toEqual([]);
  });
});
