/**
 * A Pulumi YAML program (`runtime: yaml`, the language host scripts/toolchain.sh builds) declares a
 * campaign with the provider plugin's types: Order, OrderRecipients, Checkout and AddressBookEntry.
 * The real CLI previews, deploys, changes, refreshes, imports an order and destroys; the sandbox's
 * orders, recipients and ledger are the truth.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { pluginOnPath } from "./support/plugin";
import { createTestStack, type TestStack } from "./support/pulumi";

let sb: TestSandbox;
let t: TestStack;
let client: DirectMailClient;
let apiKey: string;
let templateId: number;
let plugin: ReturnType<typeof pluginOnPath>;

/** The real pulumi CLI in the stack's project, as its user runs it; stdout and stderr apart. */
function pulumi(...args: string[]): Promise<{ code: number; stdout: string; output: string }> {
  return new Promise((resolve) => {
    execFile(
      "pulumi",
      args,
      { cwd: t.workDir, env: t.env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, output: stdout + stderr }),
    );
  });
}

async function ok(...args: string[]) {
  const result = await pulumi(...args);
  expect(result.code, result.output).toBe(0);
  return result;
}

/** The steps of `pulumi preview --json`, by resource name. */
async function previewSteps(): Promise<Record<string, any>> {
  const { stdout } = await ok("preview", "--json");
  const steps = JSON.parse(stdout).steps as any[];
  return Object.fromEntries(steps.map((step) => [String(step.urn).split("::").at(-1), step]));
}

/** Checkouts the sandbox charged: the distinct checkouts with a successful charge in the ledger. */
const charges = async () => {
  const { entries } = await sb.control.ledger(apiKey);
  const paid = entries.filter((entry) => entry.kind === "charge" && entry.outcome === "succeeded");
  return new Set(paid.map((entry) => entry.checkoutId)).size;
};

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  ({ apiKey } = await sb.control.createAccount({ balance: 100 }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  plugin = pluginOnPath();
  t = await createTestStack("yaml-campaign", {
    env: plugin.env,
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
      templateId: { value: String(templateId) },
    },
  });
}, 120_000);

afterAll(async () => {
  await client?.close();
  await t?.dispose();
  plugin?.dispose();
  await sb?.close();
});

