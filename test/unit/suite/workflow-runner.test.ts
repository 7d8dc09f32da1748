import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runWorkflow, type WorkflowRun } from "../../support/workflow-runner";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-workflow-runner-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A plan whose output a gated deploy reads; each job counts its runs in a file. */
const WORKFLOW = `
on: push
jobs:
  plan:
    runs-on: ubuntu-latest
    outputs:
      spends: \${{ steps.plan.outputs.spends }}
    steps:
      - id: plan
        run: echo run >>"$COUNT/plan" && echo "spends=true" >>"$GITHUB_OUTPUT"
  deploy:
    needs: plan
    runs-on: ubuntu-latest
    environment: approval
    steps:
      - run: echo "$SPENDS" >>"$COUNT/deploy"
        env:
          SPENDS: \${{ needs.plan.outputs.spends }}
`;

function workflowRun(name: string, extra: Partial<WorkflowRun>): WorkflowRun {
  return {
    workflow: WORKFLOW,
    event: "push",
    payload: {},
    repository: "acme/campaigns",
    sha: "0".repeat(40),
    ref: "refs/heads/main",
    repositories: {},
    environments: { approval: { secrets: {}, requiresApproval: true } },
    vars: {},
    runnerEnv: { PATH: process.env.PATH, COUNT: tmp },
    pulumiBin: tmp,
    workDir: path.join(tmp, name),
    token: "ghs_token",
    ...extra,
  };
}

describe("the workflow runner's approvals", () => {
  it("runs a waiting job once approved, after the jobs the run already ran, which do not run again", async () => {
    const waiting = await runWorkflow(workflowRun("first", {}));
    expect(waiting.jobs.deploy?.result).toBe("waiting");
    expect(fs.existsSync(path.join(tmp, "deploy"))).toBe(false);

    const approved = await runWorkflow(workflowRun("approved", { approve: ["approval"], resume: waiting }));
    expect(approved.jobs.plan).toBe(waiting.jobs.plan);
    expect(approved.jobs.deploy?.result).toBe("success");
    expect(fs.readFileSync(path.join(tmp, "plan"), "utf8")).toBe("run\n");
    expect(fs.readFileSync(path.join(tmp, "deploy"), "utf8")).toBe("true\n");
  });
});
