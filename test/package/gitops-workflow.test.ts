/**
 * The GitHub Actions workflow of the GitOps template (examples/gitops): actionlint and zizmor (the
 * security linter, at its default persona) accept it, and reject broken copies, so the checks are
 * real; each of its steps is one of the template's scripts, so that the same steps run locally
 * (test/e2e/gitops-template.test.ts runs them, test/e2e/gitops-attacks.test.ts runs the workflow).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { execFileAsync, repoRoot } from "../support/package";

const template = path.join(repoRoot, "examples/gitops");
const workflowFile = path.join(template, ".github/workflows/campaigns.yml");
const workflowText = fs.readFileSync(workflowFile, "utf8");
const workflow = parse(workflowText);

let actionlint: string;
let zizmor: string;
let tmp: string;

beforeAll(async () => {
  // Built from the Go module proxy on first use (a minute or so), then cached outside the checkout.
  const { stdout } = await execFileAsync("bash", [path.join(repoRoot, "scripts/ensure-actionlint.sh")], {
    cwd: repoRoot,
  });
  actionlint = stdout.trim();
  // Installed from PyPI on first use, then cached outside the checkout.
  const installed = await execFileAsync("bash", [path.join(repoRoot, "scripts/ensure-zizmor.sh")], {
    cwd: repoRoot,
  });
  zizmor = installed.stdout.trim();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-actionlint-"));
}, 600_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function lint(file: string): Promise<{ code: number; output: string }> {
  return execFileAsync(actionlint, ["-no-color", "-oneline", file]).then(
    ({ stdout }) => ({ code: 0, output: stdout }),
    (error) => ({ code: error.code, output: `${error.stdout}${error.stderr}` }),
  );
}

/** zizmor at its default persona, offline (no GitHub API); its findings as `audit` names. */
async function audit(file: string): Promise<{ code: number; findings: string[]; summary: string }> {
  const result = await execFileAsync(zizmor, [
    "--offline",
    "--no-config",
    "--color",
    "never",
    "--format",
    "plain",
    file,
  ]).then(
    ({ stdout, stderr }) => ({ code: 0, output: `${stdout}${stderr}` }),
    (error) => ({ code: error.code, output: `${error.stdout}${error.stderr}` }),
  );
  const findings = [...result.output.matchAll(/^(?:error|warning|help|info)\[([\w-]+)\]/gm)].map(
    (m) => m[1] as string,
  );
  const summary = /^(No findings to report.*|\d+ findings?.*)$/m.exec(result.output)?.[1] ?? result.output;
  return { code: result.code, findings: [...new Set(findings)].sort(), summary };
}

