/**
 * The `directmail:index:Campaign` component in a Pulumi YAML program, through the plugin's
 * Construct: one from a campaign file (`file`), one inline (`spec`). Its twin, a TypeScript program
 * of the same two campaigns with the package's `Campaign`, runs against another account of the
 * same sandbox with the same template, balance and do-not-mail list: the outputs of each campaign
 * are the TypeScript ones, the order ids aside, and so is what the service holds (each order, its
 * recipients, the ledger's charge).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { upOnce } from "./support/one-command";
import { pluginOnPath } from "./support/plugin";
import { createTestStack, type TestStack } from "./support/pulumi";

/** The autumn campaign's recipients: one of them is on each account's do-not-mail list. */
const AUTUMN_CSV = [
  "customerId,firstName,lastName,address1,city,state,zipCode",
  "C-1,Grace,Hopper,7 Oak Ave,Springfield,IL,62701",
  "C-2,Hedy,Lamarr,12 Analytical St,Springfield,IL,62701",
  "C-3,Katherine,Johnson,3 Orbit Drive,Madison,WI,53703",
  "",
].join("\n");

interface Account {
  apiKey: string;
  templateId: number;
  client: DirectMailClient;
}

let sb: TestSandbox;
let plugin: ReturnType<typeof pluginOnPath>;
const stacks: TestStack[] = [];
const clients: DirectMailClient[] = [];

/** An account with 100 USD, a template and one address on its do-not-mail list. */
async function account(): Promise<Account> {
  const { apiKey } = await sb.control.createAccount({ balance: 100 });
  const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
  await sb.control.addDoNotMail({
    apiKey,
    address1: "12 Analytical St",
    city: "Springfield",
    state: "IL",
    zip: "62701",
  });
  const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  clients.push(client);
  return { apiKey, templateId, client };
}

async function stackOf(program: string, of: Account, env: Record<string, string> = {}): Promise<TestStack> {
  const t = await createTestStack(program, {
    env,
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: of.apiKey, secret: true },
      templateId: { value: String(of.templateId) },
    },
  });
  stacks.push(t);
  fs.mkdirSync(path.join(t.workDir, "campaigns"), { recursive: true });
  fs.writeFileSync(path.join(t.workDir, "campaigns/autumn.csv"), AUTUMN_CSV);
  return t;
}

/** What the service holds of an account's orders, by campaign, ids left out. */
async function serviceState(of: Account, orderIds: Record<string, number>) {
  const orders: Record<string, unknown> = {};
  for (const [name, orderId] of Object.entries(orderIds)) {
    const order = await of.client.getOrder(orderId);
    const recipients: string[] = [];
    for await (const r of of.client.iterateRecipients(orderId))
      recipients.push(`${r.personal.firstName} ${r.personal.lastName} | ${r.address.address1}`);
    orders[name] = {
      status: order?.orderStatus,
      recipientCount: order?.recipientCount,
      recipients: recipients.sort(),
    };
  }
  const { entries, balance } = await sb.control.ledger(of.apiKey);
  const charges = entries
    .filter((e) => e.kind === "charge")
    .map((e) => ({ amount: e.amount, outcome: e.outcome }));
  return { orders, charges, balance };
}

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  plugin = pluginOnPath();
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close();
  for (const t of stacks) await t.dispose();
  plugin?.dispose();
  await sb?.close();
});

describe("Campaign in a Pulumi YAML program", () => {
  it("from a campaign file and inline: the TypeScript Campaign's outputs, and the same orders, recipients and charge", {
    timeout: 400_000,
  }, async () => {
    const [tsAccount, yamlAccount] = [await account(), await account()];
    const ts = await stackOf("campaign-components", tsAccount);
    const yaml = await stackOf("yaml-campaign-components", yamlAccount, plugin.env);
    const campaignFile = path.join(yaml.workDir, "campaigns/autumn.yaml");
    fs.writeFileSync(
      campaignFile,
      fs
        .readFileSync(campaignFile, "utf8")
        .replace(/templateId: 0\b.*/, `templateId: ${yamlAccount.templateId}`),
    );

    const tsUp = await upOnce(ts);
    const yamlUp = await upOnce(yaml);
    expect(yamlUp.summary.resourceChanges).toEqual({ create: tsUp.summary.resourceChanges?.create });
    const outputs = (up: typeof tsUp) =>
      Object.fromEntries(["autumnOutputs", "springOutputs"].map((key) => [key, up.outputs[key]?.value]));
    const [tsOutputs, yamlOutputs] = [outputs(tsUp), outputs(yamlUp)];
    const withoutIds = (o: Record<string, any>) =>
      Object.fromEntries(
        Object.entries(o).map(([key, value]) => [key, { ...value, orderId: "(the order's id)" }]),
      );
    expect(withoutIds(yamlOutputs)).toEqual(withoutIds(tsOutputs));
    // What they are: a paid campaign with one recipient dropped, and a draft with one.
    expect(yamlOutputs.autumnOutputs).toMatchObject({
      acceptedCount: 2,
      droppedCount: 1,
      dropReasons: { "DO_NOT_MAIL: the address is on the account's do-not-mail list": 1 },
      checkoutStatus: "Ready For Production",
      totalCharges: expect.any(Number),
    });
    expect(yamlOutputs.springOutputs).toMatchObject({
      orderStatus: "Draft",
      acceptedCount: 1,
      droppedCount: 1,
    });

    const ids = (o: Record<string, any>) => ({
      autumn: o.autumnOutputs.orderId as number,
      spring: o.springOutputs.orderId as number,
    });
    const yamlState = await serviceState(yamlAccount, ids(yamlOutputs));
    expect(yamlState).toEqual(await serviceState(tsAccount, ids(tsOutputs)));
    expect(yamlState.charges).toEqual([
      { amount: yamlOutputs.autumnOutputs.totalCharges, outcome: "succeeded" },
    ]);

    // Neither program changes anything on a second look.
    for (const t of [ts, yaml]) {
      const preview = await t.stack.preview();
      expect(Object.keys(preview.changeSummary).filter((op) => op !== "same")).toEqual([]);
    }
  });
});
