/**
 * Stacks created by an earlier release keep working with this one, under the real pulumi CLI.
 *
 * Pulumi stores each resource's dynamic provider in the state (`__provider`) and runs that stored
 * copy for `refresh` and `destroy`. The copy of release df80bf7 (captured by
 * scripts/capture-release-providers.sh into fixtures/release-providers/) loads
 * `pulumi-directmail/dist/provider/resources/implementation.js` from the installed package; that
 * path must keep working whatever the layout of the sources.
 *
 * A stack is deployed by that release's program (fixtures/release-program/index.ts: every campaign
 * directly under the stack), its stored providers are replaced by the release's texts, then
 * `refresh`, `up` with the current program (campaigns now under a CampaignFolder) and `destroy`
 * run on it. The service's orders and ledger show that nothing was created, changed, paid or
 * deleted that should not have been. The stored inputs and outputs are those the current code
 * writes; only the providers and the resources' places come from the release.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { paidCheckouts } from "../support/ledger";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { campaignYaml } from "./support/campaign";
import { destroyOnce, refreshOnce, upOnce } from "./support/one-command";
import { createTestStack, type TestStack } from "./support/pulumi";

const repoRoot = path.resolve(__dirname, "../..");
const RELEASE = JSON.parse(
  fs.readFileSync(path.join(__dirname, "fixtures/release-providers/df80bf7.json"), "utf8"),
) as { commit: string; providers: Record<string, string> };
const IMPLEMENTATION = "pulumi-directmail/dist/provider/resources/implementation.js";
const SETTLED = ["Paid", "Ready For Production"];

let sb: TestSandbox;
const stacks: TestStack[] = [];
const clients: DirectMailClient[] = [];

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
});
afterAll(async () => {
  for (const t of stacks) await t.dispose();
  for (const c of clients) await c.close();
  await sb?.close();
});

type Resource = { urn: string; type: string; inputs?: Record<string, any>; outputs?: Record<string, any> };

/** The stack's deployment as its state file holds it (what `pulumi stack export` prints), read without a CLI start. */
const deployment = (t: TestStack): { resources: Resource[] } =>
  t.readStateFile().checkpoint.checkpoint.latest;

/** Puts the release's provider into every directmail resource of the stack's state; returns how many. */
async function useReleaseProviders(t: TestStack): Promise<number> {
  const exported = { version: 3, deployment: deployment(t) };
  let swapped = 0;
  for (const r of exported.deployment.resources) {
    if (r.inputs?.__provider === undefined) continue;
    const text = RELEASE.providers[r.type];
    if (text === undefined) throw new Error(`the release fixture has no provider for ${r.type}`);
    r.inputs.__provider = text;
    if (r.outputs?.__provider !== undefined) r.outputs.__provider = text;
    swapped++;
  }
  await t.stack.importStack(exported);
  return swapped;
}

/** The stored provider text of every directmail resource, by resource name. */
function storedProviders(t: TestStack): Record<string, string> {
  return Object.fromEntries(
    deployment(t)
      .resources.filter((r) => r.inputs?.__provider !== undefined)
      .map((r) => [r.urn.split("::").pop(), r.inputs?.__provider]),
  );
}

/** The steps a preview plans other than `same`, as `op type name`. */
async function plannedChanges(t: TestStack): Promise<string[]> {
  const steps: string[] = [];
  await t.stack.preview({
    onEvent: (event: EngineEvent) => {
      const step = event.resourcePreEvent?.metadata;
      if (step && step.op !== "same") steps.push(`${step.op} ${step.type} ${step.urn.split("::").pop()}`);
    },
  });
  return steps;
}

function changes(summary: Record<string, number> | undefined): Record<string, number> {
  return Object.fromEntries(Object.entries(summary ?? {}).filter(([op]) => op !== "same"));
}

