/**
 * The GitHub Actions workflow of the GitOps template (examples/gitops): actionlint accepts it (and
 * rejects a broken copy, so the check is real), and each of its steps is one of the template's
 * scripts, so that the same steps run locally (test/e2e/gitops-template.test.ts runs them).
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
let tmp: string;

beforeAll(async () => {
  // Built from the Go module proxy on first use (a minute or so), then cached outside the checkout.
  const { stdout } = await execFileAsync("bash", [path.join(repoRoot, "scripts/ensure-actionlint.sh")], {
    cwd: repoRoot,
  });
  actionlint = stdout.trim();
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

describe("the GitOps template's workflow", () => {
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
      runs[name] = job.steps.filter((s: any) => s.run && s.run !== "npm ci").map((s: any) => s.run);
    }
    expect(runs).toEqual({
      review: [
        "bash scripts/validate.sh",
        'bash scripts/review.sh "origin/$BASE_REF"',
        'bash scripts/comment.sh "$PR_NUMBER"',
      ],
      plan: ['bash scripts/review.sh "$BEFORE"'],
      deploy: ["bash scripts/deploy.sh"],
    });
    for (const run of Object.values(runs).flat()) {
      expect(scripts).toContain(/scripts\/([\w-]+\.sh)/.exec(run)?.[1]);
    }
  });

  it("reviews pull requests, and deploys pushes to main where approval is required when the review reported spending", () => {
    expect(Object.keys(workflow.on).sort()).toEqual(["pull_request", "push"]);
    expect(workflow.on.push.branches).toEqual(["main"]);
    const { review, plan, deploy } = workflow.jobs;
    expect(review.if).toBe("github.event_name == 'pull_request'");
    expect(review.permissions).toEqual({ contents: "read", "pull-requests": "write" });
    expect(review.steps.find((s: any) => s.uses?.startsWith("actions/upload-artifact"))?.with).toEqual({
      name: "review",
      path: "review/",
    });
    expect(plan.if).toBe("github.event_name == 'push'");
    expect(plan.outputs.spends).toBe(`\${{ steps.review.outputs.spends }}`);
    expect(deploy.needs).toBe("plan");
    expect(deploy.environment).toBe(
      `\${{ needs.plan.outputs.spends == 'true' && 'campaigns-approval' || 'campaigns' }}`,
    );
  });
});
