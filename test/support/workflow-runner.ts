/**
 * A local stand-in for GitHub Actions, enough to run the GitOps template's workflow
 * (examples/gitops/.github/workflows/campaigns.yml) as GitHub would, step by step:
 * - the jobs in the order of their `needs`, each with its `if`, its environment and the secrets of
 *   that environment only (the template keeps none at the repository level), in a workspace and a
 *   RUNNER_TEMP of its own;
 * - `${{ }}` expressions evaluated by GitHub's own evaluator (@actions/expressions), with the
 *   contexts github, env, vars, secrets, needs, steps, runner and the status functions;
 * - `run:` steps through `bash --noprofile --norc -eo pipefail`, as the ubuntu runner does, with
 *   GITHUB_OUTPUT, GITHUB_PATH and the usual variables; a `${{ }}` inside a script is refused
 *   (a template injection: the template passes values through `env:`);
 * - the actions it uses, by stand-ins: actions/checkout clones from a local repository standing in
 *   for GitHub, and leaves the job's token in .git/config unless `persist-credentials: false`;
 *   pulumi/actions puts the Pulumi CLI on PATH (no other step has it); setup-node does nothing
 *   (node is on PATH); upload-artifact copies the files aside.
 * - an environment with required reviewers runs only when the test approves it; otherwise the job
 *   waits, and does not run. Approving a waiting run later (`resume`) runs the waiting jobs and
 *   what needs them, as GitHub does: the jobs that already ran keep their results and outputs.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface WorkflowEnvironment {
  secrets: Record<string, string>;
  /** Required reviewers: the job runs only when `approve` lists the environment. */
  requiresApproval?: boolean;
}

export interface WorkflowRun {
  /** The workflow file's text, as the event runs it (main's for pull_request_target). */
  workflow: string;
  event: "pull_request_target" | "push";
  payload: Record<string, Json>;
  /** owner/name of the repository the workflow runs in. */
  repository: string;
  /** The commit and ref the run is for (main's tip for pull_request_target). */
  sha: string;
  ref: string;
  /** Local git repositories standing in for GitHub's, by owner/name (forks included). */
  repositories: Record<string, string>;
  environments: Record<string, WorkflowEnvironment>;
  vars: Record<string, string>;
  /** Environments a reviewer approves in this run. */
  approve?: string[];
  /** The earlier run of this event that waits for approval: only its waiting jobs (and the jobs after them) run. */
  resume?: RunResult | undefined;
  /** The runner's own environment (PATH without the Pulumi CLI, HOME, caches). */
  runnerEnv: NodeJS.ProcessEnv;
  /** Where the Pulumi CLI is: pulumi/actions adds it to PATH. */
  pulumiBin: string;
  /** A new folder for the jobs' workspaces, temp folders and the artifacts. */
  workDir: string;
  /** The job's GITHUB_TOKEN (a stand-in value the tests search for). */
  token: string;
}

export interface StepResult {
  name: string;
  outcome: "success" | "failure" | "skipped";
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
}

export interface JobResult {
  result: "success" | "failure" | "skipped" | "waiting";
  environment: string | undefined;
  outputs: Record<string, string>;
  steps: StepResult[];
}

export interface RunResult {
  jobs: Record<string, JobResult>;
  /** Artifact folders by name. */
  artifacts: Record<string, string>;
}

// @actions/expressions is an ES module; this file is CommonJS.
type Expressions = typeof import("@actions/expressions") & {
  truthy: typeof import("@actions/expressions/result")["truthy"];
};
let expressions: Expressions | undefined;
async function loadExpressions(): Promise<Expressions> {
  expressions ??= {
    ...(await import("@actions/expressions")),
    truthy: (await import("@actions/expressions/result")).truthy,
  };
  return expressions;
}

interface JobDefinition {
  needs?: string | string[];
  if?: string;
  environment?: string;
  env?: Record<string, string>;
  outputs?: Record<string, string>;
  steps: StepDefinition[];
}

interface StepDefinition {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, string | number | boolean>;
  env?: Record<string, string>;
}

