/**
 * Every row of docs/resources.md's resource-option table on the plugin path: a Pulumi YAML program
 * of `directmail:index:*` resources, run with the real CLI and edited between steps as its user
 * edits it. The sandbox's orders, recipients and ledger are the truth.
 *
 * Two stacks share one sandbox: `options` walks the options in turn on one campaign, `timeouts`
 * holds each step of a campaign back with a sandbox delay fault under `customTimeouts`.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { paidCheckouts } from "../support/ledger";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { diagnostics } from "./support/output";
import { pluginOnPath } from "./support/plugin";
import { createTestStack, type TestStack } from "./support/pulumi";
import { pulumiIn, yamlRef as ref, writeYamlProgram } from "./support/yaml-program";

let sb: TestSandbox;
let plugin: ReturnType<typeof pluginOnPath>;

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  plugin = pluginOnPath();
}, 120_000);

afterAll(async () => {
  plugin?.dispose();
  await sb?.close();
});

/** A stack of the `yaml-program` program for a new account; its client reads the sandbox. */
async function campaignStack(payment: "succeed" | "hang" = "succeed") {
  const { apiKey } = await sb.control.createAccount({ balance: 100, payment });
  const { id: postcard } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
  const { id: letter } = await sb.control.createTemplate({ apiKey, name: "Letter" });
  const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  const stack = await createTestStack("yaml-program", {
    env: plugin.env,
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
    },
  });
  return { apiKey, postcard, letter, client, stack };
}

/** The campaign's recipients, the second one's ZIP code as given. */
const recipients = (zip: string) => [
  {
    firstName: "Ada",
    lastName: "Lovelace",
    address1: "1 Main St",
    city: "Springfield",
    state: "IL",
    zipCode: "62701",
  },
  {
    firstName: "Alan",
    lastName: "Turing",
    address1: "2 Main St",
    city: "Springfield",
    state: "IL",
    zipCode: zip,
  },
];

/** An order of the template, with these resource options. */
const order = (templateId: number, options?: Record<string, unknown>) => ({
  type: "directmail:index:Order",
  properties: { templateId },
  ...(options ? { options } : {}),
});

/** The recipients of `order`, with these resource options. */
const orderRecipients = (zip: string, options?: Record<string, unknown>) => ({
  type: "directmail:index:OrderRecipients",
  properties: { orderId: ref("order.orderId"), recipients: recipients(zip) },
  ...(options ? { options } : {}),
});

/** The recipients of an order as the sandbox lists them: first name and ZIP code, sorted. */
async function listed(client: DirectMailClient, orderId: number): Promise<string[]> {
  const found: string[] = [];
  for await (const r of client.iterateRecipients(orderId))
    found.push(`${r.personal.firstName} ${r.address.zipCode}`);
  return found.sort();
}

/** The orders the sandbox lists for the account, by id, with their template. */
async function ordersAt(client: DirectMailClient): Promise<Record<number, number | null>> {
  const { orders } = await client.listOrders();
  return Object.fromEntries(orders.map((o) => [o.orderId, o.templateId]));
}

/** Runs a pulumi command that must succeed. */
async function ok(stack: TestStack, ...args: string[]) {
  const result = await pulumiIn(stack, ...args);
  expect(result.code, result.output).toBe(0);
  return result;
}

/** The steps of `pulumi preview --json`, by resource name, in the order the engine gives them. */
async function previewSteps(stack: TestStack): Promise<{ byName: Record<string, any>; ops: string[] }> {
  const { stdout } = await ok(stack, "preview", "--json");
  const steps = JSON.parse(stdout).steps as any[];
  const nameOf = (step: any) => String(step.urn).split("::").at(-1);
  return {
    byName: Object.fromEntries(steps.map((step) => [nameOf(step), step])),
    ops: steps.map((step) => `${step.op} ${nameOf(step)}`),
  };
}

/** The resources the stack's state holds, by name. */
function stateOf(stack: TestStack): Record<string, any> {
  const resources = stack.readStateFile().checkpoint.checkpoint.latest.resources as any[];
  return Object.fromEntries(resources.map((r) => [String(r.urn).split("::").at(-1), r]));
}

