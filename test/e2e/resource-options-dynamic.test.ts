/**
 * Every row of docs/resources.md's resource-option table on the dynamic path (a TypeScript program,
 * `pulumi-nodejs:dynamic/directmail:*`), under the real pulumi CLI: what the user reads, and the
 * sandbox's orders, recipients and ledger as the truth. One sandbox, one stack: each test turns one
 * option on through the stack's `options` config (test/e2e/programs/resource-options) and leaves
 * the stack as the next one expects it. The stack's plain config is written to its
 * Pulumi.e2e.yaml, as its user may edit it, so that only the commands under test run `pulumi`.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { DirectMailClient } from "../../provider/api/client";
import { paidCheckouts } from "../support/ledger";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { createTestStack, type TestStack } from "./support/pulumi";

let sb: TestSandbox;
let t: TestStack;
let client: DirectMailClient;
let apiKey: string;
let templateId: number;
let otherTemplateId: number;

/** `n` recipients the sandbox accepts. */
const recipients = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    firstName: `Ada${i + 1}`,
    lastName: "Lovelace",
    address1: `${101 + i} Main St`,
    city: "Springfield",
    state: "IL",
    zipCode: "62701",
  }));

/** The real pulumi CLI in the stack's project, as its user runs it; stdout and stderr together. */
function pulumi(...args: string[]): Promise<{ code: number; output: string; stdout: string }> {
  return pulumiWith({}, ...args);
}

/** The real pulumi CLI in the stack's project, with these variables added to the stack's environment. */
function pulumiWith(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; output: string; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      "pulumi",
      args,
      { cwd: t.workDir, env: { ...t.env, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr, stdout }),
    );
  });
}

async function ok(...args: string[]): Promise<string> {
  const result = await pulumi(...args);
  expect(result.code, result.output).toBe(0);
  return result.output;
}

/** Sets the program's plain config (objects as JSON) in the stack's Pulumi.e2e.yaml. */
function configure(values: Record<string, unknown>): void {
  const file = path.join(t.workDir, "Pulumi.e2e.yaml");
  const settings = YAML.parse(fs.readFileSync(file, "utf8"));
  for (const [key, value] of Object.entries(values))
    settings.config[`resource-options:${key}`] = typeof value === "string" ? value : JSON.stringify(value);
  fs.writeFileSync(file, YAML.stringify(settings));
}

/** Pulumi's resource options for the program's orders, lists and checkouts. */
const setOptions = (options: Record<string, Record<string, unknown>>) => configure({ options });

interface PreviewStep {
  op: string;
  urn: string;
  diffReasons?: string[] | null;
  replaceReasons?: string[] | null;
  detailedDiff?: Record<string, { kind: string; inputDiff: boolean }> | null;
}

/**
 * `pulumi preview --json`'s steps of one kind (Order, OrderRecipients, Checkout), and the engine
 * events of that same preview: its `--event-log`, the stream the Automation API reads.
 */
async function previewSteps(kind: string): Promise<PreviewStep[] & { events: EngineEvent[] }> {
  const eventLog = path.join(t.workDir, "preview-events.jsonl");
  // `--event-log` is the flag the Automation API passes, with the variable that enables it.
  const result = await pulumiWith(
    { PULUMI_DEBUG_COMMANDS: "true" },
    "preview",
    "--json",
    "--event-log",
    eventLog,
  );
  expect(result.code, result.output).toBe(0);
  const events = fs
    .readFileSync(eventLog, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as EngineEvent);
  const steps = (JSON.parse(result.stdout).steps ?? []) as PreviewStep[];
  const ofKind = steps.filter(
    (step) =>
      step.urn.endsWith(`$pulumi-nodejs:dynamic/directmail:${kind}`) ||
      step.urn.includes(`directmail:${kind}::`),
  );
  return Object.assign(ofKind, { events });
}

/** The sandbox's orders, oldest first, each with the number of recipients it holds. */
async function ordersAtService(): Promise<
  { orderId: number; templateId: number | null; recipients: number }[]
> {
  const { orders } = await client.listOrders();
  const sorted = [...orders].sort((a, b) => a.orderId - b.orderId);
  const counts = await recipientsOf(sorted.map((order) => order.orderId));
  return sorted.map((order, i) => ({
    orderId: order.orderId,
    templateId: order.templateId,
    recipients: counts[i] ?? 0,
  }));
}