describe("a stack of release df80bf7", { timeout: 400_000 }, () => {
  it("the release's stored providers load this package's implementation", () => {
    expect(Object.keys(RELEASE.providers).sort()).toEqual([
      "pulumi-nodejs:dynamic/directmail:AddressBookEntry",
      "pulumi-nodejs:dynamic/directmail:Checkout",
      "pulumi-nodejs:dynamic/directmail:Order",
      "pulumi-nodejs:dynamic/directmail:OrderRecipients",
      "pulumi-nodejs:dynamic/directmail:ProviderInfo",
    ]);
    for (const text of Object.values(RELEASE.providers)) expect(text).toContain(IMPLEMENTATION);
    // What those providers require, resolved as a project that installs the package resolves it.
    expect(() => require.resolve(IMPLEMENTATION, { paths: [repoRoot] })).not.toThrow();
  });

  it("campaigns deployed by the release's program: refresh and up change nothing at the service, destroy retires the paid campaign and deletes the draft", async () => {
    const { apiKey } = await sb.control.createAccount({ balance: 100 });
    const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
    const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
    clients.push(client);
    const t = await createTestStack("root", {
      from: ["Pulumi.yaml", "program"],
      config: {
        "directmail:baseUrl": { value: sb.url },
        "directmail:apiKey": { value: apiKey, secret: true },
        campaignsDir: { value: "campaigns" },
      },
    });
    stacks.push(t);
    const program = path.join(t.workDir, "program", "index.ts");
    fs.copyFileSync(path.join(__dirname, "fixtures/release-program/index.ts"), program);
    fs.mkdirSync(path.join(t.workDir, "campaigns"));
    const addressBook = [
      "  addressBook:",
      '    - { firstName: Ada, lastName: Lovelace, address1: 1 Main St, city: Springfield, state: IL, zip: "62701" }',
      "",
    ];
    fs.writeFileSync(
      path.join(t.workDir, "campaigns", "paid.yaml"),
      campaignYaml("paid", templateId, { pay: true }) + addressBook.join("\n"),
    );
    fs.writeFileSync(path.join(t.workDir, "campaigns", "draft.yaml"), campaignYaml("draft", templateId));

    const deployed = await upOnce(t);
    const paid = deployed.outputs.paid?.value;
    const draft = deployed.outputs.draft?.value;
    expect(SETTLED).toContain(paid.checkoutStatus);
    expect(draft).toMatchObject({ orderStatus: "Draft", accepted: 2 });
    expect(await useReleaseProviders(t)).toBe(6); // two orders and recipient lists, a checkout, an entry
    const ledger = await sb.control.ledger(apiKey);
    expect(paidCheckouts(ledger, paid.orderId)).toBe(1);
    const orders = async () => [await client.getOrder(paid.orderId), await client.getOrder(draft.orderId)];
    const before = await orders();

    const refresh = await refreshOnce(t);
    expect(changes(refresh.summary.resourceChanges)).toEqual({});
    expect(new Set(Object.values(storedProviders(t)))).toEqual(
      new Set(Object.values(RELEASE.providers).filter((text) => !text.includes('kind: "ProviderInfo"'))),
    );

    // The current program: the same campaigns, now under a CampaignFolder, keep their resources.
    fs.copyFileSync(path.join(repoRoot, "program", "index.ts"), program);
    expect(await plannedChanges(t)).toEqual(["create directmail:index:CampaignFolder campaigns"]);
    const up = await upOnce(t);
    expect(changes(up.summary.resourceChanges)).toEqual({ create: 1 });
    // This package adds each campaign's delivery counts and QR scans, read by the refresh above.
    const engagement = { delivery: expect.objectContaining({ delivered: 0 }), qrScans: 0 };
    expect(up.outputs.paid?.value).toEqual({ ...paid, ...engagement });
    expect(up.outputs.draft?.value).toEqual({ ...draft, ...engagement });
    expect(await sb.control.ledger(apiKey)).toEqual(ledger);
    expect(await orders()).toEqual(before);

    // destroy right after upgrading the package: the stored providers are the release's again.
    expect(await useReleaseProviders(t)).toBe(6);
    const destroy = await destroyOnce(t);
    expect(destroy.summary.result).toBe("succeeded");
    expect(await client.getOrder(draft.orderId)).toBeUndefined();
    expect(await client.getOrder(paid.orderId)).toEqual(before[0]);
    expect(await sb.control.ledger(apiKey)).toEqual(ledger);
    expect(t.readStateFile().checkpoint.checkpoint.latest.resources ?? []).toEqual([]);
  });

  it("a ProviderInfo: refresh, up and destroy run with the release's provider", async () => {
    const t = await createTestStack("provider-info", {
      config: { "directmail:baseUrl": { value: sb.url }, label: { value: "release" } },
    });
    stacks.push(t);
    const deployed = await upOnce(t);
    expect(await useReleaseProviders(t)).toBe(1);
    expect(Object.values(storedProviders(t))).toEqual([
      RELEASE.providers["pulumi-nodejs:dynamic/directmail:ProviderInfo"],
    ]);

    expect(changes((await refreshOnce(t)).summary.resourceChanges)).toEqual({});
    const up = await upOnce(t);
    expect(changes(up.summary.resourceChanges)).toEqual({});
    expect(up.outputs).toEqual(deployed.outputs);

    expect(await useReleaseProviders(t)).toBe(1);
    const destroy = await destroyOnce(t);
    expect(destroy.summary.result).toBe("succeeded");
    expect(t.readStateFile().checkpoint.checkpoint.latest.resources ?? []).toEqual([]);
  });
});