describe("resource options through the plugin, on one campaign", () => {
  let s: Awaited<ReturnType<typeof campaignStack>>;
  let orderId: number;
  let spareId: number;
  const urnOf = (name: string) => stateOf(s.stack)[name]?.urn as string;
  /** A Checkout of `order` that a change of `maxTotal` replaces. */
  const checkout = (maxTotal: number) => ({
    type: "directmail:index:Checkout",
    properties: {
      orderId: ref("order.orderId"),
      postageType: "Standard",
      productionSpeed: "Normal",
      expectedRecipientCount: ref("recipients.orderRecipientCount"),
      maxTotal,
    },
    options: { replaceOnChanges: ["maxTotal"], dependsOn: [ref("recipients")] },
  });

  beforeAll(async () => {
    s = await campaignStack();
  }, 120_000);

  afterAll(async () => {
    await s?.client.close();
    await s?.stack.dispose();
  });

  it("deploys an order with its recipients and a spare draft order", async () => {
    writeYamlProgram(s.stack, {
      resources: { order: order(s.postcard), recipients: orderRecipients("62701"), spare: order(s.postcard) },
    });
    await ok(s.stack, "up", "--yes", "--skip-preview");
    orderId = Number(stateOf(s.stack).order.id);
    spareId = Number(stateOf(s.stack).spare.id);
    expect(await ordersAt(s.client)).toEqual({ [orderId]: s.postcard, [spareId]: s.postcard });
    expect(await listed(s.client, orderId)).toEqual(["Ada 62701", "Alan 62701"]);
  }, 300_000);

  it("names the changed property in preview --json, never a computed __ input, and updates in place", async () => {
    writeYamlProgram(s.stack, {
      resources: { order: order(s.postcard), recipients: orderRecipients("62702"), spare: order(s.postcard) },
    });
    const { byName, ops } = await previewSteps(s.stack);
    expect(ops.filter((op) => !op.startsWith("same"))).toEqual(["update recipients"]);
    expect(byName.recipients.diffReasons).toEqual(["recipients"]);
    expect(byName.recipients.detailedDiff).toEqual({ recipients: { kind: "update", inputDiff: true } });
    await ok(s.stack, "up", "--yes", "--skip-preview");
    expect(await listed(s.client, orderId)).toEqual(["Ada 62701", "Alan 62702"]);
    expect(Number(stateOf(s.stack).recipients.id)).toBe(orderId);
  }, 300_000);

  it("replaceOnChanges: recipients replaces the OrderRecipients, and the order lists each recipient once", async () => {
    writeYamlProgram(s.stack, {
      resources: {
        order: order(s.postcard),
        recipients: orderRecipients("62703", { replaceOnChanges: ["recipients"] }),
        spare: order(s.postcard),
      },
    });
    const { byName, ops } = await previewSteps(s.stack);
    expect(ops.filter((op) => !op.startsWith("same"))).toEqual(["replace recipients"]);
    expect(byName.recipients.diffReasons).toEqual(["recipients"]);
    expect(byName.recipients.replaceReasons).toEqual(["recipients"]);
    const up = await ok(s.stack, "up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/\+- +directmail:index:OrderRecipients +recipients +replaced/);
    expect(await listed(s.client, orderId)).toEqual(["Ada 62701", "Alan 62703"]);
  }, 300_000);

  it("ignoreChanges: a change of an ignored property plans nothing and sends nothing", async () => {
    writeYamlProgram(s.stack, {
      resources: {
        order: order(s.postcard),
        recipients: orderRecipients("62703"),
        spare: order(s.letter, { ignoreChanges: ["templateId"] }),
      },
    });
    const { ops } = await previewSteps(s.stack);
    expect(ops.filter((op) => !op.startsWith("same"))).toEqual([]);
    await ok(s.stack, "up", "--yes", "--skip-preview");
    expect(await ordersAt(s.client)).toEqual({ [orderId]: s.postcard, [spareId]: s.postcard });
    expect(stateOf(s.stack).spare.inputs).toEqual({ templateId: s.postcard });
  }, 300_000);

  it("deleteBeforeReplace: the draft is deleted at the service before its replacement is created", async () => {
    writeYamlProgram(s.stack, {
      resources: {
        order: order(s.postcard),
        recipients: orderRecipients("62703"),
        spare: order(s.letter, { deleteBeforeReplace: true }),
      },
    });
    const { byName, ops } = await previewSteps(s.stack);
    expect(ops.filter((op) => !op.startsWith("same"))).toEqual(["replace spare"]);
    expect(byName.spare.diffReasons).toEqual(["templateId"]);
    const up = await ok(s.stack, "up", "--yes", "--skip-preview");
    const deleted = up.output.search(/directmail:index:Order +spare +deleted original/);
    const created = up.output.search(/directmail:index:Order +spare +created replacement/);
    expect(deleted, up.output).toBeGreaterThan(0);
    expect(created, up.output).toBeGreaterThan(deleted);
    const replacement = Number(stateOf(s.stack).spare.id);
    expect(replacement).not.toBe(spareId);
    expect(await ordersAt(s.client)).toEqual({ [orderId]: s.postcard, [replacement]: s.letter });
    spareId = replacement;
  }, 300_000);

  it("--target: only the targeted resource changes; the other change waits for the next up", async () => {
    writeYamlProgram(s.stack, {
      resources: { order: order(s.postcard), recipients: orderRecipients("62704"), spare: order(s.postcard) },
    });
    const up = await ok(s.stack, "up", "--yes", "--skip-preview", "--target", urnOf("spare"));
    expect(up.output).toMatch(/\+- +directmail:index:Order +spare +replaced/);
    expect(up.output).not.toMatch(/directmail:index:OrderRecipients +recipients +updat/);
    const replacement = Number(stateOf(s.stack).spare.id);
    expect(await ordersAt(s.client)).toEqual({ [orderId]: s.postcard, [replacement]: s.postcard });
    expect(await listed(s.client, orderId)).toEqual(["Ada 62701", "Alan 62703"]);
    spareId = replacement;

    const { ops } = await previewSteps(s.stack);
    expect(ops.filter((op) => !op.startsWith("same"))).toEqual(["update recipients"]);
    // This up also protects the spare order, for the next test.
    writeYamlProgram(s.stack, {
      resources: {
        order: order(s.postcard),
        recipients: orderRecipients("62704"),
        spare: order(s.postcard, { protect: true }),
      },
    });
    await ok(s.stack, "up", "--yes", "--skip-preview");
    expect(await listed(s.client, orderId)).toEqual(["Ada 62701", "Alan 62704"]);
  }, 300_000);

  it("protect: a protected order is not deleted when it leaves the program; unprotected, it is", async () => {
    const base = { order: order(s.postcard), recipients: orderRecipients("62704") };
    // The previous test's last up recorded `protect: true` on the spare order.
    expect(stateOf(s.stack).spare.protect).toBe(true);

    writeYamlProgram(s.stack, { resources: base });
    const refused = await pulumiIn(s.stack, "up", "--yes", "--skip-preview");
    expect(refused.code).not.toBe(0);
    expect(diagnostics(refused.output)["directmail:index:Order (spare):"]?.slice(0, 2)).toEqual([
      `error: resource "${urnOf("spare")}" cannot be deleted`,
      "because it is protected. To unprotect the resource, either remove the `protect` flag from the resource in your Pulumi program and run `pulumi up`, or use the command:",
    ]);
    expect(Object.keys(await ordersAt(s.client)).map(Number)).toContain(spareId);

    await ok(s.stack, "state", "unprotect", urnOf("spare"), "--yes");
    // This up also creates the next test's order `kept`, with `retainOnDelete: true`.
    writeYamlProgram(s.stack, { resources: { ...base, kept: order(s.letter, { retainOnDelete: true }) } });
    await ok(s.stack, "up", "--yes", "--skip-preview");
    const keptId = Number(stateOf(s.stack).kept.id);
    expect(await ordersAt(s.client)).toEqual({ [orderId]: s.postcard, [keptId]: s.letter });
    expect(stateOf(s.stack).spare).toBeUndefined();
  }, 300_000);

  it("retainOnDelete: an order that leaves the program leaves the stack and stays at the service", async () => {
    const base = { order: order(s.postcard), recipients: orderRecipients("62704") };
    // The previous test's last up created `kept` with `retainOnDelete: true`.
    const keptId = Number(stateOf(s.stack).kept.id);

    // This up also checks the order out, for the next test (a Checkout with `maxTotal: 100`).
    writeYamlProgram(s.stack, { resources: { ...base, checkout: checkout(100) } });
    const up = await ok(s.stack, "up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/ - +directmail:index:Order +kept +deleted \([\d.]+s\)\[retain\]/);
    expect(stateOf(s.stack).kept).toBeUndefined();
    expect(await ordersAt(s.client)).toEqual({ [orderId]: s.postcard, [keptId]: s.letter });
  }, 300_000);

  it("replaceOnChanges: a Checkout's maxTotal replaces it, and the new Checkout charges nothing", async () => {
    const base = { order: order(s.postcard), recipients: orderRecipients("62704") };
    // The previous test's last up checked the order out under `maxTotal: 100`.
    expect(stateOf(s.stack).checkout?.inputs).toMatchObject({ maxTotal: 100 });
    expect(paidCheckouts(await sb.control.ledger(s.apiKey), orderId)).toBe(1);

    writeYamlProgram(s.stack, { resources: { ...base, checkout: checkout(90) } });
    const { byName } = await previewSteps(s.stack);
    expect(byName.checkout.op).toBe("replace");
    expect(byName.checkout.diffReasons).toEqual(["maxTotal"]);
    expect(byName.checkout.replaceReasons).toEqual(["maxTotal"]);
    const up = await ok(s.stack, "up", "--yes", "--skip-preview");
    expect(up.output).toContain("recording it, nothing is charged");
    expect(paidCheckouts(await sb.control.ledger(s.apiKey), orderId)).toBe(1);
  }, 300_000);

  it("stack export and import: an exported state, imported back, is the stack again with nothing to change", async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "directmail-export-")), "stack.json");
    try {
      await ok(s.stack, "stack", "export", "--file", file);
      const exported = fs.readFileSync(file, "utf8");
      expect(exported).not.toContain(s.apiKey);
      const types = (JSON.parse(exported).deployment.resources as any[]).map((r) => r.type).sort();
      expect(types).toEqual([
        "directmail:index:Checkout",
        "directmail:index:Order",
        "directmail:index:OrderRecipients",
        "pulumi:providers:directmail",
        "pulumi:pulumi:Stack",
      ]);

      // The stack loses its Checkout: the plan would make one again.
      await ok(s.stack, "state", "delete", urnOf("checkout"), "--yes");
      const { ops } = await previewSteps(s.stack);
      expect(ops.filter((op) => !op.startsWith("same"))).toEqual(["create checkout"]);

      await ok(s.stack, "stack", "import", "--file", file);
      expect(stateOf(s.stack).checkout?.outputs).toMatchObject({ orderId });
      await ok(s.stack, "preview", "--expect-no-changes");
      await ok(s.stack, "refresh", "--yes", "--expect-no-changes");
      expect(paidCheckouts(await sb.control.ledger(s.apiKey), orderId)).toBe(1);
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  }, 300_000);

  it("destroys: the paid order stays, nothing is charged again", async () => {
    await ok(s.stack, "destroy", "--yes", "--skip-preview");
    const at = await ordersAt(s.client);
    expect(Object.keys(at).map(Number)).toContain(orderId);
    expect(paidCheckouts(await sb.control.ledger(s.apiKey), orderId)).toBe(1);
  }, 300_000);
});

