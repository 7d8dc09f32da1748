/**
 * A Pulumi YAML campaign repository as a user makes it, outside this repository, from the packed
 * package: `npm install` of the tarball, `directmail init --yaml --gitops`, `npm install`. npm links
 * the provider plugin `pulumi-resource-directmail` into `node_modules/.bin`, where the scaffold's
 * `Pulumi.yaml` (`plugins.providers`) points Pulumi; nothing else is installed by hand. Against the
 * sandbox of the installed package, with the real CLI:
 * - `pulumi preview` and `pulumi up` of its CampaignFolder print what the user reads, and the
 *   sandbox holds the order and its recipients, charging nothing;
 * - `directmail status`, `report` and `review` read the YAML stack: the review prices a checkout
 *   with the service's own figure;
 * - the GitOps template's pull-request workflow (test/support/workflow-runner.ts) gives a pull
 *   request that edits `Pulumi.yaml`, the program, the offline review (code changed, no secret,
 *   nothing spent); it reviews a pull request adding that checkout, priced, and after merge and
 *   approval deploys it: the ledger holds one charge of exactly the reviewed price.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { type FakeGitHub, fakeGitHub } from "../support/fake-gh";
import {
  type InstalledSandbox,
  installedDirectmail,
  npmInstall,
  serviceConfigArgs,
  startInstalledSandbox,
  stateOutputs,
} from "../support/installed-project";
import { execFileAsync, packPackage } from "../support/package";
import { controlClient } from "../support/sandbox";
import { type RunResult, runWorkflow } from "../support/workflow-runner";
import { withDiagnosticsSorted } from "./support/output";

const REPOSITORY = "acme/campaigns";
const PASSPHRASE = "installed-yaml-project";
const TOKEN = "ghs_jobtoken0000installedyaml";

let tmp: string;
/** The campaign repository, standing in for GitHub's acme/campaigns too. */
let dir: string;
let sandbox: InstalledSandbox;
let client: DirectMailClient;
let gh: FakeGitHub;
let pulumiBin: string;
/** The environment of a user's terminal in the repository: the stack prod on a file backend. */
let env: NodeJS.ProcessEnv;
/** The environment of the workflow's runner: no pulumi on PATH until pulumi/actions puts it there. */
let runnerEnv: NodeJS.ProcessEnv;
let runs = 0;

const CHECKOUT = "  checkout:\n    postageType: Standard\n    productionSpeed: Normal\n    maxTotal: 50\n";

const git = (...args: string[]) =>
  execFileAsync("git", args, { cwd: dir }).then(({ stdout }) => stdout.trim());

