/**
 * A Pulumi YAML program (`runtime: yaml`, the language host scripts/toolchain.sh builds) declares a
 * campaign with the provider plugin's types: Order, OrderRecipients, Checkout and AddressBookEntry.
 * The real CLI previews, deploys, changes, refreshes, imports an order and destroys; the sandbox's
 * orders, recipients and ledger are the truth.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { directmailIn } from "./support/commands";
import { stateOutputs } from "./support/one-command";
import { pluginOnPath } from "./support/plugin";
import { createTestStack, type TestStack, writePlainConfig } from "./support/pulumi";
import { pulumiIn } from "./support/yaml-program";

let sb: TestSandbox;
let t: TestStack;
let client: DirectMailClient;
let apiKey: string;
let templateId: number;
let plugin: ReturnType<typeof pluginOnPath>;

async function ok(...args: string[]) {
  return okIn(t, ...args);
}

async function okIn(stack: TestStack, ...args: string[]) {
  const result = await pulumiIn(stack, ...args);
  expect(result.code, result.output).toBe(0);
  return result;
}

/** The account's charges in the sandbox's ledger. */
const chargesOf = async (key: string) =>
  (await sb.control.ledger(key)).entries.filter((entry) => entry.kind === "charge");

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
    const outputs = stateOutputs(t);
    orderId = Number(outputs.orderId?.value);
    const order = await client.getOrder(orderId);
    expect(order).toMatchObject({ templateId, recipientCount: 2 });
    expect(outputs.status?.value).toBe(order?.orderStatus);
    expect(await charges()).toBe(1);
    const { entries } = await sb.control.addressBook(apiKey);
    expect(entries.map((entry) => entry.firstName)).toEqual(["Grace"]);
    expect(t.readStateFile().text).not.toContain(apiKey);
  }, 300_000);

  // The options, diffs by property name and customTimeouts among them: resource-options-plugin.test.ts.
  it("applies a change: a new address-book entry, nothing charged again", async () => {
    writePlainConfig(t, { entryName: "Amazing Grace" });
    const up = await ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/\+- +directmail:index:AddressBookEntry +entry +replaced/);
    const { entries } = await sb.control.addressBook(apiKey);
    expect(entries.map((entry) => entry.firstName)).toContain("Amazing Grace");
    expect(await charges()).toBe(1);
  }, 300_000);

  it("refreshes with no change", async () => {
    await ok("refresh", "--yes", "--skip-preview", "--expect-no-changes");
  }, 300_000);

  it("imports an order made elsewhere, reading its properties from the service", async () => {
    const made = await client.createOrder({ templateId });
    const result = await ok(
      "import",
      "directmail:index:Order",
      "adopted",
      String(made.orderId),
      "--yes",
      "--skip-preview",
      "--protect=false",
    );
    expect(result.output).toMatch(/templateId: \d+|templateId/);
    const state = t.readStateFile().checkpoint.checkpoint.latest.resources as any[];
    const adopted = state.find((r) => String(r.urn).endsWith("::adopted"));
    expect(adopted).toMatchObject({ type: "directmail:index:Order", id: String(made.orderId) });
    expect(adopted.inputs).toEqual({ templateId });
    expect(adopted.outputs).toMatchObject({ orderId: made.orderId, status: "Draft" });
  }, 300_000);

  // The one line for each kind that cannot be imported, Checkout among them, exactly and without a
  // stack trace: plugin-import.test.ts.

  it("destroys: the draft imported order is deleted, the paid one stays, nothing charged again", async () => {
    await ok("destroy", "--yes", "--skip-preview");
    const { orders } = await client.listOrders();
    expect(orders.map((order) => order.orderId)).toEqual([orderId]);
    expect(await charges()).toBe(1);
  }, 300_000);
});

