/**
 * The project's own program (Pulumi.yaml, program/index.ts) under the real pulumi CLI: where its
 * paths point and what it deploys without `campaignsDir`.
 *
 * - Problems and the recipients `file` stored in the state are relative to the project folder,
 *   where the user runs `pulumi` (not to program/, the entry point's folder). A state written by an
 *   earlier version, with program-relative paths, is brought over by one update that changes
 *   nothing at the service, even for a paid campaign.
 * - Without `campaignsDir`, the examples (which pay) are deployed only to the local sandbox; a stack
 *   that targets anything else gets one error and nothing is created.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { seedDemo } from "../../sandbox";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { previewOnce, upOnce } from "./support/one-command";
import { createTestStack, type TestStack, writePlainConfig } from "./support/pulumi";

let sb: TestSandbox;
let demoKey: string;
const stacks: TestStack[] = [];
const clients: DirectMailClient[] = [];

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  // The examples name the demo account's templates (10001, 10002) of a fresh sandbox.
  ({ apiKey: demoKey } = seedDemo(sb.sandbox));
});
afterAll(async () => {
  for (const t of stacks) await t.dispose();
  for (const c of clients) await c.close();
  await sb?.close();
});

function clientFor(apiKey: string): DirectMailClient {
  const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  clients.push(client);
  return client;
}

/** A copy of the project (Pulumi.yaml, program/, examples/) with a stack of the given config. */
async function projectStack(
  config: Record<string, string>,
  options: { apiKey: string; env?: Record<string, string> },
): Promise<TestStack> {
  const t = await createTestStack("root", {
    from: ["Pulumi.yaml", "program", "examples"],
    config: {
      "directmail:apiKey": { value: options.apiKey, secret: true },
      ...Object.fromEntries(Object.entries(config).map(([k, v]) => [k, { value: v }])),
    },
    ...(options.env ? { env: options.env } : {}),
  });
  stacks.push(t);
  return t;
}

/** Runs a pulumi command that must fail; returns the lines of the Diagnostics section it printed. */
async function diagnostics(run: () => Promise<unknown>): Promise<string[]> {
  let output: string;
  try {
    await run();
    throw new Error("the command succeeded; it was expected to fail");
  } catch (error) {
    // The error's message carries what the CLI printed.
    output = (error as Error).message;
  }
  const start = output.indexOf("\nDiagnostics:\n");
  if (start < 0) throw new Error(`no Diagnostics section in:\n${output}`);
  const section = output.slice(start + "\nDiagnostics:\n".length);
  return section.slice(0, section.indexOf("\n\n")).split("\n");
}

/** The OrderRecipients of a campaign as the state file stores it. */
function storedRecipients(t: TestStack, campaign: string) {
  const resources: { urn: string; inputs: Record<string, unknown>; outputs: Record<string, unknown> }[] =
    t.readStateFile().checkpoint.checkpoint.latest.resources;
  const resource = resources.find((r) => r.urn.endsWith(`::${campaign}-recipients`));
  if (!resource) throw new Error(`no ${campaign}-recipients in the state`);
  return resource;
}

/**
 * The steps a command's preview planned other than `same`, as `op type name`: its engine events up
 * to the first summary, which closes the preview (of `pulumi preview`, or of `pulumi up` showing it).
 */
function plannedSteps(events: EngineEvent[]): string[] {
  const end = events.findIndex((event) => event.summaryEvent);
  return events.slice(0, end < 0 ? events.length : end).flatMap((event) => {
    const step = event.resourcePreEvent?.metadata;
    return step && step.op !== "same" ? [`${step.op} ${step.type} ${step.urn.split("::").pop()}`] : [];
  });
}

const CAMPAIGN = (templateId: number, file: string) =>
  [
    "apiVersion: directmail/v1",
    "kind: Campaign",
    "metadata:",
    "  name: spring",
    "spec:",
    "  order:",
    `    templateId: ${templateId}`,
    "  recipients:",
    `    file: ${file}`,
    "  checkout:",
    "    postageType: Standard",
    "    productionSpeed: Normal",
    "    maxTotal: 50",
    "",
  ].join("\n");