describe("customTimeouts through the plugin, each step held back by the sandbox", () => {
  let s: Awaited<ReturnType<typeof campaignStack>>;
  let orderId: number;
  /**
   * How long the sandbox holds a request or its answer back: far longer than a `pulumi up` takes on
   * a loaded machine, so that a step under a bound of a few seconds is seen to fail well within it.
   */
  const HELD_MS = 90_000;
  const WELL_BEFORE_THE_ANSWER_MS = HELD_MS - 30_000;
  /** The Checkout's settlement wait: without its bound, its `up` would wait this long. */
  const SETTLEMENT_WAIT_S = 300;

  beforeAll(async () => {
    // The payment processor hangs: a checkout stays "Payment Needed" until the test lets it settle.
    s = await campaignStack("hang");
  }, 120_000);

  afterAll(async () => {
    await sb?.control.clearFaults();
    await s?.client.close();
    await s?.stack.dispose();
  });

  /** `pulumi up`, which must fail; what it printed and how long it took. */
  async function upFails() {
    const started = Date.now();
    const up = await pulumiIn(s.stack, "up", "--yes", "--skip-preview");
    expect(up.code, up.output).not.toBe(0);
    return { output: up.output, ms: Date.now() - started };
  }

  const recipientsWithin = (zip: string) => orderRecipients(zip, { customTimeouts: { update: "2s" } });
  const spare = () => order(s.letter, { customTimeouts: { delete: "2s" } });
  const checkout = {
    type: "directmail:index:Checkout",
    properties: {
      orderId: ref("order.orderId"),
      postageType: "Standard",
      productionSpeed: "Normal",
      settlementWaitSeconds: SETTLEMENT_WAIT_S,
    },
    options: { customTimeouts: { create: "5s" }, dependsOn: [ref("recipients")] },
  };

  it("deploys the campaign with its bounds", async () => {
    writeYamlProgram(s.stack, {
      resources: {
        order: order(s.postcard),
        recipients: recipientsWithin("62701"),
        spare: spare(),
      },
    });
    await ok(s.stack, "up", "--yes", "--skip-preview");
    orderId = Number(stateOf(s.stack).order.id);
    expect(await listed(s.client, orderId)).toEqual(["Ada 62701", "Alan 62701"]);
  }, 300_000);

  it("bounds an update: applied by the service, its answer held 90 s, it fails after 2 s naming the bound; the next up completes it", async () => {
    writeYamlProgram(s.stack, {
      resources: {
        order: order(s.postcard),
        recipients: recipientsWithin("62702"),
        spare: spare(),
      },
    });
    await sb.control.addFault({
      method: "PUT",
      path: `/v1/order/${orderId}/recipients`,
      kind: "delay",
      delayMs: HELD_MS,
      after: true,
      times: 1,
    });
    const up = await upFails();
    expect(up.output).toContain(
      "OrderRecipients update did not finish within its customTimeouts.update of 2 s; no further request was sent.",
    );
    expect(up.ms).toBeLessThan(WELL_BEFORE_THE_ANSWER_MS);
    await sb.control.clearFaults();
    await ok(s.stack, "up", "--yes", "--skip-preview");
    expect(await listed(s.client, orderId)).toEqual(["Ada 62701", "Alan 62702"]);
  }, 300_000);

  it("bounds a delete: applied by the service, its answer held 90 s, it fails after 2 s naming the bound; the next up finds the order gone", async () => {
    const spareId = Number(stateOf(s.stack).spare.id);
    const base = { order: order(s.postcard), recipients: recipientsWithin("62702") };
    writeYamlProgram(s.stack, { resources: base });
    await sb.control.addFault({
      method: "DELETE",
      path: `/v1/order/${spareId}`,
      kind: "delay",
      delayMs: HELD_MS,
      after: true,
      times: 1,
    });
    const up = await upFails();
    expect(up.output).toContain(
      "Order delete did not finish within its customTimeouts.delete of 2 s; no further request was sent.",
    );
    expect(up.ms).toBeLessThan(WELL_BEFORE_THE_ANSWER_MS);
    // The service deleted it; the stack, which got no answer, still holds it.
    expect(Number(stateOf(s.stack).spare?.id)).toBe(spareId);
    expect(await ordersAt(s.client)).toEqual({ [orderId]: s.postcard });
    await sb.control.clearFaults();
    await ok(s.stack, "up", "--yes", "--skip-preview");
    expect(stateOf(s.stack).spare).toBeUndefined();
    expect(await ordersAt(s.client)).toEqual({ [orderId]: s.postcard });
  }, 300_000);

  it("bounds the Checkout's settlement wait: it fails at the bound, and the next up records the checkout without sending it again", async () => {
    writeYamlProgram(s.stack, {
      resources: {
        order: order(s.postcard),
        recipients: recipientsWithin("62702"),
        checkout,
      },
    });
    const up = await upFails();
    // What the user reads under the Checkout: the charge was sent, then the bound passed.
    expect(diagnostics(up.output)["directmail:index:Checkout (checkout):"]).toEqual([
      `[directmail] Checkout of order ${orderId}: price 5.00 USD for 2 recipients (Standard postage, Normal production); the balance covers 5.00 USD, the payment method is charged 0.00 USD; no maxTotal set`,
      `[directmail] Checkout of order ${orderId}: charging 5.00 USD (2 recipients)`,
      `[directmail] Checkout of order ${orderId}: accepted; waiting up to ${SETTLEMENT_WAIT_S} s for payment to settle`,
      "error: Checkout create did not finish within its customTimeouts.create of 5 s; no further request was sent. " +
        "A request already sent may still take effect at the service: the next `pulumi up` reads the service before it sends again (docs/resources.md).",
    ]);
    expect(up.ms).toBeLessThan(60_000);
    expect(stateOf(s.stack).checkout).toBeUndefined();
    expect((await s.client.getOrder(orderId))?.orderStatus).toBe("Payment Needed");

    // The processor answers at last: the one checkout sent is paid.
    await sb.control.updateAccount({ apiKey: s.apiKey, payment: "succeed" });
    await sb.control.advanceClock(5);
    expect(paidCheckouts(await sb.control.ledger(s.apiKey), orderId)).toBe(1);

    const again = await ok(s.stack, "up", "--yes", "--skip-preview");
    const status = (await s.client.getOrder(orderId))?.orderStatus;
    expect(diagnostics(again.output)["directmail:index:Checkout (checkout):"]).toEqual([
      `[directmail] Checkout of order ${orderId}: the order is already "${status}": nothing is charged, the checkout is recorded`,
      `[directmail] Checkout of order ${orderId}: the order is already "${status}"; recording it, nothing is charged`,
      `[directmail] Checkout of order ${orderId}: payment settled: ${status}; the service charged 5.00 USD`,
    ]);
    expect(stateOf(s.stack).checkout?.outputs).toMatchObject({ orderId, recordedExisting: true });
    const charges = (await sb.control.ledger(s.apiKey)).entries.filter(
      (e) => e.orderId === orderId && e.kind === "charge",
    );
    expect(new Set(charges.map((e) => e.checkoutId)).size).toBe(1);
    expect(paidCheckouts(await sb.control.ledger(s.apiKey), orderId)).toBe(1);
  }, 300_000);

  it("bounds a create: a create held 90 s fails after 2 s, naming the bound, well before the service answers", async () => {
    writeYamlProgram(s.stack, {
      resources: {
        order: order(s.postcard),
        recipients: recipientsWithin("62702"),
        checkout,
        late: order(s.postcard, { customTimeouts: { create: "2s" } }),
      },
    });
    await sb.control.addFault({
      method: "POST",
      path: "/v1/order",
      kind: "delay",
      delayMs: HELD_MS,
      times: 1,
    });
    const up = await upFails();
    expect(up.output).toContain("Order create did not finish within its customTimeouts.create of 2 s");
    expect(up.ms).toBeLessThan(WELL_BEFORE_THE_ANSWER_MS);
  }, 300_000);
});