describe("a Pulumi YAML program through the plugin", () => {
  let orderId: number;

  it("previews and deploys the campaign: one order, its recipients, one charge, the address", async () => {
    const preview = await ok("preview", "--diff");
    expect(preview.output).toMatch(/\+ directmail:index:Order/);
    expect(preview.output).toMatch(/\+ directmail:index:Checkout/);
    expect(await client.listOrders()).toMatchObject({ orders: [] });

    const up = await ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/4 created|5 created/);
    orderId = Number((await t.stack.outputs()).orderId?.value);
    const order = await client.getOrder(orderId);
    expect(order).toMatchObject({ templateId, recipientCount: 2 });
    expect((await t.stack.outputs()).status?.value).toBe(order?.orderStatus);
    expect(await charges()).toBe(1);
    const { entries } = await sb.control.addressBook(apiKey);
    expect(entries.map((entry) => entry.firstName)).toEqual(["Grace"]);
    expect(t.readStateFile().text).not.toContain(apiKey);
  }, 300_000);

  it("names the changed property in preview --json, never a computed __ input", async () => {
    await t.stack.setConfig("entryName", { value: "Amazing Grace" });
    const steps = await previewSteps();
    expect(steps.entry.op).toBe("replace");
    expect(steps.entry.diffReasons).toEqual(["firstName"]);
    expect(steps.entry.detailedDiff).toEqual({ firstName: { kind: "update-replace", inputDiff: true } });
    // Only the entry changes: the recipients, with their computed __ inputs, show no step at all.
    const changing = Object.keys(steps).filter((name) => steps[name].op !== "same");
    expect(changing).toEqual(["entry"]);
    await ok("up", "--yes", "--skip-preview");
    const { entries } = await sb.control.addressBook(apiKey);
    expect(entries.map((entry) => entry.firstName)).toContain("Amazing Grace");
    expect(await charges()).toBe(1);
  }, 300_000);

  it("replaces on a change named in replaceOnChanges, and the new Checkout charges nothing", async () => {
    await t.stack.setConfig("maxTotal", { value: "90" });
    const steps = await previewSteps();
    expect(steps.checkout.op).toBe("replace");
    expect(steps.checkout.diffReasons).toEqual(["maxTotal"]);
    expect(steps.checkout.replaceReasons).toEqual(["maxTotal"]);
    await ok("up", "--yes", "--skip-preview");
    expect(await charges()).toBe(1);
    expect((await client.getOrder(orderId))?.recipientCount).toBe(2);
  }, 300_000);

  it("refreshes with no change", async () => {
    await ok("refresh", "--yes", "--expect-no-changes");
  }, 300_000);

  it("imports an order made elsewhere, reading its properties from the service", async () => {
    const made = await client.createOrder({ templateId });
    const result = await ok(
      "import",
      "directmail:index:Order",
      "adopted",
      String(made.orderId),
      "--yes",
      "--protect=false",
    );
    expect(result.output).toMatch(/templateId: \d+|templateId/);
    const state = t.readStateFile().checkpoint.checkpoint.latest.resources as any[];
    const adopted = state.find((r) => String(r.urn).endsWith("::adopted"));
    expect(adopted).toMatchObject({ type: "directmail:index:Order", id: String(made.orderId) });
    expect(adopted.inputs).toEqual({ templateId });
    expect(adopted.outputs).toMatchObject({ orderId: made.orderId, status: "Draft" });
  }, 300_000);

  it("says in one line why a kind cannot be imported", async () => {
    const result = await pulumi("import", "directmail:index:Checkout", "paid", "1", "--yes");
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("Checkout cannot be imported");
    expect(result.output).not.toMatch(/TypeError|at .*\.js:\d+/);
  }, 300_000);

  it("destroys: the draft imported order is deleted, the paid one stays, nothing charged again", async () => {
    await ok("destroy", "--yes", "--skip-preview");
    const { orders } = await client.listOrders();
    expect(orders.map((order) => order.orderId)).toEqual([orderId]);
    expect(await charges()).toBe(1);
  }, 300_000);
});

describe("customTimeouts through the plugin", () => {
  it("bounds a create: a create the service holds 20 s fails after 2 s, naming the timeout, well before the service answers", async () => {
    const timeoutStack = await createTestStack("yaml-timeout", {
      env: plugin.env,
      config: {
        "directmail:baseUrl": { value: sb.url },
        "directmail:apiKey": { value: apiKey, secret: true },
        templateId: { value: String(templateId) },
      },
    });
    try {
      await sb.control.addFault({
        method: "POST",
        path: "/v1/order",
        kind: "delay",
        delayMs: 20_000,
        times: 1,
      });
      const started = Date.now();
      const up = await new Promise<{ code: number; output: string }>((resolve) =>
        execFile(
          "pulumi",
          ["up", "--yes", "--skip-preview"],
          { cwd: timeoutStack.workDir, env: timeoutStack.env },
          (error, stdout, stderr) =>
            resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
        ),
      );
      expect(up.code).not.toBe(0);
      expect(up.output).toContain("Order create did not finish within its customTimeouts.create of 2 s");
      expect(Date.now() - started).toBeLessThan(16_000);
    } finally {
      await sb.control.clearFaults();
      await timeoutStack.dispose();
    }
  }, 300_000);
});

describe("pulumi package get-schema", () => {
  it("prints the committed package schema from the plugin", async () => {
    const bin = path.join(plugin.env.PATH?.split(path.delimiter)[0] ?? "", "pulumi-resource-directmail");
    const { stdout } = await ok("package", "get-schema", bin);
    const committed = fs.readFileSync(path.join(__dirname, "../../schema/pulumi-package.json"), "utf8");
    expect(JSON.parse(stdout)).toEqual(JSON.parse(committed));
  }, 120_000);
});