describe("the GitOps template's workflow", () => {
  it("passes zizmor at its default persona; its one ignored finding is the trigger that runs main's workflow", async () => {
    expect(await audit(workflowFile)).toEqual({
      code: 0,
      findings: [],
      summary: "No findings to report. Good job! (1 ignored, 9 suppressed)",
    });
    expect(workflowText).toContain("pull_request_target: # zizmor: ignore[dangerous-triggers]");
  });

  it("fails zizmor when a checkout keeps its credentials, an action is pinned by tag, or a secret is in the workflow's env", async () => {
    const broken = path.join(tmp, "insecure.yml");
    fs.writeFileSync(
      broken,
      workflowText
        .replace("persist-credentials: false\n", "")
        .replace(/actions\/setup-node@[0-9a-f]{40}/g, "actions/setup-node@v7")
        .replace(
          "\nenv:\n",
          `\nenv:\n  PULUMI_CONFIG_PASSPHRASE: \${{ secrets.PULUMI_CONFIG_PASSPHRASE }}\n`,
        ),
    );
    const result = await audit(broken);
    expect(result.code).not.toBe(0);
    expect(result.findings).toEqual(expect.arrayContaining(["artipacked", "unpinned-uses"]));
  });

  it("passes actionlint", async () => {
    expect(await lint(workflowFile)).toEqual({ code: 0, output: "" });
  });

  it("fails actionlint when the deploy reads an output the review does not set", async () => {
    const broken = path.join(tmp, "campaigns.yml");
    fs.writeFileSync(
      broken,
      workflowText.replace("needs.plan.outputs.spends", "needs.plan.outputs.spending"),
    );
    const result = await lint(broken);
    expect(result.code).toBe(1);
    expect(result.output).toContain('property "spending" is not defined in object type {spends: string}');
  });

  it("runs a script of the template at every step that is not a setup step", () => {
    const scripts = new Set(fs.readdirSync(path.join(template, "scripts")));
    const runs: Record<string, string[]> = {};
    for (const [name, job] of Object.entries<any>(workflow.jobs)) {
      runs[name] = job.steps.filter((s: any) => s.run && !s.run.startsWith("npm ci")).map((s: any) => s.run);
    }
    const prepare = "bash scripts/pull-request.sh prepare .pull-request";
    expect(runs).toEqual({
      classify: ["bash scripts/pull-request.sh classify .pull-request"],
      review: [
        prepare,
        "bash scripts/validate.sh",
        'bash scripts/review.sh --out "$RUNNER_TEMP/review" HEAD',
        'bash scripts/comment.sh "$PR_NUMBER" "$RUNNER_TEMP/review" "$REVIEW_OUTCOME"',
      ],
      "review-offline": [
        prepare,
        "bash scripts/validate.sh",
        'bash scripts/review.sh --out "$RUNNER_TEMP/review" --offline .pull-request HEAD',
        'bash scripts/comment.sh "$PR_NUMBER" "$RUNNER_TEMP/review" "$REVIEW_OUTCOME"',
      ],
      changes: [expect.stringContaining('git show "$BEFORE:scripts/code-changes.sh"')],
      plan: ['bash scripts/review.sh --out "$RUNNER_TEMP/review" "$BEFORE"'],
      deploy: ["bash scripts/deploy.sh"],
    });
    for (const run of Object.values(runs).flat()) {
      expect(scripts).toContain(/scripts\/([\w-]+\.sh)/.exec(run)?.[1]);
    }
  });

  it("reviews pull requests with main's workflow, and never gives a secret to a job that runs a pull request's code", () => {
    expect(Object.keys(workflow.on).sort()).toEqual(["pull_request_target", "push"]);
    expect(workflow.on.pull_request_target.branches).toEqual(["main"]);
    expect(workflow.on.push.branches).toEqual(["main"]);
    expect(workflow.permissions).toEqual({});
    // Secrets only in the steps of jobs that name an environment; none in the workflow's env.
    expect(workflowText.split("\n").filter((line) => line.includes("secrets.")).length).toBeGreaterThan(0);
    expect(JSON.stringify(workflow.env)).not.toContain("secrets.");
    for (const [name, job] of Object.entries<any>(workflow.jobs)) {
      const text = JSON.stringify(job);
      if (text.includes("secrets.")) expect(job.environment, name).toBeDefined();
      expect(JSON.stringify(job.env ?? {}), name).not.toContain("secrets.");
      for (const step of job.steps.filter((s: any) => s.uses?.startsWith("actions/checkout@")))
        expect(step.with["persist-credentials"], name).toBe(false);
      for (const step of job.steps.filter((s: any) => s.uses))
        expect(step.uses, name).toMatch(/^[\w-]+\/[\w-]+@[0-9a-f]{40}$/);
    }
    const { classify, review, changes, plan, deploy } = workflow.jobs;
    expect(classify.environment).toBeUndefined();
    expect(workflow.jobs["review-offline"].environment).toBeUndefined();
    expect(JSON.stringify(workflow.jobs["review-offline"])).not.toContain("secrets.");
    expect(review.environment).toBe("campaigns-review");
    expect(review.if).toBe("needs.classify.outputs.priced == 'true'");
    expect(review.steps.find((s: any) => s.run?.startsWith("npm ci")).run).toBe("npm ci --ignore-scripts");
    expect(changes.environment).toBeUndefined();
    expect(plan.if).toBe("needs.changes.outputs.code-changed == 'false'");
    expect(deploy.environment).toBe(
      `\${{ needs.changes.outputs.code-changed == 'false' && needs.plan.outputs.spends == 'false' && 'campaigns' || 'campaigns-approval' }}`,
    );
  });
});
