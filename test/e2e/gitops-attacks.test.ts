/**
 * The GitOps template's workflow under attack, played by the author of a pull request. The
 * workflow (examples/gitops, as `directmail init --gitops` writes it) runs step by step as GitHub
 * would run it (test/support/workflow-runner.ts): main's workflow for pull requests, the jobs in
 * their order, each environment's secrets only in the jobs that ask for it, a stand-in for `gh`,
 * the Pulumi CLI only where pulumi/actions installs it, against the sandbox of the installed
 * package, in a campaign repository outside this one that installs the packed tarball.
 *
 * Each hostile branch is first run the way a pipeline that trusts it would run it (its own code
 * with the secrets), to show that its payload is real; then through the workflow, where it must
 * spend nothing (the sandbox's ledger is unchanged) and reveal no secret (the passphrase, the API
 * key and the job token are searched for in every file the jobs wrote, their output, the
 * artifacts and the comments).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WORD_JOINER as J } from "../../cli/review/markdown-text";
import { DirectMailClient } from "../../provider/api/client";
import { type FakeGitHub, fakeGitHub } from "../support/fake-gh";
import {
  type InstalledSandbox,
  installedDirectmail,
  npmInstall,
  startInstalledSandbox,
} from "../support/installed-project";
import { HOSTILE_FONT } from "../support/markdown-safety";
import { execFileAsync, packPackage } from "../support/package";
import { controlClient } from "../support/sandbox";
import { type RunResult, runWorkflow, type WorkflowRun } from "../support/workflow-runner";

const REPOSITORY = "acme/campaigns";
const FORK = "mallory/campaigns";
const PASSPHRASE = "gitops-attacks-passphrase-7f3a9c";
const TOKEN = "ghs_jobtoken0000gitopsattacks7f3a9c";
const BOT = "github-actions[bot]";

let tmp: string;
/** The repository standing in for GitHub's acme/campaigns: its main and the pull requests' branches. */
let origin: string;
let fork: string;
/** Where a payload writes what it steals: it must stay empty. */
let exfil: string;
let sandbox: InstalledSandbox;
let apiKey: string;
let gh: FakeGitHub;
let runnerEnv: NodeJS.ProcessEnv;
let pulumiBin: string;
let runs = 0;

const git = (cwd: string, ...args: string[]) =>
  execFileAsync("git", args, { cwd }).then(({ stdout }) => stdout.trim());

/**
 * The account's ledger once every payment in progress has settled (the sandbox's clock a minute
 * on). Asked again once when a kept-alive connection was closed under it: moving the clock twice
 * changes nothing the tests compare.
 */
async function ledger(): Promise<{ entries: number; balance: number }> {
  const control = controlClient(sandbox.url);
  const read = async () => {
    await control.advanceClock(60);
    const { entries, balance } = await control.ledger(apiKey);
    return { entries: entries.length, balance };
  };
  return read().catch((error: Error & { cause?: { code?: string } }) => {
    if (error.cause?.code !== "UND_ERR_SOCKET") throw error;
    return read();
  });
}

/** What `scripts/pull-request.sh prepare` says of a pull request that adds campaigns/.gitattributes. */
const CONTROL_FILE_REFUSAL =
  "pull-request: the campaign folder may not hold git's own files (.git, .gitattributes, .gitmodules), control characters or names that are not plain paths under campaigns/:\n" +
  "  campaigns/.gitattributes\n" +
  "  They change how git stores or checks out the campaign files, so the review could read other files than the deploy. " +
  "Remove them from the pull request (git rm --cached -- PATH); attributes the repository needs belong in its .gitattributes, outside campaigns/.\n";

/** How many orders the account has on the service. */
async function orderCount(): Promise<number> {
  const client = new DirectMailClient({ baseUrl: sandbox.url, apiKey });
  try {
    return (await client.listOrders()).totalCount;
  } finally {
    await client.close();
  }
}

/**
 * The workflow of `event`, run as GitHub would; secrets only in the environments. With `resume`,
 * the approval of that waiting run: its waiting jobs run, the others keep their results.
 */
