/**
 * A Python campaign repository as a user makes it, outside this repository, from the packed
 * package: `npm install` of the tarball, `directmail init --python`, which copies the
 * `pulumi_directmail` wheel the package ships into `wheels/`. Nothing is installed by hand: the
 * first `pulumi up` makes the project's `venv` through the Python language host, pip installing
 * `requirements.txt` from `wheels/` and from a package index (here a folder standing in for PyPI,
 * which does not hold pulumi_directmail: the SDK can only come from `wheels/`). Against the
 * sandbox of the installed package, with the real CLI: `pulumi up` creates the CampaignFolder's
 * order and its recipients and charges nothing, `directmail status` reads the stack, and
 * `pulumi destroy` deletes the order at the service.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import {
  type InstalledSandbox,
  installedDirectmail,
  npmInstall,
  pulumiEnv,
  serviceConfigArgs,
  startInstalledSandbox,
  stateOutputs,
} from "../support/installed-project";
import { execFileAsync, packPackage, repoRoot } from "../support/package";
import { controlClient } from "../support/sandbox";
import { withDiagnosticsSorted } from "./support/output";
import { pythonEnvironment } from "./support/python";

const PASSPHRASE = "installed-python-project";
const VERSION: string = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")).version;
const WHEEL = `pulumi_directmail-${VERSION}-py3-none-any.whl`;

let tmp: string;
/** The campaign repository. */
let dir: string;
let sandbox: InstalledSandbox;
let client: DirectMailClient;
/** The user's terminal in the repository: the stack on a file backend, pip's index the stand-in for PyPI. */
let env: NodeJS.ProcessEnv;