/** The number of recipients each order holds at the service. */
async function recipientsOf(orderIds: number[]): Promise<number[]> {
  const counts = [];
  for (const orderId of orderIds) {
    let count = 0;
    for await (const _ of client.iterateRecipients(orderId)) count += 1;
    counts.push(count);
  }
  return counts;
}

/** The stack's orders, from its state, in the order of their names (order-1, order-2). */
function stackOrderIds(): number[] {
  const resources: any[] = t.readStateFile().checkpoint.checkpoint.latest?.resources ?? [];
  return resources
    .filter((r) => r.type === "pulumi-nodejs:dynamic/directmail:Order")
    .sort((a, b) => (a.urn < b.urn ? -1 : 1))
    .map((r) => r.outputs.orderId as number);
}

/** The URN of a resource of the stack by its name. */
function urnOf(name: string): string {
  const resources: any[] = t.readStateFile().checkpoint.checkpoint.latest.resources;
  const found = resources.find((r) => r.urn.endsWith(`::${name}`));
  if (!found) throw new Error(`no resource ${name} in the stack`);
  return found.urn;
}

/**
 * How long the sandbox holds a step back (a request's answer, a payment's settlement): far longer
 * than a `pulumi up` takes on a loaded machine, so that one that fails under a bound of a few
 * seconds is seen to fail well before the service answers.
 */
const HELD_MS = 90_000;
const WELL_BEFORE_THE_ANSWER_S = HELD_MS / 1000 - 30;
const SETTLEMENT_S = 90;

/** `pulumi up` that fails; its output and how long it took. */
async function failingUp(): Promise<{ output: string; seconds: number }> {
  const started = Date.now();
  const result = await pulumi("up", "--yes", "--skip-preview");
  expect(result.code, result.output).not.toBe(0);
  return { output: result.output, seconds: (Date.now() - started) / 1000 };
}

