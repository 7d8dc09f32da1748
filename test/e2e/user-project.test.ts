/**
 * The user's path, with the real CLI, from the packed package to a deployed campaign folder, in a
 * temporary folder outside the repository:
 * 1. `npm install` of the tarball (npm's cache serves the rest), `directmail init`, `npm install`;
 *    the scaffold type-checks with the TypeScript it installs (6) and with TypeScript 5;
 * 2. `pulumi up` of its campaign folder against the sandbox the installed package starts;
 * 3. an edit of the campaign's recipient file, then `up` again;
 * 4. `destroy`.
 * After each step the sandbox's order, recipient list and balance are read back. The project then
 * compiles a program with typed inline recipients, and fails to compile one with a misspelled field.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import {
  type InstalledSandbox,
  installedDirectmail,
  npmInstall,
  pulumiEnv,
  pulumiIn,
  scratchDir,
  serviceConfigArgs,
  startInstalledSandbox,
  stateOutputs,
} from "../support/installed-project";
import { execFileAsync, packPackage, repoRoot } from "../support/package";
import { controlClient } from "../support/sandbox";

const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"));
const PASSPHRASE = "directmail-user-project";

let tmp: string;
let tarball: string;
let dir: string;
let sandbox: InstalledSandbox | undefined;

/** The demo account's balance as the sandbox's ledger holds it (what a charge would change). */
async function balance(): Promise<number> {
  if (!sandbox) throw new Error("the sandbox is not started");
  return (await controlClient(sandbox.url).ledger(sandbox.apiKey)).balance;
}
let client: DirectMailClient | undefined;

beforeAll(async () => {
  tmp = scratchDir("directmail-user-");
  ({ tarball } = await packPackage(tmp));
  dir = path.join(tmp, "my-campaigns");
  fs.mkdirSync(dir);
}, 120_000);

afterAll(async () => {
  await client?.close();
  sandbox?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
}, 120_000);

/** `tsc -p <project or tsconfig>` with the compiler at `tscDir`; resolves to its exit code and output. */
async function typeCheck(tscDir: string, project: string): Promise<{ code: number; output: string }> {
  const tsc = path.join(tscDir, "node_modules/typescript/bin/tsc");
  return execFileAsync(process.execPath, [tsc, "-p", project, "--pretty", "false"], { cwd: dir }).then(
    ({ stdout }) => ({ code: 0, output: stdout }),
    (error) => ({ code: error.code, output: `${error.stdout}${error.stderr}` }),
  );
}

const csv = (rows: string[]) =>
  `customerId,firstName,lastName,address1,city,state,zipCode,custom1\n${rows.join("\n")}\n`;