export async function runWorkflow(run: WorkflowRun): Promise<RunResult> {
  const ex = await loadExpressions();
  const workflow = parse(run.workflow) as {
    env?: Record<string, string>;
    jobs: Record<string, JobDefinition>;
  };
  const jobs: Record<string, JobResult> = {};
  const artifacts: Record<string, string> = { ...run.resume?.artifacts };
  const github = {
    event_name: run.event,
    event: run.payload,
    repository: run.repository,
    sha: run.sha,
    ref: run.ref,
    token: run.token,
    server_url: "https://github.com",
    run_id: "4242",
    base_ref: run.event === "pull_request_target" ? "main" : "",
  };

  const evaluate = (expression: string, context: Record<string, Json>, statusOk: StatusFunctions) => {
    const lexed = new ex.Lexer(expression).lex();
    const functions = new Map(
      Object.entries(statusFunctions(statusOk, ex)).map(([name, call]) => [
        name,
        { name, minArgs: 0, maxArgs: 0, call },
      ]),
    );
    const tree = new ex.Parser(lexed.tokens, Object.keys(context), [...functions.values()]).parse();
    return new ex.Evaluator(tree, toData(ex, context), functions).evaluate();
  };
  /** A value that may hold `${{ }}`: each expression replaced by its value as a string. */
  const interpolate = (value: unknown, context: Record<string, Json>, status: StatusFunctions) =>
    String(value).replace(/\$\{\{([\s\S]*?)\}\}/g, (_, expression: string) =>
      evaluate(expression.trim(), context, status).coerceString(),
    );
  /** An `if:`: an expression with or without `${{ }}`; success() is implied without a status function. */
  const condition = (text: string | undefined, context: Record<string, Json>, status: StatusFunctions) => {
    let expression = (text ?? "success()").trim();
    const wrapped = /^\$\{\{([\s\S]*)\}\}$/.exec(expression);
    if (wrapped) expression = (wrapped[1] as string).trim();
    if (!/\b(success|failure|always|cancelled)\(\)/.test(expression))
      expression = `success() && (${expression})`;
    return ex.truthy(evaluate(expression, context, status));
  };

  for (const name of jobOrder(workflow.jobs)) {
    const job = workflow.jobs[name] as JobDefinition;
    const needNames = job.needs === undefined ? [] : ([] as string[]).concat(job.needs);
    const earlier = run.resume?.jobs[name];
    if (earlier && earlier.result !== "waiting" && needNames.every((n) => jobs[n] === run.resume?.jobs[n])) {
      jobs[name] = earlier;
      continue;
    }
    const needs: Record<string, Json> = {};
    for (const need of needNames) {
      const done = jobs[need] as JobResult;
      needs[need] = { result: done.result === "waiting" ? "skipped" : done.result, outputs: done.outputs };
    }
    const jobContext: Record<string, Json> = { github, vars: run.vars, needs, env: {} };
    const jobStatus: StatusFunctions = {
      success: needNames.every((n) => jobs[n]?.result === "success"),
      failure: needNames.some((n) => jobs[n]?.result === "failure"),
    };
    if (!condition(job.if, jobContext, jobStatus)) {
      jobs[name] = { result: "skipped", environment: undefined, outputs: {}, steps: [] };
      continue;
    }
    const environment =
      job.environment !== undefined ? interpolate(job.environment, jobContext, jobStatus) : undefined;
    const settings = environment !== undefined ? run.environments[environment] : undefined;
    if (environment !== undefined && settings === undefined)
      throw new Error(
        `job ${name} asks for environment "${environment}", which the repository does not have`,
      );
    // Each environment is limited to the branch main, as the template's README sets them up.
    if (environment !== undefined && run.ref !== "refs/heads/main")
      throw new Error(`environment ${environment} is limited to main; job ${name} runs for ${run.ref}`);
    if (settings?.requiresApproval && !(run.approve ?? []).includes(environment as string)) {
      jobs[name] = { result: "waiting", environment, outputs: {}, steps: [] };
      continue;
    }
    jobs[name] = await runJob(name, job, {
      run,
      github,
      needs,
      secrets: settings?.secrets ?? {},
      workflowEnv: workflow.env ?? {},
      environment,
      interpolate,
      condition,
      artifacts,
    });
  }
  return { jobs, artifacts };
}

interface JobInput {
  run: WorkflowRun;
  github: Record<string, Json>;
  needs: Record<string, Json>;
  secrets: Record<string, string>;
  workflowEnv: Record<string, string>;
  environment: string | undefined;
  interpolate: (value: unknown, context: Record<string, Json>, status: StatusFunctions) => string;
  condition: (text: string | undefined, context: Record<string, Json>, status: StatusFunctions) => boolean;
  artifacts: Record<string, string>;
}