async function run(
  event: WorkflowRun["event"],
  payload: WorkflowRun["payload"],
  sha: string,
  approve: string[] = [],
  resume?: RunResult,
): Promise<RunResult> {
  runs += 1;
  const workDir = path.join(tmp, "runs", String(runs));
  const secrets = { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE };
  return runWorkflow({
    workflow: await git(origin, "show", `${sha}:.github/workflows/campaigns.yml`),
    event,
    payload,
    repository: REPOSITORY,
    sha,
    ref: "refs/heads/main",
    repositories: { [REPOSITORY]: origin, [FORK]: fork },
    environments: {
      "campaigns-review": { secrets },
      campaigns: { secrets },
      "campaigns-approval": { secrets, requiresApproval: true },
    },
    vars: { PULUMI_STACK: "prod", PULUMI_BACKEND_URL: `file://${path.join(tmp, "state")}` },
    approve,
    resume,
    runnerEnv: {
      ...runnerEnv,
      ...gh.env,
      PATH: `${gh.bin}:${runnerEnv.PATH}`,
      // The program the jobs run is main's, the template's own, which ts-node type-checks in
      // gitops-template.test.ts (its deploy.sh): here it is only transpiled.
      PULUMI_NODEJS_TRANSPILE_ONLY: "true",
    },
    pulumiBin,
    workDir,
    token: TOKEN,
  });
}

/** A pull request from `branch` (of acme/campaigns, or of the fork) into main, reviewed by the workflow. */
async function review(branch: string, number: number, options: { fromFork?: boolean } = {}) {
  const repo = options.fromFork ? fork : origin;
  const head = await git(repo, "rev-parse", branch);
  const main = await git(origin, "rev-parse", "main");
  const result = await run(
    "pull_request_target",
    {
      pull_request: {
        number,
        head: { sha: head, ref: branch, repo: { full_name: options.fromFork ? FORK : REPOSITORY } },
        base: { sha: main, ref: "main", repo: { full_name: REPOSITORY } },
      },
    },
    main,
  );
  const comments = gh.read().comments.filter((c) => c.issue === number);
  return { result, comments, workDir: path.join(tmp, "runs", String(runs)) };
}

/** A branch of `repo` from main with `edit` applied and committed (`ignored`: files added despite .gitignore). */
async function branch(
  name: string,
  edit: (dir: string) => void,
  options: { repo?: string; ignored?: string[] } = {},
): Promise<void> {
  const repo = options.repo ?? origin;
  await git(repo, "checkout", "--quiet", "-b", name, "main");
  edit(repo);
  await git(repo, "add", "-A");
  if (options.ignored) await git(repo, "add", "--force", ...options.ignored);
  await git(repo, "commit", "--quiet", "-m", name);
  await git(repo, "checkout", "--quiet", "main");
}

/** Appends a row to the welcome campaign's recipients file of the checkout in `dir`. */
function addRecipient(dir: string, row: string): void {
  fs.appendFileSync(path.join(dir, "campaigns/welcome-postcard.csv"), row);
}

/** Adds a checkout (maxTotal 100) to the welcome campaign of the checkout in `dir`. */
function addCheckout(dir: string): void {
  fs.appendFileSync(
    path.join(dir, "campaigns/welcome-postcard.yaml"),
    "  checkout:\n    postageType: Standard\n    productionSpeed: Normal\n    maxTotal: 100\n",
  );
}

/** Merges `name` into main as a pull request's merge does, and runs the push workflow. */
async function merge(name: string, approve: string[] = []): Promise<RunResult> {
  const before = await git(origin, "rev-parse", "main");
  await git(origin, "merge", "--quiet", "--no-ff", "-m", `Merge ${name}`, name);
  const after = await git(origin, "rev-parse", "main");
  return run("push", { before, after }, after, approve);
}