/** Runs `command ARGS` in the repository as its user; exit code, stdout and stderr. */
function inRepo(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return execFileAsync(command, args, { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}
const pulumi = (...args: string[]) => inRepo("pulumi", [...args, "--non-interactive"]);
const directmail = (...args: string[]) =>
  inRepo(process.execPath, [path.join(dir, "node_modules/.bin/directmail"), ...args]);

/**
 * A pulumi command's output as the user reads it, without what varies from run to run (step
 * durations, the progress line, the step rows' copies of progress lines). Nothing else is taken out: no warning may show (the language host
 * sits beside the CLI, the plugin is found through the project's plugins section).
 */
function asRead(output: string): string {
  return withDiagnosticsSorted(output)
    .split("\n")
    .filter((line) => !line.startsWith("@ "))
    .map((line) =>
      line
        .replace(/\((\d+(\.\d+)?)s\)/g, "(Ns)")
        .replace(/^Duration: \d+s$/, "Duration: Ns")
        // A step's row repeats the latest progress line when one arrives, as often as the timing
        // has it: the row without it (the lines themselves are under Diagnostics, in order).
        .replace(/^( [+~-] {2}\S+ \S+ \w+ \(Ns\) )\[directmail\] .*$/, "$1"),
    )
    .filter(
      (line, i, lines) => !(i > 0 && line.startsWith(" ") && line.includes("(Ns)") && line === lines[i - 1]),
    )
    .join("\n");
}

/** The demo account's ledger once every payment has settled (the sandbox's clock a minute on). */
async function ledger() {
  const control = controlClient(sandbox.url);
  await control.advanceClock(60);
  return control.ledger(sandbox.apiKey);
}

/** The order's recipients at the sandbox: "first last | address1", sorted. */
async function recipients(orderId: number): Promise<string[]> {
  const rows: string[] = [];
  for await (const r of client.iterateRecipients(orderId))
    rows.push(`${r.personal.firstName} ${r.personal.lastName} | ${r.address.address1}`);
  return rows.sort();
}

/** The order of the deployed campaign, from the stack's outputs in its state file. */
function deployedOrderId(): number {
  return stateOutputs(path.join(tmp, "state")).campaigns["welcome-postcard"].orderId;
}

beforeAll(async () => {
  // In the temporary folder, not scratchDir (whose /dev/shm may forbid executing files): Pulumi
  // executes the plugin from node_modules/.bin.
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-yaml-project-"));
  dir = path.join(tmp, "acme-campaigns");
  fs.mkdirSync(path.join(dir, "vendor"), { recursive: true });
  const { tarball } = await packPackage(tmp);
  // The package as a file of the repository, so that the workflow's `npm ci` finds it.
  fs.copyFileSync(tarball, path.join(dir, "vendor", path.basename(tarball)));
  await npmInstall(dir, `./vendor/${path.basename(tarball)}`);
  await installedDirectmail(dir, ["init", "--yaml", "--gitops"]);
  await npmInstall(dir);

  sandbox = await startInstalledSandbox(dir);
  client = new DirectMailClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey });
  pulumiBin = path.dirname((await execFileAsync("bash", ["-c", "command -v pulumi"])).stdout.trim());
  runnerEnv = {
    HOME: process.env.HOME,
    PATH: (process.env.PATH ?? "")
      .split(":")
      .filter((entry) => entry !== pulumiBin)
      .join(":"),
    PULUMI_HOME: path.join(tmp, "pulumi-home"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    npm_config_prefer_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
  };
  gh = fakeGitHub(tmp, REPOSITORY, "github-actions[bot]");
  fs.mkdirSync(path.join(tmp, "state"));
  env = {
    ...runnerEnv,
    PATH: `${pulumiBin}:${runnerEnv.PATH}`,
    PULUMI_BACKEND_URL: `file://${path.join(tmp, "state")}`,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
  };
  for (const args of [["stack", "init", "prod"], serviceConfigArgs(sandbox)]) {
    const result = await pulumi(...args);
    expect(result.code, result.stderr).toBe(0);
  }

  await git("init", "--quiet", "--initial-branch=main");
  await git("config", "user.email", "marketing@example.com");
  await git("config", "user.name", "Marketing");
  fs.appendFileSync(path.join(dir, ".git/info/exclude"), ".sandbox/\n");
  await git("add", "-A");
  await git("commit", "--quiet", "-m", "Campaign repository from directmail init --yaml --gitops");
}, 600_000);

// Each workflow run's jobs install node_modules of their own: removed once a test has read them.
afterEach(() => {
  if (tmp) fs.rmSync(path.join(tmp, "runs"), { recursive: true, force: true });
}, 300_000);

afterAll(async () => {
  await client?.close();
  sandbox?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
}, 300_000);

describe("a Pulumi YAML campaign repository from the installed package", () => {
  it("finds the plugin npm linked, previews and deploys its CampaignFolder: a draft with its recipients, nothing charged", {
    timeout: 300_000,
  }, async () => {
    expect(fs.realpathSync(path.join(dir, "node_modules/.bin/pulumi-resource-directmail"))).toBe(
      fs.realpathSync(path.join(dir, "node_modules/pulumi-directmail/bin/pulumi-resource-directmail.js")),
    );
    expect(fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8")).toContain(
      "runtime: yaml\n# The provider plugin that `npm install` puts in node_modules/.bin (pulumi-resource-directmail).\n" +
        "plugins:\n  providers:\n    - name: directmail\n      path: ./node_modules/.bin\n",
    );
    const before = await ledger();

    const preview = await pulumi("preview");
    expect(preview.code, preview.stdout + preview.stderr).toBe(0);
    expect(asRead(preview.stdout)).toBe(
      [
        "Previewing update (prod):",
        "",
        " +  pulumi:pulumi:Stack acme-campaigns-prod create ",
        " +  directmail:index:CampaignFolder campaigns create ",
        " +  directmail:index:Campaign welcome-postcard create ",
        " +  directmail:index:Order welcome-postcard create ",
        " +  directmail:index:OrderRecipients welcome-postcard-recipients create ",
        " +  pulumi:pulumi:Stack acme-campaigns-prod create ",
        "Outputs:",
        "    campaigns: [unknown]",
        "",
        "Resources:",
        "    + 5 to create",
        "",
        "",
      ].join("\n"),
    );
    expect((await client.listOrders()).orders).toEqual([]);

    const up = await pulumi("up", "--yes", "--skip-preview");
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const orderId = deployedOrderId();
    const created = `[directmail] Order ${orderId}: created from template ${sandbox.templates.postcard}`;
    const appended = `[directmail] Recipients of order ${orderId}: appended 3 of 3 (this batch: 3 accepted, 0 dropped)`;
    const accepted = `[directmail] Recipients of order ${orderId}: 3 accepted, 0 dropped, 0 duplicate rows ignored`;
    expect(asRead(up.stdout)).toBe(
      [
        "Updating (prod):",
        "",
        " +  pulumi:pulumi:Stack acme-campaigns-prod creating (Ns) ",
        " +  directmail:index:CampaignFolder campaigns creating (Ns) ",
        " +  directmail:index:Campaign welcome-postcard creating (Ns) ",
        " +  directmail:index:Order welcome-postcard creating (Ns) ",
        " +  directmail:index:Order welcome-postcard created (Ns) ",
        " +  directmail:index:OrderRecipients welcome-postcard-recipients creating (Ns) ",
        " +  directmail:index:OrderRecipients welcome-postcard-recipients created (Ns) ",
        " +  pulumi:pulumi:Stack acme-campaigns-prod created (Ns) ",
        // The plugin's progress lines, under their resources, as the dynamic path's show.
        "Diagnostics:",
        "  directmail:index:Order (welcome-postcard):",
        `    ${created}`,
        "",
        "  directmail:index:OrderRecipients (welcome-postcard-recipients):",
        `    ${appended}`,
        `    ${accepted}`,
        "",
        "Outputs:",
        "    campaigns: {",
        "        welcome-postcard: {",
        "            accepted     : 3",
        "            delivery     : {",
        "                delivered    : 0",
        "                inTransit    : 0",
        "                localFacility: 0",
        "                mailed       : 0",
        "                totalCards   : 0",
        "                undeliverable: 0",
        "                waitingUSPS  : 0",
        "            }",
        "            dropReasons  : {}",
        "            dropped      : 0",
        "            droppedSample: []",
        `            orderId      : ${orderId}`,
        '            orderStatus  : "Draft"',
        "            qrScans      : 0",
        "        }",
        "    }",
        "",
        "Resources:",
        "    + 5 created",
        "",
        "Duration: Ns",
        "",
        "",
      ].join("\n"),
    );
    expect(await client.getOrder(orderId)).toMatchObject({
      templateId: sandbox.templates.postcard,
      orderStatus: "Draft",
      recipientCount: 3,
    });
    expect(await recipients(orderId)).toEqual([
      "Ada Lovelace | 100 MAIN ST",
      "Alan Turing | 114 MAPLE DR",
      "Grace Hopper | 107 OAK AVE",
    ]);
    expect((await client.listOrders()).orders.map((o) => o.orderId)).toEqual([orderId]);
    expect(await ledger()).toEqual(before);
  });

  it("directmail status and report read the YAML stack", { timeout: 120_000 }, async () => {
    const orderId = deployedOrderId();
    const source =
      '(address from directmail:baseUrl of stack "prod", API key from directmail:apiKey of stack "prod")\n';
    expect(await directmail("status")).toEqual({
      code: 0,
      stdout: [
        "ORDER  CAMPAIGN          STATUS  PAID  SCANS  CHARGED   TRANSACTIONS  DELIVERY",
        `${orderId}  welcome-postcard  Draft   -     0      0.00 USD  0             3 pieces, not mailed`,
        "",
      ].join("\n"),
      stderr: source,
    });

    const out = path.join(tmp, "report.html");
    const report = await directmail("report", "--out", out);
    expect(report.code, report.stderr).toBe(0);
    const kB = Math.round(fs.statSync(out).size / 1024);
    expect(report.stdout).toBe(
      [
        `wrote ${out} (${kB} kB): stack prod of project acme-campaigns, 1 order`,
        "0 pieces printed, 0 delivered, 0 undeliverable, 0 QR scans, 0.00 USD spent",
        `1 draft order, not printed and not charged: welcome-postcard (order ${orderId})`,
        "",
      ].join("\n"),
    );
    expect(fs.readFileSync(out, "utf8")).toContain("welcome-postcard");
  });

  it("directmail review prices a checkout added to the YAML campaign with the service's own figure, changing nothing", {
    timeout: 300_000,
  }, async () => {
    const orderId = deployedOrderId();
    const campaignFile = path.join(dir, "campaigns/welcome-postcard.yaml");
    const original = fs.readFileSync(campaignFile, "utf8");
    const before = { ledger: await ledger(), order: await client.getOrder(orderId) };
    const { totalCharges } = await client.previewCheckout(orderId, {
      postageType: "Standard",
      productionSpeed: "Normal",
    });
    const price = `${totalCharges.toFixed(2)} USD`;
    fs.appendFileSync(campaignFile, CHECKOUT);
    try {
      const out = path.join(tmp, "review");
      const review = await directmail("review", "--base", "main", "--out", out);
      const markdown = fs.readFileSync(path.join(out, "review.md"), "utf8");
      expect(review).toEqual({
        code: 3,
        stdout: [
          "1 campaign of stack prod: the change spends money or has a step that cannot be undone: it needs approval (exit code 3)",
          `wrote ${out}/review.md (${markdown.length} characters), ${out}/review.json, 1 proof in ${out}/proofs`,
          `service ${sandbox.url} ${source()}`,
          "",
        ].join("\n"),
        stderr: "",
      });
      expect(markdown.split("\n").filter((line) => line.startsWith("| **"))).toEqual([
        `| **welcome-postcard** | pay | +0 −0 ~0 | 3 / 0 after the change; now 3 / 0 | ${price} | ⚠ checkout |`,
      ]);
      for (const line of [
        "- Plan: Order `welcome-postcard` same · OrderRecipients `welcome-postcard-recipients` same · Checkout `welcome-postcard-checkout` create",
        `- ⚠ checkout: pays ${price} for 3 pieces (order ${orderId})`,
      ])
        expect(markdown).toContain(line);
      expect(markdown).toContain(
        `- Price: **${price}** for 3 pieces of order ${orderId} (the service's checkout preview), Standard postage, Normal production; the account's balance covers all of it; delivery expected`,
      );
      expect(markdown).not.toContain(sandbox.apiKey);
      expect({ ledger: await ledger(), order: await client.getOrder(orderId) }).toEqual(before);
    } finally {
      fs.writeFileSync(campaignFile, original);
    }
  });

  it("the GitOps workflow gives a pull request that edits Pulumi.yaml, the program, the offline review: flagged, nothing spent", {
    timeout: 600_000,
  }, async () => {
    const orderId = deployedOrderId();
    const before = await ledger();
    // The program pays for the order during the preview's run if anything runs it with the key.
    const { reviewed, comment } = await pullRequest("pay-in-program", 6, () => {
      const program = path.join(dir, "Pulumi.yaml");
      const paying =
        "  pay:\n    type: directmail:index:Checkout\n    properties:\n" +
        `      orderId: ${orderId}\n      postageType: Standard\n      productionSpeed: Normal\n`;
      fs.writeFileSync(
        program,
        fs.readFileSync(program, "utf8").replace("resources:\n", `resources:\n${paying}`),
      );
    });
    expect(jobsRan(reviewed), failures(reviewed)).toEqual({
      classify: "success",
      review: "skipped",
      "review-offline": "success",
      changes: "skipped",
      plan: "skipped",
      deploy: "skipped",
    });
    expect(comment).toContain("- **⚠ code changed** (1 path): `Pulumi.yaml`.");
    expect(await ledger()).toEqual(before);
    expect((await client.getOrder(orderId))?.orderStatus).toBe("Draft");
  });

  it("the GitOps workflow reviews a pull request adding a checkout, priced, and after merge and approval pays exactly that once", {
    timeout: 600_000,
  }, async () => {
    const orderId = deployedOrderId();
    const before = await ledger();
    const { totalCharges } = await client.previewCheckout(orderId, {
      postageType: "Standard",
      productionSpeed: "Normal",
    });
    const main = await git("rev-parse", "main");
    const { reviewed, comment } = await pullRequest("pay", 7, () =>
      fs.appendFileSync(path.join(dir, "campaigns/welcome-postcard.yaml"), CHECKOUT),
    );
    expect(jobsRan(reviewed), failures(reviewed)).toEqual({
      classify: "success",
      review: "success in campaigns-review",
      "review-offline": "skipped",
      changes: "skipped",
      plan: "skipped",
      deploy: "skipped",
    });
    expect(comment).toContain(
      `| **welcome-postcard** | pay | +0 −0 ~0 | 3 / 0 after the change; now 3 / 0 | ${totalCharges.toFixed(2)} USD | ⚠ checkout |`,
    );
    expect(comment).not.toContain(sandbox.apiKey);
    expect(await ledger()).toEqual(before);

    await git("merge", "--quiet", "--no-ff", "-m", "Merge pay", "pay");
    const push = { before: main, after: await git("rev-parse", "main") };
    const waiting = await run("push", push, push.after);
    expect(jobsRan(waiting), failures(waiting)).toMatchObject({
      changes: "success",
      plan: "success in campaigns-review",
      deploy: "waiting in campaigns-approval",
    });
    expect(await ledger()).toEqual(before);
    const approved = await run("push", push, push.after, ["campaigns-approval"], waiting);
    expect(jobsRan(approved), failures(approved)).toMatchObject({ deploy: "success in campaigns-approval" });

    const after = await ledger();
    const charges = after.entries.filter((e) => e.kind === "charge" && e.outcome === "succeeded");
    expect(charges.map((e) => [e.orderId, e.amount])).toEqual([[orderId, totalCharges]]);
    expect(Number((before.balance - after.balance).toFixed(2))).toBe(totalCharges);
    expect((await client.getOrder(orderId))?.orderStatus).not.toBe("Draft");
  });
});

/**
 * A pull request from the branch `name` of main with `edit` applied, reviewed by the workflow: the
 * run, and the one comment the workflow keeps on it.
 */
async function pullRequest(name: string, number: number, edit: () => void) {
  await git("checkout", "--quiet", "-b", name, "main");
  edit();
  await git("commit", "--quiet", "-am", name);
  await git("checkout", "--quiet", "main");
  const main = await git("rev-parse", "main");
  const reviewed = await run(
    "pull_request_target",
    {
      pull_request: {
        number,
        head: { sha: await git("rev-parse", name), ref: name, repo: { full_name: REPOSITORY } },
        base: { sha: main, ref: "main", repo: { full_name: REPOSITORY } },
      },
    },
    main,
  );
  const comments = gh.read().comments.filter((c) => c.issue === number);
  expect(comments).toHaveLength(1);
  return { reviewed, comment: comments[0]?.body ?? "" };
}

/** What the CLI says of where it read the service's address and key. */
const source = () =>
  '(address from directmail:baseUrl of stack "prod", API key from directmail:apiKey of stack "prod")';

/** The workflow of `event` as GitHub runs it; secrets only in the environments. */
function run(
  event: "pull_request_target" | "push",
  payload: Record<string, any>,
  sha: string,
  approve: string[] = [],
  resume?: RunResult,
): Promise<RunResult> {
  runs += 1;
  const secrets = { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE };
  return execFileAsync("git", ["show", `${sha}:.github/workflows/campaigns.yml`], { cwd: dir }).then(
    ({ stdout: workflow }) =>
      runWorkflow({
        workflow,
        event,
        payload,
        repository: REPOSITORY,
        sha,
        ref: "refs/heads/main",
        repositories: { [REPOSITORY]: dir },
        environments: {
          "campaigns-review": { secrets },
          campaigns: { secrets },
          "campaigns-approval": { secrets, requiresApproval: true },
        },
        vars: { PULUMI_STACK: "prod", PULUMI_BACKEND_URL: `file://${path.join(tmp, "state")}` },
        approve,
        resume,
        runnerEnv: { ...runnerEnv, ...gh.env, PATH: `${gh.bin}:${runnerEnv.PATH}` },
        pulumiBin,
        workDir: path.join(tmp, "runs", String(runs)),
        token: TOKEN,
      }),
  );
}

function jobsRan(result: RunResult): Record<string, string> {
  return Object.fromEntries(
    Object.entries(result.jobs).map(([name, job]) => [
      name,
      job.environment ? `${job.result} in ${job.environment}` : job.result,
    ]),
  );
}

/** What the failed steps printed: the message of an assertion on the jobs. */
function failures(result: RunResult): string {
  return Object.entries(result.jobs)
    .flatMap(([job, { steps }]) =>
      steps.filter((s) => s.outcome === "failure").map((s) => `${job} / ${s.name}:\n${s.stdout}${s.stderr}`),
    )
    .join("\n");
}