beforeAll(async () => {
  // Settlement takes SETTLEMENT_S here, so that a checkout's wait outlasts its customTimeouts.
  sb = await startTestSandbox({
    log: () => {},
    timings: { settlementSeconds: SETTLEMENT_S, settlementExpectedWithinSeconds: 2 * SETTLEMENT_S },
  });
  ({ apiKey } = await sb.control.createAccount({ tier: "pro", balance: 100 }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" }));
  ({ id: otherTemplateId } = await sb.control.createTemplate({ apiKey, name: "Letter" }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  t = await createTestStack("resource-options", {
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
      templateId: { value: String(templateId) },
      recipients: { value: JSON.stringify(recipients(2)) },
      orders: { value: "2" },
    },
  });
  await ok("up", "--yes", "--skip-preview");
  expect((await ordersAtService()).map((o) => o.recipients)).toEqual([2, 2]);
}, 240_000);

afterAll(async () => {
  await sb?.control.clearFaults();
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

describe("resource options on the dynamic path, under the real pulumi CLI", { timeout: 300_000 }, () => {
  it("import: refused before anything is registered, in one line that says what to use", async () => {
    const [first] = stackOrderIds();
    setOptions({ order: { import: String(first) } });
    const result = await pulumi("preview");
    setOptions({});
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(
      `The \`import\` resource option cannot adopt an Order in a TypeScript program: its dynamic provider cannot import. ` +
        `Adopt order ${first} with the Order's input \`existingOrderId: ${first}\` instead, or import it with the provider plugin: ` +
        `\`pulumi import directmail:index:Order NAME ${first}\` (docs/resources.md).`,
    );
    expect(result.output).not.toContain("TypeError");
    expect(result.output).not.toMatch(/\n\s+at /); // no stack trace
    expect((await ordersAtService()).map((o) => o.recipients)).toEqual([2, 2]);
  });

  it("an update names the changed property in `preview --json` and in Automation API events, never a `__` input", async () => {
    configure({ recipients: recipients(3) });
    const steps = await previewSteps("OrderRecipients");
    expect(steps.map((s) => s.op)).toEqual(["update", "update"]);
    for (const step of steps) {
      expect(step.diffReasons).toEqual(["recipients"]);
      expect(step.detailedDiff).toEqual({ recipients: { kind: "update", inputDiff: true } });
      expect(step.replaceReasons ?? []).toEqual([]);
    }
    const updates = steps.events
      .map((e) => e.resourcePreEvent?.metadata)
      .filter((m) => m?.op === "update" && m.type.endsWith(":OrderRecipients"));
    expect(updates).toHaveLength(2);
    for (const metadata of updates) {
      expect(metadata?.diffs).toEqual(["recipients"]);
      expect(metadata?.detailedDiff).toEqual({ recipients: { diffKind: "update", inputDiff: true } });
    }
    // A preview changes nothing at the service.
    expect((await ordersAtService()).map((o) => o.recipients)).toEqual([2, 2]);
  });

  it("--target updates the one resource named", async () => {
    const output = await ok("up", "--yes", "--skip-preview", "--target", urnOf("recipients-1"));
    expect(output).toContain("1 updated");
    expect(await recipientsOf(stackOrderIds())).toEqual([3, 2]);
    await ok("up", "--yes", "--skip-preview");
    expect((await ordersAtService()).map((o) => o.recipients)).toEqual([3, 3]);
  });

  it("replaceOnChanges: a change of `recipients` replaces the list, and the order holds the new one", async () => {
    const before = stackOrderIds();
    configure({ options: { list: { replaceOnChanges: ["recipients"] } }, recipients: recipients(4) });
    const steps = await previewSteps("OrderRecipients");
    const replaced = steps.filter((s) => s.op === "replace");
    expect(replaced).toHaveLength(2);
    for (const step of replaced) {
      expect(step.replaceReasons).toEqual(["recipients"]);
      expect(step.diffReasons).toEqual(["recipients"]);
    }
    const output = await ok("up", "--yes", "--skip-preview");
    expect(output).toContain("2 replaced");
    setOptions({});
    expect(stackOrderIds()).toEqual(before);
    expect((await ordersAtService()).map((o) => o.recipients)).toEqual([4, 4]);
  });

  it("ignoreChanges: a changed templateId is not planned, and the orders keep theirs", async () => {
    configure({ options: { order: { ignoreChanges: ["templateId"] } }, templateId: String(otherTemplateId) });
    const preview = await pulumi("preview", "--json");
    expect(preview.code, preview.output).toBe(0);
    expect(JSON.parse(preview.stdout).changeSummary).toEqual({ same: 5 });
    // This up also protects the orders and lists, for the next test.
    setOptions({ order: { ignoreChanges: ["templateId"], protect: true }, list: { protect: true } });
    await ok("up", "--yes", "--skip-preview");
    configure({ templateId: String(templateId), options: {} });
    expect((await ordersAtService()).map((o) => o.templateId)).toEqual([templateId, templateId]);
  });

  it("protect: destroy refuses, and nothing is deleted at the service", async () => {
    // The previous test's last up recorded `protect: true` on the orders and lists.
    const result = await pulumi("destroy", "--yes", "--skip-preview");
    expect(result.code).not.toBe(0);
    for (const name of ["recipients-1", "recipients-2"])
      expect(result.output).toContain(
        `error: resource "urn:pulumi:e2e::resource-options::pulumi-nodejs:dynamic/directmail:OrderRecipients::${name}" cannot be deleted\n` +
          "    because it is protected. To unprotect the resource, either remove the `protect` flag from the resource in your Pulumi program and run `pulumi up`",
      );
    expect((await ordersAtService()).map((o) => o.recipients)).toEqual([4, 4]);
    // Unprotected as the program without the option would record it, for the next tests.
    setOptions({});
    await ok("state", "unprotect", "--all", "--yes");
  });

  it("stack export and import: the imported state plans no change", async () => {
    const file = path.join(t.workDir, "exported.json");
    await ok("stack", "export", "--file", file);
    expect(fs.readFileSync(file, "utf8")).toContain("pulumi-nodejs:dynamic/directmail:OrderRecipients");
    await ok("stack", "import", "--file", file);
    const output = await ok("preview", "--expect-no-changes");
    expect(output).toContain("5 unchanged");
    expect((await ordersAtService()).map((o) => o.recipients)).toEqual([4, 4]);
  });

  it("customTimeouts.update: an update the service holds fails at the timeout; the next up finds what was sent", async () => {
    configure({ options: { list: { customTimeouts: { update: "2s" } } }, recipients: recipients(5) });
    await sb.control.addFault({
      method: "PUT",
      path: "/v1/order/*/recipients",
      kind: "delay",
      delayMs: HELD_MS,
      after: true,
      times: 1,
    });
    const { output, seconds } = await failingUp();
    expect(output).toContain("OrderRecipients update did not finish within its customTimeouts.update of 2 s");
    expect(seconds).toBeLessThan(WELL_BEFORE_THE_ANSWER_S);
    await sb.control.clearFaults();
    // This up also records the orders' delete bound, which the next test's up deletes under.
    setOptions({ order: { customTimeouts: { delete: "2s" } } });
    await ok("up", "--yes", "--skip-preview");
    // Sent once: the list is the declared one, no recipient twice.
    expect((await ordersAtService()).map((o) => o.recipients)).toEqual([5, 5]);
  });

  it("customTimeouts.delete: a delete the service holds fails at the timeout; the next up finds the order gone", async () => {
    const [, second] = stackOrderIds();
    // A resource left out of the program is deleted under the options the stack recorded for it:
    // `delete: "2s"`, from the previous test's last up.
    configure({ orders: "1" });
    await sb.control.addFault({
      method: "DELETE",
      path: "/v1/order/*",
      kind: "delay",
      delayMs: HELD_MS,
      after: true,
      times: 1,
    });
    const { output, seconds } = await failingUp();
    expect(output).toContain("Order delete did not finish within its customTimeouts.delete of 2 s");
    expect(seconds).toBeLessThan(WELL_BEFORE_THE_ANSWER_S);
    expect((await ordersAtService()).map((o) => o.orderId)).not.toContain(second);
    expect(stackOrderIds()).toContain(second);
    await sb.control.clearFaults();
    setOptions({});
    await ok("up", "--yes", "--skip-preview");
    expect(stackOrderIds()).not.toContain(second);
    expect((await ordersAtService()).map((o) => o.recipients)).toEqual([5]);
  });

  it("customTimeouts.create: a create the service holds fails at the timeout; what it made stays at the service, outside the stack", async () => {
    configure({ options: { order: { customTimeouts: { create: "2s" } } }, orders: "2" });
    await sb.control.addFault({
      method: "POST",
      path: "/v1/order",
      kind: "delay",
      delayMs: HELD_MS,
      after: true,
      times: 1,
    });
    const { output, seconds } = await failingUp();
    expect(output).toContain("Order create did not finish within its customTimeouts.create of 2 s");
    expect(seconds).toBeLessThan(WELL_BEFORE_THE_ANSWER_S);
    expect(stackOrderIds()).toHaveLength(1);
    const atService = await ordersAtService();
    expect(atService).toHaveLength(2); // the order the timed-out create made: a draft, outside the stack
    await sb.control.clearFaults();
    // A timed-out create is no interrupted one: the next up creates the order again. It also
    // records retainOnDelete, which the next test's up deletes under.
    setOptions({ order: { retainOnDelete: true }, list: { retainOnDelete: true } });
    await ok("up", "--yes", "--skip-preview");
    expect(stackOrderIds()).toHaveLength(2);
    expect((await ordersAtService()).map((o) => o.recipients)).toEqual([5, 0, 5]);
  });

  it("retainOnDelete: the resources leave the stack and stay at the service", async () => {
    const ids = stackOrderIds();
    // retainOnDelete is recorded for each order and list by the previous test's last up.
    configure({ orders: "0" });
    const output = await ok("up", "--yes", "--skip-preview");
    expect(output).toContain("4 deleted");
    expect(stackOrderIds()).toEqual([]);
    const kept = (await ordersAtService()).filter((o) => ids.includes(o.orderId));
    expect(kept.map((o) => o.recipients)).toEqual([5, 5]);
    setOptions({});
  });

  it("customTimeouts.create on a Checkout: its settlement wait ends at the timeout, and the next up records the one checkout sent", async () => {
    configure({
      orders: "1",
      recipients: recipients(2),
      checkout: "true",
      settlementWaitSeconds: "300",
      options: { checkout: { customTimeouts: { create: "4s" } } },
    });
    const { output, seconds } = await failingUp();
    expect(output).toContain("Checkout create did not finish within its customTimeouts.create of 4 s");
    expect(output).toMatch(/waiting up to 300 s for payment to settle/);
    expect(seconds).toBeLessThan(SETTLEMENT_S - 30);
    const [orderId] = stackOrderIds();
    expect((await client.getOrder(orderId as number))?.orderStatus).toBe("Payment Needed");
    configure({ options: {}, settlementWaitSeconds: "0" });
    await ok("up", "--yes", "--skip-preview");
    const resources: any[] = t.readStateFile().checkpoint.checkpoint.latest.resources;
    const checkout = resources.find((r) => r.type === "pulumi-nodejs:dynamic/directmail:Checkout");
    expect(checkout.outputs.recordedExisting).toBe(true);
    await sb.control.advanceClock(SETTLEMENT_S);
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId as number)).toBe(1);
  });
});
