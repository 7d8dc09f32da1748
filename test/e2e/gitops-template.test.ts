/**
 * The GitOps template (examples/gitops, which `directmail init --gitops` adds to the scaffold): the
 * steps of its pipeline are scripts, and here they run as its README says they run on a laptop, in
 * a git repository outside this one that installs the packed package, against the sandbox of the
 * installed package:
 * - scripts/validate.sh checks the campaign files (as annotations in GitHub Actions, through
 *   `directmail validate --format github`);
 * - scripts/deploy.sh runs `pulumi up`;
 * - scripts/review.sh reviews a change against the main branch with `directmail review` (whose exit
 *   code 3 says the change spends money or cannot be undone) and says whether deploying it needs
 *   approval, changing nothing at the sandbox;
 * - scripts/comment.sh keeps one comment per pull request, its own, updated in place (against a
 *   stand-in for the GitHub CLI that keeps the comments in a file).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { fakeGitHub } from "../support/fake-gh";
import {
  type InstalledSandbox,
  installedDirectmail,
  npmInstall,
  pulumiEnv,
  serviceConfigArgs,
  startInstalledSandbox,
} from "../support/installed-project";
import { execFileAsync, packPackage } from "../support/package";
import { controlClient } from "../support/sandbox";

const PASSPHRASE = "directmail-gitops-template";

let tmp: string;
let dir: string;
let env: NodeJS.ProcessEnv;
let sandbox: InstalledSandbox | undefined;

/** The demo account's balance as the sandbox's ledger holds it (what a charge would change). */
async function balance(): Promise<number> {
  if (!sandbox) throw new Error("the sandbox is not started");
  return (await controlClient(sandbox.url).ledger(sandbox.apiKey)).balance;
}
let client: DirectMailClient | undefined;
/** The order deploy.sh's `pulumi up` created (its stack output), which the review then leaves as it was. */
let deployedOrderId: number | undefined;