async function runJob(name: string, job: JobDefinition, input: JobInput): Promise<JobResult> {
  const { run } = input;
  const root = path.join(run.workDir, "jobs", name);
  const workspace = path.join(root, "workspace");
  const temp = path.join(root, "temp");
  fs.mkdirSync(workspace, { recursive: true });
  fs.mkdirSync(temp, { recursive: true });
  const runner = { temp, os: "Linux" };
  const steps: StepResult[] = [];
  const stepsContext: Record<string, Json> = {};
  const paths: string[] = [];
  const base: Record<string, Json> = {
    github: input.github,
    vars: run.vars,
    needs: input.needs,
    secrets: input.secrets,
    runner,
  };
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(input.workflowEnv))
    env[key] = input.interpolate(value, { ...base, env }, { success: true, failure: false });
  for (const [key, value] of Object.entries(job.env ?? {}))
    env[key] = input.interpolate(value, { ...base, env }, { success: true, failure: false });

  let failed = false;
  for (const [index, step] of job.steps.entries()) {
    const label = step.name ?? step.uses ?? step.run ?? `step ${index + 1}`;
    const context = { ...base, env, steps: stepsContext };
    const status = { success: !failed, failure: failed };
    const skip = (): StepResult => ({ name: label, outcome: "skipped", stdout: "", stderr: "", outputs: {} });
    const result = input.condition(step.if, context, status) ? undefined : skip();
    let outcome: StepResult = result ?? {
      name: label,
      outcome: "success",
      stdout: "",
      stderr: "",
      outputs: {},
    };
    if (!result) {
      const stepEnv: Record<string, string> = { ...env };
      for (const [key, value] of Object.entries(step.env ?? {}))
        stepEnv[key] = input.interpolate(value, context, status);
      const inputs: Record<string, string> = {};
      for (const [key, value] of Object.entries(step.with ?? {}))
        inputs[key] = input.interpolate(value, context, status);
      if (step.uses !== undefined) {
        outcome = useAction(label, step.uses, inputs, { run, workspace, paths, artifacts: input.artifacts });
      } else if (step.run !== undefined) {
        if (step.run.includes("${{"))
          throw new Error(
            `step "${label}" of job ${name} puts an expression into its script: pass it through env`,
          );
        outcome = runScript(
          label,
          step.run,
          {
            ...run.runnerEnv,
            PATH: [...paths, run.runnerEnv.PATH].join(":"),
            ...stepEnv,
            CI: "true",
            GITHUB_ACTIONS: "true",
            GITHUB_WORKSPACE: workspace,
            GITHUB_REPOSITORY: run.repository,
            GITHUB_SHA: run.sha,
            GITHUB_REF: run.ref,
            GITHUB_EVENT_NAME: run.event,
            GITHUB_RUN_ID: String(input.github.run_id),
            GITHUB_SERVER_URL: String(input.github.server_url),
            RUNNER_TEMP: temp,
          },
          workspace,
          temp,
        );
      }
    }
    steps.push(outcome);
    if (step.id !== undefined)
      stepsContext[step.id] = {
        outcome: outcome.outcome,
        conclusion: outcome.outcome,
        outputs: outcome.outputs,
      };
    if (outcome.outcome === "failure") failed = true;
  }
  const outputs: Record<string, string> = {};
  for (const [key, value] of Object.entries(job.outputs ?? {}))
    outputs[key] = input.interpolate(
      value,
      { ...base, env, steps: stepsContext },
      { success: true, failure: false },
    );
  return { result: failed ? "failure" : "success", environment: input.environment, outputs, steps };
}

function runScript(
  label: string,
  script: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  temp: string,
): StepResult {
  const file = path.join(temp, `step-${Math.random().toString(36).slice(2)}.sh`);
  const output = path.join(temp, `output-${path.basename(file, ".sh")}`);
  fs.writeFileSync(file, script);
  fs.writeFileSync(output, "");
  const done = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", file], {
    cwd,
    env: { ...env, GITHUB_OUTPUT: output },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return {
    name: label,
    outcome: done.status === 0 ? "success" : "failure",
    stdout: done.stdout,
    stderr: done.stderr,
    outputs: parseOutputs(fs.readFileSync(output, "utf8")),
  };
}