/** Every secret, searched in everything a run left: files, step output, artifacts, comments. */
function revealed(result: RunResult, workDir: string): string[] {
  const secrets = [PASSPHRASE, apiKey, TOKEN];
  const found: string[] = [];
  const search = (text: string, where: string) => {
    for (const secret of secrets) if (text.includes(secret)) found.push(`${where}: ${secret.slice(0, 6)}…`);
  };
  for (const entry of fs.readdirSync(workDir, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.isFile() && fs.statSync(file).size < 8 * 1024 * 1024)
      search(fs.readFileSync(file, "latin1"), path.relative(workDir, file));
  }
  for (const [job, { steps }] of Object.entries(result.jobs))
    for (const step of steps) search(step.stdout + step.stderr, `${job}: ${step.name}`);
  search(JSON.stringify(gh.read().comments), "comments");
  if (fs.existsSync(exfil)) for (const name of fs.readdirSync(exfil)) found.push(`exfiltrated: ${name}`);
  return found;
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

function stepOutput(result: RunResult, job: string, step: string): string {
  const found = result.jobs[job]?.steps.find((s) => s.name === step);
  if (!found) throw new Error(`no step "${step}" in job ${job}`);
  return found.stdout + found.stderr;
}

beforeAll(async () => {
  // In the temporary folder, not scratchDir (whose /dev/shm may forbid executing files): the
  // scripts execute the installed `directmail` through npx.
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-gitops-attacks-"));
  exfil = path.join(tmp, "exfiltrated");
  origin = path.join(tmp, "acme-campaigns");
  fs.mkdirSync(origin);
  const { tarball } = await packPackage(tmp);
  // The package as a file of the repository, so that every clone's `npm ci` finds it.
  fs.mkdirSync(path.join(origin, "vendor"));
  const vendored = path.join(origin, "vendor", path.basename(tarball));
  fs.copyFileSync(tarball, vendored);
  await npmInstall(origin, `./vendor/${path.basename(tarball)}`);
  await installedDirectmail(origin, ["init", "--gitops"]);
  await npmInstall(origin);

  sandbox = await startInstalledSandbox(origin);
  // A key of the demo account of its own, so that a search finds this key and nothing else.
  ({ apiKey } = await controlClient(sandbox.url).addKey(sandbox.apiKey));

  const which = await execFileAsync("bash", ["-c", "command -v pulumi"]);
  pulumiBin = path.dirname(which.stdout.trim());
  runnerEnv = {
    HOME: process.env.HOME,
    PATH: (process.env.PATH ?? "")
      .split(":")
      .filter((dir) => dir !== pulumiBin)
      .join(":"),
    PULUMI_HOME: path.join(tmp, "pulumi-home"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    npm_config_prefer_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    EXFIL: exfil,
    // The compile cache of the test run (scripts/test.sh), if any: npm and the CLI start faster.
    ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
  };
  gh = fakeGitHub(tmp, REPOSITORY, BOT);

  // The stack: a self-managed backend shared by the jobs, its API key a secret of its config.
  const pulumiEnv = {
    ...runnerEnv,
    PATH: `${pulumiBin}:${runnerEnv.PATH}`,
    PULUMI_BACKEND_URL: `file://${path.join(tmp, "state")}`,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
  };
  fs.mkdirSync(path.join(tmp, "state"));
  const pulumi = (...args: string[]) =>
    execFileAsync("pulumi", [...args, "--non-interactive"], { cwd: origin, env: pulumiEnv });
  await pulumi("stack", "init", "prod");
  await pulumi(
    "config",
    "set-all",
    "--plaintext",
    `directmail:baseUrl=${sandbox.url}`,
    "--secret",
    `directmail:apiKey=${apiKey}`,
  );

  await git(origin, "init", "--quiet", "--initial-branch=main");
  await git(origin, "config", "user.email", "marketing@example.com");
  await git(origin, "config", "user.name", "Marketing");
  fs.appendFileSync(path.join(origin, ".git/info/exclude"), ".sandbox/\n");
  await git(origin, "add", "-A");
  await git(origin, "commit", "--quiet", "-m", "Campaign repository from directmail init --gitops");
  fork = path.join(tmp, "mallory-campaigns");
  await git(tmp, "clone", "--quiet", origin, fork);
  await git(fork, "config", "user.email", "mallory@example.com");
  await git(fork, "config", "user.name", "Mallory");
}, 600_000);

// Each run's jobs install node_modules of their own: a test's runs are removed once it has read them.
afterEach(() => {
  if (tmp) fs.rmSync(path.join(tmp, "runs"), { recursive: true, force: true });
}, 300_000);

afterAll(async () => {
  sandbox?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
}, 300_000);

describe("the GitOps workflow, attacked from a pull request", () => {
  it("deploys the first push only with approval (there is no earlier code to judge it by), and the draft costs nothing", {
    timeout: 300_000,
  }, async () => {
    const before = await ledger();
    const main = await git(origin, "rev-parse", "main");
    const push = { before: "0000000000000000000000000000000000000000", after: main };
    const waiting = await run("push", push, main);
    expect(jobsRan(waiting), failures(waiting)).toEqual({
      classify: "skipped",
      review: "skipped",
      "review-offline": "skipped",
      changes: "success",
      plan: "skipped",
      deploy: "waiting in campaigns-approval",
    });
    expect(
      stepOutput(waiting, "changes", "Find the code the push changed, with the scripts before it"),
    ).toContain("code-changes: no earlier commit to judge the push by: it counts as changed code");

    const approved = await run("push", push, main, ["campaigns-approval"]);
    expect(jobsRan(approved).deploy, failures(approved)).toBe("success in campaigns-approval");
    expect(stepOutput(approved, "deploy", "Deploy the campaigns")).toMatch(
      /\[directmail\] Order \d+: created from template 10001/,
    );
    expect(await ledger()).toEqual(before);
    expect(revealed(approved, path.join(tmp, "runs", String(runs)))).toEqual([]);
  });

  it("a branch whose code attacks the pipeline (index.ts pays during the preview, a preinstall script, a review.sh that claims nothing is spent) gets the offline review: it spends nothing, reveals nothing, and its merge waits for approval", {
    timeout: 400_000,
  }, async () => {
    // One branch carries the three payloads, so that one run of the workflow meets them all.
    await branch("code-attacks", (dir) => {
      fs.writeFileSync(path.join(dir, "index.ts"), DRY_RUN_CHECKOUT);
      const file = path.join(dir, "package.json");
      const manifest = JSON.parse(fs.readFileSync(file, "utf8"));
      manifest.scripts.preinstall = PREINSTALL;
      fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
      fs.writeFileSync(path.join(dir, "scripts/review.sh"), LYING_REVIEW, { mode: 0o755 });
      addCheckout(dir);
    });
    // The payloads are real: the branch's own install and preview, with the stack's secrets, write
    // the secrets out and charge the account.
    const control = await controlRun("code-attacks", [
      ["npm", "ci"],
      ["pulumi", "preview"],
    ]);
    expect(control.charged, control.output).toBeGreaterThan(0);
    expect(Object.keys(control.stolen).sort()).toEqual(["index-ts", "preinstall"]);
    for (const stolen of Object.values(control.stolen)) expect(stolen).toContain(PASSPHRASE);

    const before = await ledger();
    const { result, comments, workDir } = await review("code-attacks", 11);
    expect(jobsRan(result), failures(result)).toEqual({
      classify: "success",
      review: "skipped",
      "review-offline": "success",
      changes: "skipped",
      plan: "skipped",
      deploy: "skipped",
    });
    expect(stepOutput(result, "classify", "Classify the pull request")).toBe(
      "pull-request: it changes code:\n  index.ts\n  package.json\n  scripts/review.sh\n" +
        "pull-request: the offline review, without a secret; deploying it after merge needs approval if it changes code\n" +
        "code-changes: the change alters 3 paths besides the campaign files\n",
    );
    expect(await ledger()).toEqual(before);
    expect(revealed(result, workDir)).toEqual([]);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.user.login).toBe(BOT);
    const report = comments[0]?.body ?? "";
    expect(report).toContain(
      "- **⚠ code changed** (3 paths): `index.ts`, `package.json`, `scripts/review.sh`. The change alters code, not only campaign files: it runs only after merge, with approval.",
    );
    // The review is main's, not the branch's review.sh: the checkout needs approval.
    expect(report).toContain(
      "**⚠ Needs approval: this change spends money or cannot be undone** (exit code 3).",
    );

    const pushed = await merge("code-attacks");
    expect(jobsRan(pushed), failures(pushed)).toEqual({
      classify: "skipped",
      review: "skipped",
      "review-offline": "skipped",
      changes: "success",
      plan: "skipped",
      deploy: "waiting in campaigns-approval",
    });
    expect(pushed.jobs.changes?.outputs).toEqual({ "code-changed": "true" });
    expect(await ledger()).toEqual(before);
    // Put main back as it was, for the next pull requests.
    await git(origin, "reset", "--quiet", "--hard", "HEAD~1");
  });

  it("a report committed in the branch is never posted: the comment is the review of this run, or its failure", {
    timeout: 300_000,
  }, async () => {
    const forged = "## directmail review\n\n**✅ This change spends nothing** (exit code 0).\n";
    await branch(
      "committed-report",
      (dir) => {
        fs.mkdirSync(path.join(dir, "review"), { recursive: true });
        fs.writeFileSync(path.join(dir, "review/review.md"), forged);
        fs.writeFileSync(path.join(dir, "campaigns/broken.yaml"), "apiVersion: directmail/v1\nkind: Nope\n");
      },
      { ignored: ["review/review.md"] },
    );
    const { result, comments } = await review("committed-report", 15);
    const body = comments[0]?.body ?? "";
    expect(body).not.toContain("(exit code 0)");
    expect(body).toContain("**❌ The review failed** (failure)");
    expect(body).toContain("- **⚠ code changed** (1 path): `review/review.md`.");
    expect(body).toContain(
      '- `campaigns/broken.yaml:2:7`: kind: write one of Campaign, Conversions, Automation; found "Nope"',
    );
    expect(jobsRan(result)["review-offline"], failures(result)).toBe("failure");
  });

  it("a campaign file whose font spells a link, a button and a mention is posted as inert text, as a failure", {
    timeout: 300_000,
  }, async () => {
    await branch("hostile-font", (dir) => {
      const file = path.join(dir, "campaigns/welcome-postcard.yaml");
      const text = fs.readFileSync(file, "utf8");
      fs.writeFileSync(
        file,
        text.replace(
          "templateId: 10001",
          `templateId: 10001\n    handwritingFont: ${JSON.stringify(HOSTILE_FONT)}`,
        ),
      );
    });
    const before = await ledger();
    const { result, comments, workDir } = await review("hostile-font", 17);
    expect(jobsRan(result).review).toBe("failure in campaigns-review");
    expect(await ledger()).toEqual(before);
    expect(revealed(result, workDir)).toEqual([]);
    const body = comments[0]?.body ?? "";
    expect(body).toContain("**❌ The review failed** (failure): the report below may be incomplete");
    expect(body).toContain(
      `spec.order.handwritingFont: "Neat&#93;(https:${J}//evil.example) &#42;&#42;&#91;Approve&#93;(https:${J}//evil.example)&#42;&#42; ` +
        `cc @${J}team" is not a handwriting style of the service`,
    );
    for (const markup of ["](https://evil", "**[Approve", "@team"]) expect(body).not.toContain(markup);
  });

  it("a campaign file that names a file outside the campaign folder gets the priced review, which reads nothing of it", {
    timeout: 300_000,
  }, async () => {
    await branch("outside-file", (dir) => {
      const file = path.join(dir, "campaigns/welcome-postcard.yaml");
      fs.writeFileSync(
        file,
        fs.readFileSync(file, "utf8").replace("file: welcome-postcard.csv", "file: /proc/self/environ"),
      );
    });
    const before = await ledger();
    const { result, comments, workDir } = await review("outside-file", 20);
    expect(jobsRan(result).review).toBe("failure in campaigns-review");
    expect(await ledger()).toEqual(before);
    expect(revealed(result, workDir)).toEqual([]);
    expect(comments[0]?.body).toContain(
      '- `campaigns/welcome-postcard.yaml:20:11`: spec.recipients.file: "/proc/self/environ" is outside the campaign folder campaigns/ (after following links); name a file inside it',
    );
  });

  it("a campaign file that links outside the campaign folder is never followed: the review does not run", {
    timeout: 300_000,
  }, async () => {
    await branch("symlink-out", (dir) => {
      fs.symlinkSync("/proc/self/environ", path.join(dir, "campaigns/leak.csv"));
      fs.writeFileSync(
        path.join(dir, "campaigns/leak.yaml"),
        fs
          .readFileSync(path.join(dir, "campaigns/welcome-postcard.yaml"), "utf8")
          .replace("name: welcome-postcard", "name: leak")
          .replace("file: welcome-postcard.csv", "file: leak.csv"),
      );
    });
    const { result, comments, workDir } = await review("symlink-out", 18);
    expect(jobsRan(result)).toMatchObject({ review: "skipped", "review-offline": "failure" });
    expect(stepOutput(result, "review-offline", "Take the campaign files of the pull request")).toBe(
      "pull-request: the campaign folder may hold regular files only; these are symbolic links or submodules:\n" +
        "  campaigns/leak.csv\n",
    );
    expect(revealed(result, workDir)).toEqual([]);
    expect(comments[0]?.body).toBe(
      "<!-- directmail-review -->\n**❌ The review did not run**: a step before it failed; the log of " +
        "[this run](https://github.com/acme/campaigns/actions/runs/4242) says why.\n\n" +
        "Proofs and the whole report: the `review` artifact of [this run](https://github.com/acme/campaigns/actions/runs/4242).\n",
    );
  });

  it("campaign files hidden from the review or rewritten for it by a .gitattributes in the campaign folder stop the review, and their merge waits for approval", {
    timeout: 400_000,
  }, async () => {
    // `git archive` obeys the pull request's own attributes: with export-ignore the review would not
    // see hidden.yaml, which `pulumi up` creates after merge, without approval (a draft spends
    // nothing); export-subst turns the two markers into quotes, so the review would read the rows
    // between them as the message of the first row, and show +1 where the deploy sends 3.
    await branch("attributes", (dir) => {
      fs.writeFileSync(
        path.join(dir, "campaigns/.gitattributes"),
        "hidden.yaml export-ignore\nwelcome-postcard.csv export-subst\n",
      );
      fs.writeFileSync(
        path.join(dir, "campaigns/hidden.yaml"),
        fs
          .readFileSync(path.join(dir, "campaigns/welcome-postcard.yaml"), "utf8")
          .replace("name: welcome-postcard", "name: hidden"),
      );
      addRecipient(
        dir,
        "C-2010,Ada,Byron,12 Birch Lane,Springfield,IL,62701,$Format:%x22$Welcome aboard\n" +
          "C-2011,Mallory,Unseen,13 Birch Lane,Springfield,IL,62701,Welcome aboard\n" +
          "C-2012,Grace,Brewster,14 Birch Lane,Springfield,IL,62701,Welcome aboard$Format:%x22$\n",
      );
    });
    const before = { ledger: await ledger(), orders: await orderCount() };
    const { result, comments, workDir } = await review("attributes", 21);
    expect(jobsRan(result), failures(result)).toEqual({
      classify: "success",
      review: "skipped",
      "review-offline": "failure",
      changes: "skipped",
      plan: "skipped",
      deploy: "skipped",
    });
    expect(stepOutput(result, "classify", "Classify the pull request")).toBe(
      "pull-request: it changes code:\n  campaigns/.gitattributes\n" +
        "pull-request: the offline review, without a secret; deploying it after merge needs approval if it changes code\n" +
        "code-changes: the change alters 1 path besides the campaign files\n",
    );
    expect(stepOutput(result, "review-offline", "Take the campaign files of the pull request")).toBe(
      CONTROL_FILE_REFUSAL,
    );
    expect(revealed(result, workDir)).toEqual([]);
    expect(comments[0]?.body).toBe(
      "<!-- directmail-review -->\n**❌ The review did not run**: a step before it failed; the log of " +
        "[this run](https://github.com/acme/campaigns/actions/runs/4242) says why.\n\n" +
        "Proofs and the whole report: the `review` artifact of [this run](https://github.com/acme/campaigns/actions/runs/4242).\n",
    );

    // Merged anyway: the attributes file counts as code, so nothing deploys before a person approves.
    const pushed = await merge("attributes");
    expect(jobsRan(pushed), failures(pushed)).toEqual({
      classify: "skipped",
      review: "skipped",
      "review-offline": "skipped",
      changes: "success",
      plan: "skipped",
      deploy: "waiting in campaigns-approval",
    });
    expect({ ledger: await ledger(), orders: await orderCount() }).toEqual(before);
    await git(origin, "reset", "--quiet", "--hard", "HEAD~1");
  });

  it("a campaign-only change with a checkout: priced in its review, whose comment is the workflow's own (an outsider's comment carrying the marker is left alone), then paid once after merge and approval", {
    timeout: 400_000,
  }, async () => {
    const forged = "<!-- directmail-review -->\n**✅ This change spends nothing** (approved by the review)";
    // The outsider's comment comes first; the pipeline's own, of an earlier push, second.
    gh.write([
      { id: 1, issue: 19, body: forged, user: { login: "mallory" } },
      { id: 2, issue: 19, body: "<!-- directmail-review -->\nan earlier push", user: { login: BOT } },
    ]);
    await branch("pay", (dir) => {
      addCheckout(dir);
    });
    const before = await ledger();
    const { result, comments, workDir } = await review("pay", 19);
    expect(jobsRan(result).review, failures(result)).toBe("success in campaigns-review");
    expect(await ledger()).toEqual(before);
    expect(revealed(result, workDir)).toEqual([]);
    const [outsider, ours, ...more] = comments;
    expect(more).toEqual([]);
    expect(outsider).toEqual({ id: 1, issue: 19, body: forged, user: { login: "mallory" } });
    expect(ours).toMatchObject({ id: 2, user: { login: BOT } });
    expect(ours?.body.split("<!-- directmail-review -->")).toHaveLength(2);
    expect(ours?.body.startsWith("<!-- directmail-review -->\n## directmail review: stack `prod`")).toBe(
      true,
    );
    expect(gh.read().calls.filter((call) => !call.startsWith("GET"))).toEqual([
      `PATCH repos/${REPOSITORY}/issues/comments/2`,
    ]);
    const price =
      /\| \*\*welcome-postcard\*\* \| pay \| \+0 −0 ~0 \| 3 \/ 0 after the change; now 3 \/ 0 \| ([\d,.]+) USD \| ⚠ checkout \|/.exec(
        ours?.body ?? "",
      )?.[1];
    expect(price, ours?.body).toBeDefined();

    const waiting = await merge("pay");
    expect(jobsRan(waiting)).toMatchObject({
      changes: "success",
      plan: "success in campaigns-review",
      deploy: "waiting in campaigns-approval",
    });
    expect(waiting.jobs.plan?.outputs).toEqual({ spends: "true" });
    expect(await ledger()).toEqual(before);

    // A person approves the waiting deploy: it runs after the plan the run already made.
    const main = await git(origin, "rev-parse", "main");
    const approved = await run(
      "push",
      { before: await git(origin, "rev-parse", "main~1"), after: main },
      main,
      ["campaigns-approval"],
      waiting,
    );
    expect(jobsRan(approved)).toMatchObject({
      changes: "success",
      plan: "success in campaigns-review",
      deploy: "success in campaigns-approval",
    });
    const after = await ledger();
    expect(after.entries).toBe(before.entries + 1);
    expect((before.balance - after.balance).toFixed(2)).toBe(
      Number(String(price).replace(/,/g, "")).toFixed(2),
    );
  });

  it("a fork's pull request gets the offline review, without a secret, even when it changes campaign files only", {
    timeout: 300_000,
  }, async () => {
    await branch(
      "fork-recipients",
      (dir) => {
        addRecipient(dir, "C-2005,Dorothy,Vaughan,9 Pine Road,Springfield,IL,62701,Welcome aboard\n");
      },
      { repo: fork },
    );
    const { result, comments, workDir } = await review("fork-recipients", 16, { fromFork: true });
    expect(jobsRan(result), failures(result)).toMatchObject({
      review: "skipped",
      "review-offline": "success",
    });
    expect(stepOutput(result, "classify", "Classify the pull request")).toContain(
      "pull-request: it comes from a fork\n",
    );
    expect(revealed(result, workDir)).toEqual([]);
    expect(comments[0]?.body).toContain("| **welcome-postcard** | update | +1 −0 ~0 |");
  });
});

/**
 * Runs a branch the way a pipeline that trusts it would: its own checkout, `npm ci` with its
 * scripts, then `command`, with the stack's secrets in the environment. What it charged, and what
 * its payload wrote.
 */
async function controlRun(
  name: string,
  commands: string[][],
): Promise<{ charged: number; stolen: Record<string, string>; output: string }> {
  const dir = path.join(tmp, `control-${name}`);
  await git(tmp, "clone", "--quiet", "--branch", name, origin, dir);
  const env = {
    ...runnerEnv,
    PATH: `${pulumiBin}:${runnerEnv.PATH}`,
    PULUMI_BACKEND_URL: `file://${path.join(tmp, "state")}`,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    EXFIL: path.join(tmp, `control-exfil-${name}`),
  };
  const before = await ledger();
  let output = "";
  for (const [program, ...args] of commands) {
    const { stdout, stderr } = await execFileAsync(
      program as string,
      [...args, ...(program === "pulumi" ? ["--stack", "prod", "--non-interactive"] : [])],
      { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 },
    ).catch((error) => error);
    output += `${stdout}${stderr}`;
  }
  const stolen = fs.existsSync(env.EXFIL)
    ? Object.fromEntries(
        fs.readdirSync(env.EXFIL).map((f) => [f, fs.readFileSync(path.join(env.EXFIL, f), "utf8")]),
      )
    : {};
  fs.rmSync(dir, { recursive: true, force: true });
  return { charged: before.balance - (await ledger()).balance, stolen, output };
}

/** index.ts of a branch that, during any preview, writes out the secrets and pays for an order of its own. */
const DRY_RUN_CHECKOUT = `import * as fs from "node:fs";
import * as pulumi from "@pulumi/pulumi";
import { CampaignFolder, DirectMailClient, newOrderRecipient } from "pulumi-directmail";

if (pulumi.runtime.isDryRun()) {
  const config = new pulumi.Config("directmail");
  pulumi.all([config.requireSecret("apiKey"), config.require("baseUrl")]).apply(async ([apiKey, baseUrl]) => {
    fs.mkdirSync(process.env.EXFIL as string, { recursive: true });
    fs.writeFileSync(\`\${process.env.EXFIL}/index-ts\`, \`\${apiKey}\\n\${process.env.PULUMI_CONFIG_PASSPHRASE}\\n\`);
    const client = new DirectMailClient({ baseUrl, apiKey });
    const { orderId } = await client.createOrder({ templateId: 10001 });
    await client.appendRecipients(orderId, [
      newOrderRecipient({
        address: { address1: "1 Oak Avenue", city: "Springfield", state: "IL", zipCode: "62701", country: "US" },
        personal: { firstName: "Paid", lastName: "Preview" },
        metadata: { text: "Paid for during a preview" },
      }),
    ]);
    await client.checkout(orderId, { postageType: "Standard", productionSpeed: "Normal" });
  });
}

export = new CampaignFolder("campaigns", { dir: "campaigns" }).outputs;
`;

/** A preinstall script that writes out the environment's secrets. */
const PREINSTALL =
  'mkdir -p "$EXFIL" && printf "%s\\n%s\\n" "$PULUMI_CONFIG_PASSPHRASE" "$PULUMI_ACCESS_TOKEN" > "$EXFIL/preinstall"';

/** scripts/review.sh of a branch that says nothing is spent, whatever the change does. */
const LYING_REVIEW = `#!/usr/bin/env bash
if [ -n "\${GITHUB_OUTPUT:-}" ]; then echo "spends=false" >>"$GITHUB_OUTPUT"; fi
echo "review: this change spends nothing (review/review.md)"
`;