/** Runs `command ARGS` in the repository as its user; exit code, stdout and stderr. */
function inRepo(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return execFileAsync(command, args, { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

/** `pulumi ARGS`, which must succeed; its stdout and stderr together. */
async function pulumi(...args: string[]): Promise<string> {
  const { code, stdout, stderr } = await inRepo("pulumi", [...args, "--non-interactive"]);
  expect(code, stdout + stderr).toBe(0);
  return stdout + stderr;
}

/**
 * The Diagnostics section of a pulumi command's output, as the user reads it: each resource that
 * spoke, then its messages; trimmed lines, without the blank lines between resources. Resources
 * in the order of their headings (Pulumi's display prints them in no fixed order).
 */
function diagnostics(output: string): string[] {
  const sorted = withDiagnosticsSorted(output);
  const start = sorted.lastIndexOf("Diagnostics:\n");
  if (start < 0) return [];
  const section = sorted.slice(start + "Diagnostics:\n".length);
  const end = section.search(/^(Outputs|Resources):$/m);
  return section
    .slice(0, end < 0 ? undefined : end)
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

/** The order's recipients at the sandbox: "first last | address1", sorted. */
async function recipients(orderId: number): Promise<string[]> {
  const rows: string[] = [];
  for await (const r of client.iterateRecipients(orderId))
    rows.push(`${r.personal.firstName} ${r.personal.lastName} | ${r.address.address1}`);
  return rows.sort();
}

beforeAll(async () => {
  // What pip needs besides the SDK (pulumi and its dependencies, pip, setuptools), downloaded from
  // PyPI once for the Python tests and cached.
  const python = await pythonEnvironment();
  // In the temporary folder, not scratchDir (whose /dev/shm may forbid executing files): Pulumi
  // executes the plugin from node_modules/.bin.
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-python-project-"));
  dir = path.join(tmp, "campaigns-py");
  fs.mkdirSync(dir);
  const { tarball } = await packPackage(tmp);
  const index = path.join(tmp, "package-index");
  fs.mkdirSync(index);
  for (const name of fs.readdirSync(python.wheelhouse)) {
    if (!name.startsWith("pulumi_directmail-")) {
      fs.symlinkSync(path.join(python.wheelhouse, name), path.join(index, name));
    }
  }
  env = { ...pulumiEnv(dir, PASSPHRASE), ...python.pipEnv, PIP_FIND_LINKS: index };
  await npmInstall(dir, tarball);
}, 600_000);

afterAll(async () => {
  await client?.close();
  sandbox?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
}, 120_000);

describe("a Python campaign repository made by `directmail init --python` from the installed package", () => {
  it("gets the package's wheel in wheels/, and says so", async () => {
    const init = await installedDirectmail(dir, ["init", "--python"]);
    expect(init.stdout).toBe(
      [
        "Created a campaign repository in .:",
        "  .gitignore",
        "  Pulumi.yaml",
        "  README.md",
        "  __main__.py",
        "  campaigns/welcome-postcard.csv",
        "  campaigns/welcome-postcard.yaml",
        "  package.json (added scripts.validate, dependencies.@pulumi/pulumi)",
        "  requirements.txt",
        "  wheels/README.md",
        `  wheels/${WHEEL} (the Python SDK, from pulumi-directmail ${VERSION})`,
        "",
        "Next (README.md explains each step):",
        "  npm install",
        "  npx directmail sandbox --seed demo     # in a second terminal: the local service",
        "  pulumi login --local                   # unless you use another Pulumi backend",
        "  pulumi stack init dev",
        "  export PULUMI_CONFIG_PASSPHRASE=<that passphrase>   # what stack init asked for; directmail needs it too",
        "  pulumi config set --secret directmail:apiKey sbx_demo_key",
        "  pulumi up                              # the first run makes venv/ from requirements.txt and wheels/",
        "",
      ].join("\n"),
    );
    expect(fs.readFileSync(path.join(dir, "wheels", WHEEL))).toEqual(
      fs.readFileSync(path.join(dir, "node_modules/pulumi-directmail/dist/python", WHEEL)),
    );
  });

  it("deploys its campaign folder with nothing installed by hand, status reads it, and destroy deletes the order", {
    timeout: 600_000,
  }, async () => {
    sandbox = await startInstalledSandbox(dir);
    // What the scaffold's campaign names: the demo account's postcard.
    expect(sandbox.templates.postcard).toBe(10001);
    client = new DirectMailClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey });
    const control = controlClient(sandbox.url);
    const before = await control.ledger(sandbox.apiKey);

    await pulumi("stack", "init", "dev");
    await pulumi(...serviceConfigArgs(sandbox));

    const up = await pulumi("up", "--yes", "--skip-preview");
    expect(up).toContain("Creating virtual environment...");
    expect(up).toContain("Finished installing dependencies");
    expect(fs.existsSync(path.join(dir, "venv/bin/python"))).toBe(true);
    const outputs = stateOutputs(path.join(dir, ".state")).campaigns;
    const orderId: number = outputs["welcome-postcard"].order_id;
    expect(outputs["welcome-postcard"]).toMatchObject({ order_status: "Draft", accepted: 3, dropped: 0 });
    expect(diagnostics(up)).toEqual([
      "directmail:index:Order (welcome-postcard):",
      `[directmail] Order ${orderId}: created from template 10001`,
      "directmail:index:OrderRecipients (welcome-postcard-recipients):",
      `[directmail] Recipients of order ${orderId}: appended 3 of 3 (this batch: 3 accepted, 0 dropped)`,
      `[directmail] Recipients of order ${orderId}: 3 accepted, 0 dropped, 0 duplicate rows ignored`,
    ]);
    expect(up).toContain("    + 5 created\n");
    expect(await client.getOrder(orderId)).toMatchObject({
      orderId,
      templateId: 10001,
      orderStatus: "Draft",
    });
    expect(await recipients(orderId)).toEqual([
      "Ada Lovelace | 100 MAIN ST",
      "Alan Turing | 114 MAPLE DR",
      "Grace Hopper | 107 OAK AVE",
    ]);
    // A draft: the ledger holds nothing new.
    expect(await control.ledger(sandbox.apiKey)).toEqual(before);

    const status = await inRepo(process.execPath, [path.join(dir, "node_modules/.bin/directmail"), "status"]);
    expect(status).toEqual({
      code: 0,
      stdout: [
        "ORDER  CAMPAIGN          STATUS  PAID  SCANS  CHARGED   TRANSACTIONS  DELIVERY",
        `${orderId}  welcome-postcard  Draft   -     0      0.00 USD  0             3 pieces, not mailed`,
        "",
      ].join("\n"),
      stderr:
        '(address from directmail:baseUrl of stack "dev", API key from directmail:apiKey of stack "dev")\n',
    });

    const destroy = await pulumi("destroy", "--yes", "--skip-preview");
    expect(diagnostics(destroy)).toEqual([
      "directmail:index:Order (welcome-postcard):",
      `[directmail] Order ${orderId}: deleted`,
      "directmail:index:OrderRecipients (welcome-postcard-recipients):",
      `[directmail] Recipients of order ${orderId}: removed 3 recipients`,
    ]);
    expect(destroy).toContain("    - 5 deleted\n");
    expect(await client.getOrder(orderId)).toBeUndefined();
    expect(await control.ledger(sandbox.apiKey)).toEqual(before);
  });
});