/** GITHUB_OUTPUT's format: `name=value` lines, and `name<<DELIMITER` blocks. */
function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const block = /^([\w-]+)<<(.+)$/.exec(line);
    if (block) {
      const end = lines.indexOf(block[2] as string, i + 1);
      outputs[block[1] as string] = lines.slice(i + 1, end).join("\n");
      i = end;
    } else if (line.includes("=")) {
      outputs[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
    }
  }
  return outputs;
}

interface ActionInput {
  run: WorkflowRun;
  workspace: string;
  paths: string[];
  artifacts: Record<string, string>;
}

function useAction(
  label: string,
  uses: string,
  inputs: Record<string, string>,
  input: ActionInput,
): StepResult {
  const [action, version] = uses.split("@") as [string, string];
  const ok = (stdout = ""): StepResult => ({
    name: label,
    outcome: "success",
    stdout,
    stderr: "",
    outputs: {},
  });
  if (!/^[0-9a-f]{40}$/.test(version)) throw new Error(`${uses} is not pinned to a commit`);
  switch (action) {
    case "actions/checkout": {
      const repository = inputs.repository || input.run.repository;
      const source = input.run.repositories[repository];
      if (source === undefined) throw new Error(`no repository ${repository} to check out`);
      const dest = path.resolve(input.workspace, inputs.path ?? ".");
      git(input.workspace, "clone", "--quiet", "--no-checkout", source, dest);
      git(dest, "checkout", "--quiet", "--detach", inputs.ref || input.run.sha);
      // What actions/checkout does without persist-credentials: false.
      if (inputs["persist-credentials"] !== "false") {
        const basic = Buffer.from(`x-access-token:${input.run.token}`).toString("base64");
        git(
          dest,
          "config",
          "--local",
          "http.https://github.com/.extraheader",
          `AUTHORIZATION: basic ${basic}`,
        );
      }
      return ok();
    }
    case "actions/setup-node":
      return ok();
    case "pulumi/actions":
      input.paths.unshift(input.run.pulumiBin);
      return ok();
    case "actions/upload-artifact": {
      const name = inputs.name ?? "artifact";
      const from = path.resolve(input.workspace, inputs.path ?? ".");
      const to = path.join(input.run.workDir, "artifacts", name);
      if (fs.existsSync(from)) fs.cpSync(from, to, { recursive: true });
      input.artifacts[name] = to;
      return ok();
    }
    default:
      throw new Error(`no stand-in for the action ${action}`);
  }
}

function git(cwd: string, ...args: string[]): void {
  const done = spawnSync("git", args, { cwd, encoding: "utf8" });
  if (done.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${done.stderr}`);
}

/** The jobs in an order where each comes after those it needs. */
function jobOrder(jobs: Record<string, JobDefinition>): string[] {
  const order: string[] = [];
  const visit = (name: string) => {
    if (order.includes(name)) return;
    for (const need of ([] as string[]).concat(jobs[name]?.needs ?? [])) visit(need);
    order.push(name);
  };
  for (const name of Object.keys(jobs)) visit(name);
  return order;
}

interface StatusFunctions {
  success: boolean;
  failure: boolean;
}

/** The runner's status functions; a run here is never cancelled. */
function statusFunctions(status: StatusFunctions, ex: Expressions): Record<string, () => ExpressionData> {
  return {
    success: () => new ex.data.BooleanData(status.success),
    failure: () => new ex.data.BooleanData(status.failure),
    always: () => new ex.data.BooleanData(true),
    cancelled: () => new ex.data.BooleanData(false),
  };
}

type ExpressionData = ReturnType<InstanceType<Expressions["Evaluator"]>["evaluate"]>;

/** A JSON value as the evaluator's data: objects become dictionaries, arrays arrays. */
function toData(ex: Expressions, value: unknown): InstanceType<Expressions["data"]["Dictionary"]> {
  const convert = (v: unknown): ExpressionData => {
    if (Array.isArray(v)) return new ex.data.Array(...v.map(convert));
    if (v !== null && typeof v === "object")
      return new ex.data.Dictionary(
        ...Object.entries(v).map(([key, inner]) => ({ key, value: convert(inner) })),
      );
    if (typeof v === "string") return new ex.data.StringData(v);
    if (typeof v === "number") return new ex.data.NumberData(v);
    if (typeof v === "boolean") return new ex.data.BooleanData(v);
    return new ex.data.Null();
  };
  return convert(value) as InstanceType<Expressions["data"]["Dictionary"]>;
}