describe("paths are relative to the project folder, not to program/", { timeout: 300_000 }, () => {
  it("a campaign folder beside program/: the preview's problems, the stored recipients file, and a state with program-relative paths brought over without a change at the service", async () => {
    const { apiKey } = await sb.control.createAccount({ balance: 100 });
    const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Letter" });
    const client = clientFor(apiKey);
    const t = await projectStack({ "directmail:baseUrl": sb.url, campaignsDir: "my-camps" }, { apiKey });
    const camps = path.join(t.workDir, "my-camps");
    fs.mkdirSync(path.join(camps, "lists"), { recursive: true });
    fs.writeFileSync(
      path.join(camps, "lists", "people.csv"),
      "firstName,lastName,address1,city,state,zipCode\n" +
        "Ada,Lovelace,12 Analytical St,Springfield,IL,62701\n" +
        "Grace,Hopper,1 Compiler Way,Austin,TX,78701\n",
    );
    fs.writeFileSync(path.join(camps, "spring.yaml"), CAMPAIGN(templateId, "lists/people.csv"));
    fs.writeFileSync(
      path.join(camps, "bad.yaml"),
      CAMPAIGN(templateId, "lists/missing.csv").replace("name: spring", "name: bad"),
    );

    // As `directmail validate my-camps` prints them, run from the project folder.
    expect(await diagnostics(() => previewOnce(t))).toEqual([
      "  pulumi:pulumi:Stack (directmail-campaigns-e2e):",
      "    error: the campaign files have problems; nothing was changed:",
      '    my-camps/bad.yaml:9:11: spec.recipients.file: recipients file "lists/missing.csv" not found (looked for my-camps/lists/missing.csv; the path is relative to the campaign file)',
    ]);
    expect((await client.listOrders()).totalCount).toBe(0);

    fs.rmSync(path.join(camps, "bad.yaml"));
    const up = await upOnce(t);
    const spring = up.outputs.spring?.value;
    expect(spring).toMatchObject({ accepted: 2, dropped: 0 });
    expect(["Paid", "Ready For Production"]).toContain(spring.checkoutStatus);
    expect((await client.getOrder(spring.orderId))?.recipientCount).toBe(2);
    const stored = storedRecipients(t, "spring");
    expect([stored.inputs.file, stored.outputs.file]).toEqual([
      "my-camps/lists/people.csv",
      "my-camps/lists/people.csv",
    ]);

    // A state written by the earlier version stored the path relative to program/.
    const { checkpoint } = t.readStateFile();
    const deployment = checkpoint.checkpoint.latest;
    const old = deployment.resources.find((r: { urn: string }) => r.urn.endsWith("::spring-recipients"));
    old.inputs.file = "../my-camps/lists/people.csv";
    old.outputs.file = "../my-camps/lists/people.csv";
    await t.stack.importStack({ version: 3, deployment });
    const ledger = await sb.control.ledger(apiKey);

    // One update of the stored path, on a paid order: nothing else changes. The up shows its
    // plan first, in the same command.
    const migrated = await upOnce(t, { preview: true });
    expect(plannedSteps(migrated.events)).toEqual([
      "update pulumi-nodejs:dynamic/directmail:OrderRecipients spring-recipients",
    ]);
    expect(migrated.summary.resourceChanges).toMatchObject({ update: 1 });
    expect(Object.keys(migrated.summary.resourceChanges ?? {}).sort()).toEqual(["same", "update"]);
    expect(await sb.control.ledger(apiKey)).toEqual(ledger);
    expect((await client.getOrder(spring.orderId))?.recipientCount).toBe(2);
    const after = storedRecipients(t, "spring");
    expect([after.inputs.file, after.outputs.file]).toEqual([
      "my-camps/lists/people.csv",
      "my-camps/lists/people.csv",
    ]);
    expect(plannedSteps((await previewOnce(t)).events)).toEqual([]);
  });
});

describe("without campaignsDir", { timeout: 300_000 }, () => {
  // One stack for both tests (a preview and failed updates leave its state empty): each test
  // points it at its target through its config file or its environment.
  let t: TestStack;
  beforeAll(async () => {
    t = await projectStack({}, { apiKey: demoKey });
  });

  it("the local sandbox gets the examples", async () => {
    writePlainConfig(t, { "directmail:baseUrl": sb.url });
    const campaigns = plannedSteps((await previewOnce(t)).events).filter((s) =>
      s.startsWith("create directmail:index:Campaign "),
    );
    expect(campaigns.sort()).toEqual([
      "create directmail:index:Campaign spring-sale",
      "create directmail:index:Campaign welcome-letters",
    ]);
  });

  it("any other target is refused with one error naming the setting, and nothing is created at the service", async () => {
    const client = clientFor(demoKey);
    // A production-like address: the program refuses before any request, so nothing is sent there.
    const elsewhere = "https://directmail.example";
    const ledger = await sb.control.ledger(demoKey);
    const refusal = (from: string) => [
      "  pulumi:pulumi:Stack (directmail-campaigns-e2e):",
      "    error: campaignsDir is not set: name the folder of your campaign files, relative to the project " +
        "folder, with `pulumi config set campaignsDir <folder>`. The example campaigns are the default only " +
        `for the local sandbox (some of them pay), and this stack sends to ${elsewhere} (${from}). Nothing was changed.`,
    ];

    writePlainConfig(t, { "directmail:baseUrl": elsewhere });
    expect(await diagnostics(() => upOnce(t))).toEqual(refusal("directmail:baseUrl"));
    writePlainConfig(t, { "directmail:baseUrl": undefined });
    const byEnv = { ...t, env: { ...t.env, DIRECTMAIL_BASE_URL: elsewhere } };
    expect(await diagnostics(() => upOnce(byEnv))).toEqual(refusal("DIRECTMAIL_BASE_URL"));
    expect((await client.listOrders()).totalCount).toBe(0);
    expect(await sb.control.ledger(demoKey)).toEqual(ledger);
  });
});