/** Runs `bash scripts/<script> ARGS` in the repository; resolves to its exit code and output. */
async function script(
  name: string,
  args: string[] = [],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return execFileAsync("bash", [`scripts/${name}`, ...args], {
    cwd: dir,
    env: { ...env, ...extraEnv },
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

/** The order's recipients at the sandbox, as the service lists them. */
async function listing(orderId: number): Promise<unknown[]> {
  const rows: unknown[] = [];
  for await (const r of (client as DirectMailClient).iterateRecipients(orderId)) rows.push(r);
  return rows;
}

function git(...args: string[]) {
  return execFileAsync("git", args, { cwd: dir });
}

beforeAll(async () => {
  // In the temporary folder, not scratchDir (whose /dev/shm may forbid executing files): the
  // scripts execute the installed `directmail` through npx.
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-gitops-"));
  const { tarball } = await packPackage(tmp);
  dir = path.join(tmp, "campaign-repo");
  fs.mkdirSync(dir);
  await npmInstall(dir, tarball);
  await installedDirectmail(dir, ["init", "--gitops"]);
  await npmInstall(dir);

  await git("init", "--quiet", "--initial-branch=main");
  await git("config", "user.email", "marketing@example.com");
  await git("config", "user.name", "Marketing");
  fs.appendFileSync(path.join(dir, ".git/info/exclude"), ".state/\n.pulumi-home/\n.sandbox/\n");
  await git("add", "-A");
  await git("commit", "--quiet", "-m", "Campaign repository from directmail init --gitops");

  sandbox = await startInstalledSandbox(dir);
  client = new DirectMailClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey });
  env = { ...pulumiEnv(dir, PASSPHRASE), PULUMI_STACK: "dev", GITHUB_ACTIONS: "" };
  const pulumi = (...args: string[]) =>
    execFileAsync("pulumi", [...args, "--non-interactive"], { cwd: dir, env });
  await pulumi("stack", "init", "dev");
  await pulumi(...serviceConfigArgs(sandbox));
}, 300_000);

afterAll(async () => {
  await client?.close();
  sandbox?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
}, 120_000);

describe("the GitOps template's steps, run locally", () => {
  it("writes the workflow and its scripts over the scaffold, the scripts executable", () => {
    for (const name of ["validate.sh", "review.sh", "comment.sh", "deploy.sh"]) {
      expect(fs.statSync(path.join(dir, "scripts", name)).mode & 0o111, name).not.toBe(0);
    }
    expect(fs.readFileSync(path.join(dir, ".github/workflows/campaigns.yml"), "utf8")).toContain(
      "bash scripts/review.sh",
    );
    expect(fs.readFileSync(path.join(dir, "README.md"), "utf8")).toMatch(
      /^# Direct-mail campaigns, reviewed in pull requests\n/,
    );
  });

  it("validate.sh checks the campaign files, and reports a problem by file, line and column", {
    timeout: 60_000,
  }, async () => {
    expect(await script("validate.sh")).toMatchObject({
      code: 0,
      stdout: "checked 1 campaign file: 1 valid (1 campaign)\n",
    });
    const broken = path.join(dir, "campaigns/broken.yaml");
    fs.writeFileSync(broken, "apiVersion: directmail/v1\nkind: Nope\n");
    try {
      const result = await script("validate.sh");
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        'campaigns/broken.yaml:2:7: kind: write one of Campaign, Conversions, Automation; found "Nope"\n',
      );
      // In GitHub Actions, an annotation on the file's line.
      const annotated = await script("validate.sh", [], { GITHUB_ACTIONS: "true" });
      expect(annotated.code).toBe(1);
      expect(`${annotated.stdout}${annotated.stderr}`).toContain(
        '::error file=campaigns/broken.yaml,line=2,col=7::kind: write one of Campaign, Conversions, Automation; found "Nope"\n',
      );
    } finally {
      fs.rmSync(broken);
    }
  });

  it("deploy.sh deploys the campaigns with pulumi up", { timeout: 180_000 }, async () => {
    const balanceBefore = await balance();
    const result = await script("deploy.sh");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("[directmail] Recipients of order ");
    const { stdout } = await execFileAsync("pulumi", ["stack", "output", "--json"], { cwd: dir, env });
    ({ orderId: deployedOrderId } = JSON.parse(stdout)["welcome-postcard"]);
    const orderId = deployedOrderId as number;
    expect(result.stdout).toContain(`[directmail] Order ${orderId}: created from template 10001`);
    expect(await (client as DirectMailClient).getOrder(orderId)).toMatchObject({ orderStatus: "Draft" });
    expect(await balance()).toBe(balanceBefore);
  });

  it("review.sh reviews a change against main: a recipient edit spends nothing, a checkout needs approval, and the sandbox is left as it was", {
    timeout: 300_000,
  }, async () => {
    const sb = client as DirectMailClient;
    if (deployedOrderId === undefined) throw new Error("deploy.sh's test did not deploy the campaign");
    const orderId = deployedOrderId;
    const before = {
      order: await sb.getOrder(orderId),
      recipients: await listing(orderId),
      me: await sb.me(),
    };
    const outputFile = path.join(tmp, "github-output");
    const review = async () => {
      fs.writeFileSync(outputFile, "");
      // The program is the one deploy.sh ran above, type-checked by ts-node there: here it is only
      // transpiled.
      const result = await script("review.sh", ["main"], {
        GITHUB_OUTPUT: outputFile,
        PULUMI_NODEJS_TRANSPILE_ONLY: "true",
      });
      return { ...result, output: fs.readFileSync(outputFile, "utf8") };
    };
    const yaml = path.join(dir, "campaigns/welcome-postcard.yaml");
    const original = fs.readFileSync(yaml, "utf8");
    const withCheckout = (maxTotal: number) =>
      fs.writeFileSync(
        yaml,
        `${original}  checkout:\n    postageType: Standard\n    productionSpeed: Normal\n    maxTotal: ${maxTotal}\n`,
      );
    try {
      fs.appendFileSync(
        path.join(dir, "campaigns/welcome-postcard.csv"),
        "C-2004,Katherine,Johnson,184 Elm Street,Springfield,IL,62701,Welcome aboard\n",
      );
      const edit = await review();
      expect(edit.code, edit.stderr).toBe(0);
      expect(edit.stdout).toContain("review: this change spends nothing (review/review.md)\n");
      expect(edit.output).toBe("spends=false\n");
      const report = fs.readFileSync(path.join(dir, "review/review.md"), "utf8");
      expect(report).toContain("welcome-postcard");
      expect(report.length).toBeLessThanOrEqual(65_536);
      expect(report).not.toContain(sandbox?.apiKey as string);
      expect(JSON.parse(fs.readFileSync(path.join(dir, "review/review.json"), "utf8"))).toBeTypeOf("object");

      withCheckout(1000);
      const pay = await review();
      expect(pay.code, pay.stderr).toBe(0);
      expect(pay.stdout).toContain(
        "review: this change spends money or cannot be undone; deploying it needs approval (review/review.md)\n",
      );
      expect(pay.output).toBe("spends=true\n");

      // A price above maxTotal fails the review, and the pipeline with it.
      withCheckout(0.01);
      const over = await review();
      expect(over.code).toBe(1);
      expect(over.output).toBe("");
    } finally {
      await git("checkout", "--", "campaigns");
    }
    expect({
      order: await sb.getOrder(orderId),
      recipients: await listing(orderId),
      me: await sb.me(),
    }).toEqual(before);
  });

  it("comment.sh posts the report as the pull request's one comment, then updates it in place, and never touches another's", {
    timeout: 60_000,
  }, async () => {
    const gh = fakeGitHub(tmp, "acme/campaigns", "marketing-bot");
    // Someone else's comments on the pull request, one of them starting with the marker: both stay.
    const others = [
      { id: 1, issue: 7, body: "Looks good", user: { login: "reviewer" } },
      { id: 2, issue: 7, body: "<!-- directmail-review -->\n✅ approved", user: { login: "mallory" } },
    ];
    gh.write(others);
    const ghEnv = { ...gh.env, PATH: `${gh.bin}:${env.PATH}` };
    fs.mkdirSync(path.join(dir, "review"), { recursive: true });
    const report = path.join(dir, "review/review.md");

    fs.writeFileSync(report, "<!-- directmail-review -->\n## Review\n\nfirst push\n");
    expect(await script("comment.sh", ["7"], ghEnv)).toMatchObject({
      code: 0,
      stdout: "comment: posted the review comment on pull request #7\n",
    });
    fs.writeFileSync(report, "<!-- directmail-review -->\n## Review\n\nsecond push\n");
    expect(
      await script("comment.sh", ["7"], {
        ...ghEnv,
        GITHUB_RUN_ID: "42",
        GITHUB_REPOSITORY: "acme/campaigns",
      }),
    ).toMatchObject({
      code: 0,
      stdout: "comment: updated the review comment 3 of pull request #7\n",
    });
    expect(gh.read().comments).toEqual([
      ...others,
      {
        id: 3,
        issue: 7,
        user: { login: "marketing-bot" },
        body:
          "<!-- directmail-review -->\n## Review\n\nsecond push\n\nProofs and the whole report: the `review` " +
          "artifact of [this run](https://github.com/acme/campaigns/actions/runs/42).\n",
      },
    ]);
    expect(gh.read().calls).toEqual([
      "GET user",
      "GET repos/acme/campaigns/issues/7/comments?per_page=100",
      "POST repos/acme/campaigns/issues/7/comments",
      "GET user",
      "GET repos/acme/campaigns/issues/7/comments?per_page=100",
      "PATCH repos/acme/campaigns/issues/comments/3",
    ]);

    // A failed review is posted as a failure, above what the report says.
    expect((await script("comment.sh", ["7", "review", "failure"], ghEnv)).code).toBe(0);
    expect(gh.read().comments[2]?.body).toBe(
      "<!-- directmail-review -->\n**❌ The review failed** (failure): the report below may be incomplete; " +
        "the log of this run says why.\n\n## Review\n\nsecond push\n",
    );
    // No report at all: the comment says so, and shows nothing older.
    expect((await script("comment.sh", ["7", path.join(tmp, "no-such-folder"), "failure"], ghEnv)).code).toBe(
      0,
    );
    expect(gh.read().comments[2]?.body).toBe(
      "<!-- directmail-review -->\n**❌ The review failed** (failure) before it wrote a report: the log of this " +
        "run says why.\n",
    );

    // A report longer than a comment can hold is shortened to GitHub's limit, and says so.
    fs.writeFileSync(report, `## Review\n\n${"x".repeat(70_000)}\n`);
    expect((await script("comment.sh", ["7"], ghEnv)).code).toBe(0);
    const body = gh.read().comments[2]?.body ?? "";
    expect(body.length).toBeLessThanOrEqual(65_536);
    expect(body).toMatch(/^<!-- directmail-review -->\n## Review\n\nx+\n\n_The report was shortened/);
    expect(gh.read().comments).toHaveLength(3);
  });
});