/** A section of the package's README, from its `## title` line to the next section. */
function readmeSection(title: string): string {
  const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8");
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README.md has no section "${title}"`);
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The messages of the provider that `pulumi` printed under "Diagnostics:", one per line. */
function diagnostics(output: string): string[] {
  const start = output.lastIndexOf("Diagnostics:\n");
  if (start < 0) return [];
  const block = output.slice(start).split("\n\n")[0] as string;
  return block
    .split("\n")
    .slice(2)
    .map((line) => line.trim());
}

/** The order's recipients at the sandbox: "first last | address1 | custom1", sorted. */
async function listing(orderId: number): Promise<string[]> {
  const rows: string[] = [];
  for await (const r of (client as DirectMailClient).iterateRecipients(orderId)) {
    rows.push(
      `${r.personal.firstName} ${r.personal.lastName} | ${r.address.address1} | ${r.metadata.custom1}`,
    );
  }
  return rows.sort();
}

describe("a campaign repository made by `directmail init` in a project of one's own", () => {
  it("is scaffolded after `npm install pulumi-directmail`, installs, validates and type-checks with TypeScript 5 and 6", {
    timeout: 300_000,
  }, async () => {
    await npmInstall(dir, tarball);
    const init = await installedDirectmail(dir, ["init"]);
    expect(init.stdout).toBe(
      [
        "Created a campaign repository in .:",
        "  .gitignore",
        "  Pulumi.yaml",
        "  README.md",
        "  campaigns/welcome-postcard.csv",
        "  campaigns/welcome-postcard.yaml",
        "  index.ts",
        "  package.json (added scripts.validate, scripts.typecheck, dependencies.@pulumi/pulumi, devDependencies.typescript)",
        "  tsconfig.json",
        "",
        "Next (README.md explains each step):",
        "  npm install",
        "  npx directmail sandbox --seed demo     # in a second terminal: the local service",
        "  pulumi login --local                   # unless you use another Pulumi backend",
        "  pulumi stack init dev",
        "  export PULUMI_CONFIG_PASSPHRASE=<that passphrase>   # what stack init asked for; directmail needs it too",
        "  pulumi config set --secret directmail:apiKey sbx_demo_key",
        "  pulumi up",
        "",
      ].join("\n"),
    );
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    expect(pkg.dependencies).toEqual({
      "pulumi-directmail": expect.stringMatching(/^file:.*pulumi-directmail-0\.1\.0\.tgz$/),
      "@pulumi/pulumi": manifest.peerDependencies["@pulumi/pulumi"],
    });

    await npmInstall(dir);
    const installed = (name: string) =>
      JSON.parse(fs.readFileSync(path.join(dir, "node_modules", name, "package.json"), "utf8")).version;
    // `npm install typescript` alone would bring 7, which Pulumi cannot load; the scaffold's range stops at 6.
    expect(installed("typescript")).toMatch(/^6\./);
    expect(await typeCheck(dir, ".")).toEqual({ code: 0, output: "" });
    expect(await typeCheck(repoRoot, ".")).toEqual({ code: 0, output: "" });
    expect(
      JSON.parse(fs.readFileSync(path.join(repoRoot, "node_modules/typescript/package.json"), "utf8"))
        .version,
    ).toMatch(/^5\./);

    const validate = await installedDirectmail(dir, ["validate", "campaigns"]);
    expect(validate.stdout).toBe("checked 1 campaign file: 1 valid (1 campaign)\n");
  });

  it("deploys its campaign folder to the sandbox, then an edit of the campaign, then destroys it", {
    timeout: 400_000,
  }, async () => {
    sandbox = await startInstalledSandbox(dir);
    // What the scaffold's campaign and README name: the demo account's key and its postcard.
    expect(sandbox.apiKey).toBe("sbx_demo_key");
    expect(sandbox.templates.postcard).toBe(10001);
    client = new DirectMailClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey });
    const balanceBefore = await balance();

    const pulumi = pulumiIn(dir, PASSPHRASE);
    await pulumi("stack", "init", "dev");
    await pulumi(...serviceConfigArgs(sandbox));

    // Without a preview first: what is checked is what each update does (the preview runs the same
    // program; the README's own commands are walked as written below).
    const up = await pulumi("up", "--yes", "--skip-preview");
    const outputs = stateOutputs(path.join(dir, ".state"));
    expect(outputs).toEqual({
      "welcome-postcard": expect.objectContaining({
        orderStatus: "Draft",
        accepted: 3,
        dropped: 0,
        dropReasons: {},
      }),
    });
    const orderId: number = outputs["welcome-postcard"].orderId;
    expect(diagnostics(up)).toEqual([
      `[directmail] Order ${orderId}: created from template 10001`,
      `[directmail] Recipients of order ${orderId}: appended 3 of 3 (this batch: 3 accepted, 0 dropped)`,
      `[directmail] Recipients of order ${orderId}: 3 accepted, 0 dropped, 0 duplicate rows ignored`,
    ]);
    expect(up).toContain("    + 5 created\n");
    expect(await client.getOrder(orderId)).toMatchObject({
      orderId,
      templateId: 10001,
      orderStatus: "Draft",
    });
    expect(await listing(orderId)).toEqual([
      "Ada Lovelace | 100 MAIN ST | Welcome aboard",
      "Alan Turing | 114 MAPLE DR | Welcome aboard",
      "Grace Hopper | 107 OAK AVE | Welcome aboard",
    ]);
    // A draft: nothing charged.
    expect(await balance()).toBe(balanceBefore);

    // The edit: one address changes, one customer leaves, one arrives.
    fs.writeFileSync(
      path.join(dir, "campaigns/welcome-postcard.csv"),
      csv([
        "C-2001,Ada,Lovelace,100 Main Street,Springfield,IL,62701,Welcome aboard",
        "C-2002,Grace,Hopper,9 Elm Street,Madison,WI,53703,Welcome aboard",
        "C-2004,Katherine,Johnson,184 Elm Street,Springfield,IL,62701,Welcome aboard",
      ]),
    );
    const edit = await pulumi("up", "--yes", "--skip-preview");
    expect(diagnostics(edit)).toEqual([
      `[directmail] Recipients of order ${orderId}: planned: 1 added, 1 removed, 1 changed`,
      `[directmail] Recipients of order ${orderId}: added (customerId): C-2004`,
      `[directmail] Recipients of order ${orderId}: changed (customerId): C-2002`,
      `[directmail] Recipients of order ${orderId}: removed: 1, not named: the stack records a hash of each customerId, not its value`,
      `[directmail] Recipients of order ${orderId}: deleted 2 recipients (removed or changed)`,
      `[directmail] Recipients of order ${orderId}: appended 2 of 2 (this batch: 2 accepted, 0 dropped)`,
      `[directmail] Recipients of order ${orderId}: 1 added, 1 removed, 1 changed: 2 deleted, 2 appended; 3 accepted, 0 dropped`,
    ]);
    expect(edit).toContain("    ~ 1 updated\n    4 unchanged\n");
    expect(await client.getOrder(orderId)).toMatchObject({ orderStatus: "Draft" });
    expect(await listing(orderId)).toEqual([
      "Ada Lovelace | 100 MAIN ST | Welcome aboard",
      "Grace Hopper | 9 ELM ST | Welcome aboard",
      "Katherine Johnson | 184 ELM ST | Welcome aboard",
    ]);
    expect(await balance()).toBe(balanceBefore);

    const destroy = await pulumi("destroy", "--yes", "--skip-preview");
    expect(diagnostics(destroy)).toEqual([
      `[directmail] Recipients of order ${orderId}: removed 3 recipients`,
      `[directmail] Order ${orderId}: deleted`,
    ]);
    expect(destroy).toContain("    - 5 deleted\n");
    expect(await client.getOrder(orderId)).toBeUndefined();
    expect(await balance()).toBe(balanceBefore);
  });

  it('walks the README\'s "After the mailing" section as written: pays, delivers and scans in the sandbox, then reads it back', {
    timeout: 400_000,
  }, async () => {
    if (!sandbox) throw new Error("the sandbox is not started");
    const section = readmeSection("After the mailing, and the command line");
    const block = (language: string) => {
      const found = new RegExp(`\`\`\`${language}\n([\\s\\S]*?)\`\`\``).exec(section)?.[1];
      if (found === undefined) throw new Error(`the section has no ${language} block`);
      return found;
    };
    const checkout = block("yaml");
    const commands = block("sh")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => line.replace(/\s+#.*$/, ""));
    expect(commands).toEqual([
      "pulumi up",
      "npx directmail sandbox deliver",
      "npx directmail sandbox scan welcome-postcard 5",
      "npx directmail status",
      "npx directmail status welcome-postcard --json",
      "npx directmail report",
      "pulumi refresh --run-program",
      "npx directmail validate --online campaigns/",
    ]);
    // The README adds the checkout at the end of the campaign file.
    fs.appendFileSync(path.join(dir, "campaigns/welcome-postcard.yaml"), checkout);
    await execFileAsync("git", ["init", "--quiet"], { cwd: dir });
    const balanceBefore = await balance();

    // As a user's shell runs them: pulumi without prompts, directmail with the stack's passphrase
    // exported and the sandbox's address (the default, 127.0.0.1:4010, for the README's reader).
    const pulumi = pulumiIn(dir, PASSPHRASE);
    const env = { ...pulumiEnv(dir, PASSPHRASE), DIRECTMAIL_BASE_URL: sandbox.url };
    const output = new Map<string, string>();
    for (const command of commands) {
      const [program, ...args] = command.split(" ");
      if (program === "pulumi") {
        output.set(
          command,
          await pulumi(...args, ...(["up", "refresh"].includes(args[0] as string) ? ["--yes"] : [])),
        );
      } else {
        expect(args[0]).toBe("directmail");
        output.set(command, (await installedDirectmail(dir, args.slice(1), env)).stdout);
      }
    }

    const outputs = stateOutputs(path.join(dir, ".state"));
    const orderId: number = outputs["welcome-postcard"].orderId;
    // Paid once: three postcards at $2.50.
    expect(await balance()).toBe(balanceBefore - 7.5);
    expect(output.get("pulumi up")).toContain("    + 6 created\n");
    expect(output.get("npx directmail sandbox deliver")).toMatch(
      new RegExp(
        `^order ${orderId} at ${sandbox.url}: Complete, 3 of 3 pieces delivered\nthe sandbox clock at ${sandbox.url} is now \\S+, 8 days later\n$`,
      ),
    );
    expect(output.get("npx directmail sandbox scan welcome-postcard 5")).toBe(
      `recorded 5 QR scans of order ${orderId} at ${sandbox.url} on 3 pieces; it has 5 in all\n`,
    );
    const [analytics] = (await (client as DirectMailClient).getAnalytics([orderId])).orders;
    expect(analytics).toMatchObject({ orderStatus: "Complete", delivered: 3, totalCards: 3 });
    expect(analytics?.qrCode?.totalScans).toBe(5);
    const paid = analytics?.paidDate?.slice(0, 10);
    expect(output.get("npx directmail status")).toBe(
      [
        "ORDER  CAMPAIGN          STATUS    PAID        SCANS  CHARGED   TRANSACTIONS  DELIVERY",
        `${orderId}  welcome-postcard  Complete  ${paid}  5      7.50 USD  1             3/3 delivered`,
        "",
      ].join("\n"),
    );
    expect(JSON.parse(output.get("npx directmail status welcome-postcard --json") as string)).toMatchObject([
      {
        orderId,
        campaign: "welcome-postcard",
        status: "Complete",
        delivery: { delivered: 3, totalCards: 3 },
        qrScans: { total: 5 },
        transactions: { count: 1, charged: 7.5 },
      },
    ]);
    expect(output.get("npx directmail report")).toMatch(
      /^wrote directmail-report-dev\.html \(\d+ kB\): stack dev of project my-campaigns, 1 order\n3 pieces printed, 3 delivered, 0 undeliverable, 5 QR scans, 7\.50 USD spent\n$/,
    );
    expect(fs.existsSync(path.join(dir, "directmail-report-dev.html"))).toBe(true);
    // init's .gitignore keeps the report out of git.
    const { stdout: untracked } = await execFileAsync(
      "git",
      ["status", "--porcelain", "--untracked-files=all"],
      {
        cwd: dir,
      },
    );
    expect(untracked.split("\n").filter((line) => /directmail-report|review\//.test(line))).toEqual([]);
    expect(outputs["welcome-postcard"]).toMatchObject({ orderStatus: "Complete", qrScans: 5 });
    expect(outputs["welcome-postcard"].delivery).toMatchObject({ delivered: 3, totalCards: 3 });
    expect(output.get("npx directmail validate --online campaigns/")).toBe(
      `checked 1 campaign file: 1 valid (1 campaign), against the account at ${sandbox.url}\n`,
    );
  });

  it("compiles a program with typed inline recipients, and not one with a misspelled field", {
    timeout: 120_000,
  }, async () => {
    const checks = path.join(dir, "checks");
    fs.mkdirSync(checks);
    const program = (file: string, recipient: string) => {
      fs.writeFileSync(
        path.join(checks, file),
        `import { Campaign, type OrderRecipientsArgs } from "pulumi-directmail";

// A list of inline recipients, typed as a program declares it.
const recipients: OrderRecipientsArgs["recipients"] = [
  {${recipient} city: "Springfield", state: "IL", zipCode: "62701", custom1: "Welcome" },
];
new Campaign("typed", { order: { templateId: 10001 }, recipients: { recipients } });

// The same, inline in the Campaign.
new Campaign("inline", {
  order: { templateId: 10001 },
  recipients: {
    recipients: [{ firstName: "Grace", lastName: "Hopper", address1: "107 Oak Avenue", city: "Madison", state: "WI", zipCode: "53703", custom1: "Welcome" }],
  },
});
`,
      );
    };

    program("typed.ts", ` firstName: "Ada", lastName: "Lovelace", address1: "100 Main Street",`);
    program("misspelled.ts", ` firstName: "Ada", lastName: "Lovelace", adress1: "100 Main Street",`);
    // Both in one compiler run: its only error is the misspelled field, none is in typed.ts.
    const both = path.join(checks, "tsconfig.both.json");
    fs.writeFileSync(
      both,
      JSON.stringify({ extends: "../tsconfig.json", files: ["typed.ts", "misspelled.ts"] }),
    );
    const result = await typeCheck(dir, both);
    expect(result.code).toBe(2);
    expect(result.output.trim().split("\n")).toEqual([
      expect.stringMatching(/^checks\/misspelled\.ts\(5,\d+\): error TS\d+: .*'adress1'/),
    ]);
  });
});