describe("a Pulumi YAML project made by `directmail init --yaml`: a CampaignFolder through Construct", () => {
  let y: TestStack;
  let yamlKey: string;
  let yamlClient: DirectMailClient;

  beforeAll(async () => {
    ({ apiKey: yamlKey } = await sb.control.createAccount({ balance: 100 }));
    const { id: template } = await sb.control.createTemplate({ apiKey: yamlKey, name: "Welcome" });
    yamlClient = new DirectMailClient({ baseUrl: sb.url, apiKey: yamlKey });
    const made = fs.mkdtempSync(path.join(__dirname, "../../.pulumi-test/yaml-init-"));
    const init = await directmailIn({ cwd: made, env: process.env }, "init", "--yaml", "campaigns-yaml");
    expect(init.code, init.stderr).toBe(0);
    const source = path.join(made, "campaigns-yaml");
    // The scaffold's draft, made from this account's template.
    const campaignFile = path.join(source, "campaigns/welcome-postcard.yaml");
    fs.writeFileSync(
      campaignFile,
      fs.readFileSync(campaignFile, "utf8").replace(/templateId: \d+/, `templateId: ${template}`),
    );
    y = await createTestStack("campaigns-yaml", {
      fromDir: path.relative(path.join(__dirname, "../.."), source),
      config: {
        "directmail:baseUrl": { value: sb.url },
        "directmail:apiKey": { value: yamlKey, secret: true },
      },
    });
    fs.rmSync(made, { recursive: true, force: true });
    // As `npm install` links the package's bin, where Pulumi.yaml's `plugins` finds the plugin.
    fs.mkdirSync(path.join(y.workDir, "node_modules/.bin"), { recursive: true });
    fs.symlinkSync(
      path.join(__dirname, "../../bin/pulumi-resource-directmail.js"),
      path.join(y.workDir, "node_modules/.bin/pulumi-resource-directmail"),
    );
  }, 120_000);

  afterAll(async () => {
    await yamlClient?.close();
    await y?.dispose();
  });

  const recipientsOf = async (orderId: number) => {
    const found: string[] = [];
    for await (const r of yamlClient.iterateRecipients(orderId))
      found.push(`${r.personal.firstName} ${r.address.address1}`);
    return found.sort();
  };

  it("writes a runtime: yaml Pulumi.yaml declaring a CampaignFolder over campaigns/, and no TypeScript", () => {
    expect(fs.readFileSync(path.join(y.workDir, "Pulumi.yaml"), "utf8")).toMatch(
      /runtime: yaml\n[\s\S]*type: directmail:index:CampaignFolder\n\s+properties:\n\s+dir: campaigns\n/,
    );
    expect(fs.existsSync(path.join(y.workDir, "index.ts"))).toBe(false);
  });

  it("previews, deploys the draft with its three recipients, and status reads it", async () => {
    const preview = await okIn(y, "preview");
    expect(preview.output).toMatch(/\+ +directmail:index:CampaignFolder +campaigns +create/);
    expect(preview.output).toMatch(/\+ +directmail:index:Campaign +welcome-postcard +create/);
    expect(preview.output).toMatch(
      /\+ +directmail:index:OrderRecipients +welcome-postcard-recipients +create/,
    );
    expect((await yamlClient.listOrders()).orders).toEqual([]);

    await okIn(y, "up", "--yes", "--skip-preview");
    const { orders } = await yamlClient.listOrders();
    expect(orders).toHaveLength(1);
    const orderId = orders[0]?.orderId as number;
    expect(await recipientsOf(orderId)).toEqual([
      "Ada 100 MAIN ST",
      "Alan 114 MAPLE DR",
      "Grace 107 OAK AVE",
    ]);
    const outputs = stateOutputs(y).campaigns?.value;
    expect(outputs["welcome-postcard"]).toMatchObject({
      orderId,
      orderStatus: "Draft",
      accepted: 3,
      dropped: 0,
    });
    const state = y.readStateFile().checkpoint.checkpoint.latest.resources as any[];
    expect(state.filter((r) => String(r.type).startsWith("pulumi-nodejs"))).toEqual([]);
    expect(await chargesOf(yamlKey)).toEqual([]);

    const status = await directmailIn({ cwd: y.workDir, env: y.env }, "status");
    expect(status.stderr).toBe(
      '(address from directmail:baseUrl of stack "e2e", API key from directmail:apiKey of stack "e2e")\n',
    );
    expect(status.stdout).toBe(
      [
        "ORDER  CAMPAIGN          STATUS  PAID  SCANS  CHARGED   TRANSACTIONS  DELIVERY",
        `${orderId}  welcome-postcard  Draft   -     0      0.00 USD  0             3 pieces, not mailed`,
        "",
      ].join("\n"),
    );
  }, 300_000);

  it("sends only the changed recipient when a CSV row changes, and refresh finds nothing changed", async () => {
    const csv = path.join(y.workDir, "campaigns/welcome-postcard.csv");
    fs.writeFileSync(csv, fs.readFileSync(csv, "utf8").replace("107 Oak Avenue", "9 Elm Street"));
    const up = await okIn(y, "up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/~ +directmail:index:OrderRecipients +welcome-postcard-recipients +updated/);
    const orderId = (await yamlClient.listOrders()).orders[0]?.orderId as number;
    expect(await recipientsOf(orderId)).toEqual(["Ada 100 MAIN ST", "Alan 114 MAPLE DR", "Grace 9 ELM ST"]);
    await okIn(y, "refresh", "--yes", "--skip-preview", "--expect-no-changes");
  }, 300_000);

  it("destroys: the draft order is deleted at the service, nothing was charged", async () => {
    await okIn(y, "destroy", "--yes", "--skip-preview");
    expect((await yamlClient.listOrders()).orders).toEqual([]);
    expect(await chargesOf(yamlKey)).toEqual([]);
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
