/**
 * A Python program (`runtime: python`, on the project's Python language host) declares one
 * resource of every kind and a CampaignFolder with the generated pulumi_directmail SDK. The real
 * CLI previews, deploys, changes, refreshes and destroys; the sandbox's orders, recipients and
 * ledger are the truth. An exception in the program is one failure with its traceback. A project
 * made by `directmail init --python` deploys, and status, report and review read its stack (its
 * first `pulumi up` making the virtual environment: installed-python-project.test.ts).
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { PLUGIN_KINDS } from "../../provider/plugin/kinds";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { campaignYaml, PROXIMITY_SEARCH, recipientsCsv } from "./support/campaign";
import { directmailIn } from "./support/commands";
import { stateOutputs } from "./support/one-command";
import { pluginOnPath } from "./support/plugin";
import { createTestStack, type TestStack, writePlainConfig } from "./support/pulumi";
import { linkEnvironment, type PythonEnvironment, pythonEnvironment } from "./support/python";

let sb: TestSandbox;
let t: TestStack;
let client: DirectMailClient;
let apiKey: string;
let templateId: number;
let automationId: number;
let plugin: ReturnType<typeof pluginOnPath>;
let python: PythonEnvironment;

/** The real pulumi CLI in a stack's project, as its user runs it; stdout and stderr together. */
function pulumiIn(stack: TestStack, ...args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      "pulumi",
      args,
      { cwd: stack.workDir, env: stack.env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

async function ok(stack: TestStack, ...args: string[]) {
  const result = await pulumiIn(stack, ...args);
  expect(result.code, result.output).toBe(0);
  return result;
}

/** Checkouts the sandbox charged: the distinct checkouts with a successful charge in the ledger. */
async function charges(key: string): Promise<number> {
  const { entries } = await sb.control.ledger(key);
  const paid = entries.filter((entry) => entry.kind === "charge" && entry.outcome === "succeeded");
  return new Set(paid.map((entry) => entry.checkoutId)).size;
}

async function recipientsOf(orderId: number, of = client): Promise<string[]> {
  const found: string[] = [];
  for await (const r of of.iterateRecipients(orderId))
    found.push(`${r.personal.firstName} ${r.address.address1}`);
  return found.sort();
}

const resourcesOf = (stack: TestStack) =>
  ((stack.readStateFile().checkpoint.checkpoint.latest.resources ?? []) as any[]).filter(
    (r) => !String(r.type).startsWith("pulumi:"),
  );

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  ({ apiKey } = await sb.control.createAccount({ tier: "pro", balance: 100 }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" }));
  ({ id: automationId } = await sb.control.createIntegrationOrder({
    apiKey,
    name: "Welcome",
    templateId,
  }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  plugin = pluginOnPath();
  python = await pythonEnvironment();
  const json = (value: unknown) => ({ value: JSON.stringify(value) });
  t = await createTestStack("python-every-kind", {
    env: { ...plugin.env, ...python.pipEnv },
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
      templateId: { value: String(templateId) },
      conversions: json({ file: "sales.csv", keyField: "uniqueId" }),
      automation: json({
        integrationOrderId: automationId,
        keyField: "customerId",
        recipients: [
          {
            customerId: "P-1",
            firstName: "Pat",
            lastName: "One",
            address1: "102 Oak Ave",
            city: "Springfield",
            state: "IL",
            zipCode: "62704",
          },
        ],
      }),
      search: json({ ...PROXIMITY_SEARCH, integrationOrderId: automationId }),
    },
  });
  linkEnvironment(t.workDir, python);
  fs.writeFileSync(path.join(t.workDir, "recipients.csv"), recipientsCsv([1, 2]));
  fs.writeFileSync(
    path.join(t.workDir, "sales.csv"),
    "uniqueId,firstName,lastName,address1,city,state,zipCode,revenue\nC-1,Ada,Lovelace,12 Main St,Springfield,IL,62701,120.00\n",
  );
  const campaigns = path.join(t.workDir, "campaigns");
  fs.mkdirSync(campaigns);
  fs.writeFileSync(path.join(campaigns, "thanks.csv"), recipientsCsv([3, 4]));
  fs.writeFileSync(
    path.join(campaigns, "thanks.yaml"),
    campaignYaml("thanks", templateId, { file: "thanks.csv" }),
  );
  fs.writeFileSync(path.join(campaigns, "inline.yaml"), campaignYaml("inline", templateId));
}, 600_000);

afterAll(async () => {
  await client?.close();
  await t?.dispose();
  plugin?.dispose();
  await sb?.close();
});

describe("a Python program with every resource kind and a campaign folder", { timeout: 300_000 }, () => {
  let orderId: number;

  it("previews every kind without touching the service, then deploys each one to it", async () => {
    const preview = await ok(t, "preview");
    for (const kind of [...PLUGIN_KINDS, "CampaignFolder", "Campaign"]) {
      expect(preview.output).toMatch(new RegExp(`\\+ +directmail:index:${kind} `));
    }
    expect((await client.listOrders()).orders).toEqual([]);

    await ok(t, "up", "--yes", "--skip-preview");
    const types = new Set(resourcesOf(t).map((r) => r.type));
    expect([...types].sort()).toEqual(
      [...PLUGIN_KINDS, "CampaignFolder", "Campaign"].map((kind) => `directmail:index:${kind}`).sort(),
    );
    // From the state file the update wrote, as `pulumi stack output` reads them (none is secret).
    const outputs = stateOutputs(t);
    orderId = Number(outputs.orderId?.value);
    expect(await recipientsOf(orderId)).toEqual(["Ada1 101 MAIN ST", "Ada2 102 MAIN ST"]);
    expect(outputs.orderStatus?.value).toBe((await client.getOrder(orderId))?.orderStatus);
    expect(await charges(apiKey)).toBe(1);
    // The folder's two campaigns: a draft order each, with their lists, and their outputs by name.
    const folder = outputs.campaigns?.value;
    expect(Object.keys(folder).sort()).toEqual(["inline", "thanks"]);
    expect(await recipientsOf(folder.thanks.order_id)).toEqual(["Ada3 103 MAIN ST", "Ada4 104 MAIN ST"]);
    expect(await recipientsOf(folder.inline.order_id)).toEqual(["Ada 1 MAIN ST", "Alan 2 MAIN ST"]);
    expect((await client.listOrders()).orders).toHaveLength(3);
    const { entries } = await sb.control.addressBook(apiKey);
    expect(entries.map((entry) => entry.firstName)).toEqual(["Ada"]);
    const queued = (await sb.control.integrationRecipients(apiKey, automationId)).recipients;
    expect(queued.map((r) => r.firstName)).toContain("Pat");
    expect(t.readStateFile().text).not.toContain(apiKey);
  });

  it("applies a change: the renamed entry is replaced, only the changed list is sent, nothing charged again", async () => {
    writePlainConfig(t, { entryName: "Grace" });
    const csv = path.join(t.workDir, "campaigns/thanks.csv");
    fs.writeFileSync(csv, fs.readFileSync(csv, "utf8").replace("104 Main St", "9 Elm St"));
    const up = await ok(t, "up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/\+- +directmail:index:AddressBookEntry +entry +replaced/);
    expect(up.output).toMatch(/~ +directmail:index:OrderRecipients +thanks-recipients +updated/);
    expect(up.output).not.toMatch(/directmail:index:OrderRecipients +recipients +updated/);
    const folder = stateOutputs(t).campaigns?.value;
    expect(await recipientsOf(folder.thanks.order_id)).toEqual(["Ada3 103 MAIN ST", "Ada4 9 ELM ST"]);
    // The new entry is made; the service keeps the old one (it has no delete).
    const { entries } = await sb.control.addressBook(apiKey);
    expect(entries.map((entry) => entry.firstName).sort()).toEqual(["Ada", "Grace"]);
    expect(await charges(apiKey)).toBe(1);
  });

  it("refreshes with no change", async () => {
    await ok(t, "refresh", "--yes", "--expect-no-changes");
  });

  it("fails once on an exception in the program, with its traceback, and changes nothing", async () => {
    const main = path.join(t.workDir, "__main__.py");
    const program = fs.readFileSync(main, "utf8");
    fs.writeFileSync(
      main,
      `${program}\n\ndef check_budget():\n    raise ValueError("the budget is not a number")\n\n\ncheck_budget()\n`,
    );
    try {
      const before = await sb.control.ledger(apiKey);
      const started = Date.now();
      const up = await pulumiIn(t, "up", "--yes", "--skip-preview");
      expect(up.code).not.toBe(0);
      expect(Date.now() - started).toBeLessThan(120_000);
      const traceback = [
        "    Traceback (most recent call last):",
        `      File "${main}", line ${program.split("\n").length + 6}, in <module>`,
        "        check_budget()",
        `      File "${main}", line ${program.split("\n").length + 3}, in check_budget`,
        '        raise ValueError("the budget is not a number")',
        "    ValueError: the budget is not a number",
      ].join("\n");
      expect(up.output).toContain(`error: Program failed with an unhandled exception:\n${traceback}\n`);
      // One failure: the traceback once, and no second message from the host about the exit code.
      expect(up.output.split("ValueError: the budget is not a number")).toHaveLength(2);
      expect(up.output).not.toMatch(/exit code|exited/);
      expect(await sb.control.ledger(apiKey)).toEqual(before);
    } finally {
      fs.writeFileSync(main, program);
    }
  });

  it("destroys: the draft orders are deleted, the paid order stays, nothing charged again", async () => {
    await ok(t, "destroy", "--yes", "--skip-preview");
    expect((await client.listOrders()).orders.map((order) => order.orderId)).toEqual([orderId]);
    // The service cannot delete address-book entries: both stay (docs/resources.md).
    expect((await sb.control.addressBook(apiKey)).entries.map((entry) => entry.firstName).sort()).toEqual([
      "Ada",
      "Grace",
    ]);
    expect(resourcesOf(t)).toEqual([]);
    expect(await charges(apiKey)).toBe(1);
  });
});

describe("a Python project made by `directmail init --python`", { timeout: 600_000 }, () => {
  let p: TestStack;
  let key: string;
  let projectClient: DirectMailClient;

  beforeAll(async () => {
    ({ apiKey: key } = await sb.control.createAccount({ balance: 100 }));
    const { id: template } = await sb.control.createTemplate({ apiKey: key, name: "Welcome" });
    projectClient = new DirectMailClient({ baseUrl: sb.url, apiKey: key });
    const made = fs.mkdtempSync(path.join(__dirname, "../../.pulumi-test/python-init-"));
    const init = await directmailIn({ cwd: made, env: process.env }, "init", "--python", "campaigns-python");
    expect(init.code, init.stderr).toBe(0);
    const source = path.join(made, "campaigns-python");
    const campaignFile = path.join(source, "campaigns/welcome-postcard.yaml");
    fs.writeFileSync(
      campaignFile,
      fs.readFileSync(campaignFile, "utf8").replace(/templateId: \d+/, `templateId: ${template}`),
    );
    p = await createTestStack("campaigns-python", {
      fromDir: path.relative(path.join(__dirname, "../.."), source),
      env: python.pipEnv,
      config: {
        "directmail:baseUrl": { value: sb.url },
        "directmail:apiKey": { value: key, secret: true },
      },
    });
    fs.rmSync(made, { recursive: true, force: true });
    // As `npm install` does: the link of the plugin (init copied the package's wheel into wheels/).
    fs.mkdirSync(path.join(p.workDir, "node_modules/.bin"), { recursive: true });
    fs.symlinkSync(
      path.join(__dirname, "../../bin/pulumi-resource-directmail.js"),
      path.join(p.workDir, "node_modules/.bin/pulumi-resource-directmail"),
    );
  }, 120_000);

  afterAll(async () => {
    await projectClient?.close();
    await p?.dispose();
  });

  it("writes __main__.py with one CampaignFolder, requirements.txt naming the wheel and pulumi, and a venv runtime", () => {
    expect(fs.readFileSync(path.join(p.workDir, "Pulumi.yaml"), "utf8")).toMatch(
      /runtime:\n {2}name: python\n {2}options:\n(?: {4}#.*\n)* {4}virtualenv: venv\n/,
    );
    expect(fs.readFileSync(path.join(p.workDir, "__main__.py"), "utf8")).toContain(
      'campaigns = directmail.CampaignFolder("campaigns", dir="campaigns")',
    );
    expect(fs.readFileSync(path.join(p.workDir, "requirements.txt"), "utf8")).toMatch(
      /^--find-links wheels\npulumi_directmail==\d+\.\d+\.\d+\npulumi>=\d+\.\d+\.\d+,<4\.0\.0\n$/m,
    );
    expect(fs.readdirSync(path.join(p.workDir, "wheels")).sort()).toEqual([
      "README.md",
      path.basename(python.wheel),
    ]);
    expect(fs.existsSync(path.join(p.workDir, "index.ts"))).toBe(false);
    expect(fs.existsSync(path.join(p.workDir, "venv"))).toBe(false);
  });

  // The first `up` making venv/ from requirements.txt and wheels/ is proven on the installed
  // package's own scaffold (installed-python-project.test.ts); here venv/ is the environment made
  // once from the same wheel and requirements (support/python.ts).
  it("deploys the draft with its recipients, and status and report read it", async () => {
    fs.symlinkSync(python.venv, path.join(p.workDir, "venv"));
    await ok(p, "up", "--yes", "--skip-preview");
    const { orders } = await projectClient.listOrders();
    expect(orders).toHaveLength(1);
    const orderId = orders[0]?.orderId as number;
    expect(await recipientsOf(orderId, projectClient)).toEqual([
      "Ada 100 MAIN ST",
      "Alan 114 MAPLE DR",
      "Grace 107 OAK AVE",
    ]);
    // A Python program's stack outputs have the SDK's snake_case names.
    expect(stateOutputs(p).campaigns?.value["welcome-postcard"]).toMatchObject({
      order_id: orderId,
      order_status: "Draft",
      accepted: 3,
      dropped: 0,
    });

    const status = await directmailIn({ cwd: p.workDir, env: p.env }, "status");
    expect(status.stdout).toBe(
      [
        "ORDER  CAMPAIGN          STATUS  PAID  SCANS  CHARGED   TRANSACTIONS  DELIVERY",
        `${orderId}  welcome-postcard  Draft   -     0      0.00 USD  0             3 pieces, not mailed`,
        "",
      ].join("\n"),
    );
    const report = await directmailIn({ cwd: p.workDir, env: p.env }, "report");
    expect(report.stderr).toBe("");
    expect(report.stdout).toMatch(
      /^wrote directmail-report-e2e\.html \(\d+ kB\): stack e2e of project campaigns-python, 1 order\n/,
    );
  });

  it("reviews a change to the campaign's list against the deployed stack", async () => {
    const csv = path.join(p.workDir, "campaigns/welcome-postcard.csv");
    fs.writeFileSync(csv, fs.readFileSync(csv, "utf8").replace("107 Oak Avenue", "9 Elm Street"));
    const review = await directmailIn({ cwd: p.workDir, env: p.env }, "review", "--out", "review-1");
    expect(review.stdout.split("\n")[0]).toBe(
      "1 campaign of stack e2e: the change spends nothing and has no step that cannot be undone (exit code 0)",
    );
    expect(review.code).toBe(0);
    const markdown = fs.readFileSync(path.join(p.workDir, "review-1/review.md"), "utf8");
    expect(markdown).toContain("welcome-postcard");
  });

  it("destroys: the draft order is deleted at the service, nothing was charged", async () => {
    await ok(p, "destroy", "--yes", "--skip-preview");
    expect((await projectClient.listOrders()).orders).toEqual([]);
    expect(await charges(key)).toBe(0);
  });
});
