/**
 * The project's `pulumi` CLI as the commands run it (cli/stack/pulumi.ts), against a stand-in
 * `pulumi` that records its arguments: each question is one command, in the project's folder,
 * non-interactive, naming its stack (never selecting one); a failure keeps what pulumi said; a
 * preview's events come as it streams them; an aborted preview is interrupted as Ctrl-C does.
 * The real CLI answers the same commands in the end-to-end tests (status, review, report, orders).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EngineEvent, PulumiCommandError, PulumiProject } from "../../../cli/stack/pulumi";
import { pulumiMessage } from "../../../cli/stack/settings";

let dir: string;
let project: string;
let calls: string;

/** A stand-in `pulumi` whose body is `script` (sh), which logs its folder and arguments first. */
function fakePulumi(name: string, script: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/sh\necho "$(pwd) $*" >> "${calls}"\n${script}\n`, { mode: 0o755 });
  return file;
}

const loggedCalls = () => fs.readFileSync(calls, "utf8").trim().split("\n");

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-pulumi-project-"));
  project = path.join(dir, "campaigns");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: spring-campaigns\nruntime: nodejs\n");
  calls = path.join(dir, "calls.log");
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("PulumiProject", () => {
  it("asks each question with one command in the project's folder, non-interactive, naming the stack", async () => {
    fs.rmSync(calls, { force: true });
    const pulumi = new PulumiProject(
      project,
      fakePulumi(
        "answers",
        `case "$1 $2" in
  "stack ls") echo '[{"name":"dev","current":false,"resourceCount":3},{"name":"prod","current":true}]' ;;
  "config --show-secrets") echo '{"directmail:apiKey":{"value":"dm_test_key","secret":true}}' ;;
  "stack export") echo '{"version":3,"deployment":{"resources":[]}}' ;;
esac`,
      ),
    );
    expect(pulumi.name()).toBe("spring-campaigns");
    expect(await pulumi.listStacks()).toEqual([
      { name: "dev", current: false },
      { name: "prod", current: true },
    ]);
    expect(await pulumi.config("dev")).toEqual({
      "directmail:apiKey": { value: "dm_test_key", secret: true },
    });
    expect(await pulumi.exportStack("dev")).toEqual({ version: 3, deployment: { resources: [] } });
    expect(await pulumi.exportStack("dev", { showSecrets: true })).toEqual({
      version: 3,
      deployment: { resources: [] },
    });
    expect(loggedCalls()).toEqual([
      `${project} stack ls --json --non-interactive`,
      `${project} config --show-secrets --json --stack dev --non-interactive`,
      `${project} stack export --stack dev --non-interactive`,
      `${project} stack export --show-secrets --stack dev --non-interactive`,
    ]);
  });

  it("takes a preview's events as the CLI streams them in JSON, one a line", async () => {
    fs.rmSync(calls, { force: true });
    const events = [
      { sequence: 0, preludeEvent: { config: {} } },
      { sequence: 1, resourcePreEvent: { metadata: { op: "create", urn: "urn:a", type: "t" } } },
      { sequence: 2, diagnosticEvent: { severity: "warning", message: "careful\n" } },
    ];
    const lines = events.map((e) => JSON.stringify(e)).join("\n");
    const pulumi = new PulumiProject(
      project,
      fakePulumi(
        "preview",
        `[ "$PULUMI_ENABLE_STREAMING_JSON_PREVIEW" = true ] || { echo "not streaming" >&2; exit 1; }
printf '%s\\n' '${lines}'`,
      ),
    );
    const seen: EngineEvent[] = [];
    await pulumi.preview("dev", (event) => seen.push(event));
    expect(seen).toEqual(events);
    expect(loggedCalls()).toEqual([`${project} preview --stack dev --json --non-interactive`]);
  });

  it("passes over a line that is not an event, and stops at an event it cannot read", async () => {
    const seen: EngineEvent[] = [];
    const warned = new PulumiProject(
      project,
      fakePulumi("warned", `echo "warning: A new version of Pulumi is available."\necho '{"sequence":0}'`),
    );
    await warned.preview("dev", (event) => seen.push(event));
    expect(seen).toEqual([{ sequence: 0 }]);

    const cut = new PulumiProject(project, fakePulumi("cut", `echo '{"sequence":0,"resourcePreEv'`));
    await expect(cut.preview("dev", () => {})).rejects.toThrow(SyntaxError);
  });

  it("fails with what pulumi said, which the commands' messages keep", async () => {
    const pulumi = new PulumiProject(
      project,
      fakePulumi(
        "refuses",
        'echo "error: passphrase must be set with PULUMI_CONFIG_PASSPHRASE" >&2\nexit 255',
      ),
    );
    const failure = await pulumi.config("dev").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PulumiCommandError);
    expect((failure as PulumiCommandError).message).toBe(
      "pulumi config --show-secrets --json --stack dev exited with code 255",
    );
    expect((failure as PulumiCommandError).stderr).toBe(
      "error: passphrase must be set with PULUMI_CONFIG_PASSPHRASE\n",
    );
    expect(pulumiMessage(failure)).toMatch(/^the stack's secrets are encrypted with the passphrase given/);

    const other = new PulumiProject(
      project,
      fakePulumi("broken", 'echo "line 1" >&2\necho "error: no stack" >&2\nexit 1'),
    );
    expect(pulumiMessage(await other.exportStack("dev").catch((e: unknown) => e))).toBe(
      "line 1 error: no stack",
    );
  });

  it("says how to get the CLI when there is none", async () => {
    const pulumi = new PulumiProject(project, path.join(dir, "no-such-pulumi"));
    await expect(pulumi.listStacks()).rejects.toThrow(
      "the pulumi CLI is not installed, or not on PATH: install it (https://www.pulumi.com/docs/install/) or add its folder to PATH",
    );
  });

  it("interrupts an aborted preview as Ctrl-C does (SIGINT), so that pulumi stops what it started", async () => {
    const started = path.join(dir, "started");
    const interrupted = path.join(dir, "interrupted");
    const pulumi = new PulumiProject(
      project,
      fakePulumi(
        "slow",
        `trap 'touch "${interrupted}"; exit 130' INT
touch "${started}"
while true; do sleep 0.05; done`,
      ),
    );
    const stop = new AbortController();
    const running = pulumi.preview("dev", () => {}, stop.signal);
    while (!fs.existsSync(started)) await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort();
    await expect(running).rejects.toThrow("pulumi preview --stack dev --json exited with code 130");
    expect(fs.existsSync(interrupted)).toBe(true);
  });

  it("interrupts at once a preview whose signal was aborted before it started", async () => {
    const pulumi = new PulumiProject(project, fakePulumi("endless", "while true; do sleep 0.05; done"));
    await expect(pulumi.preview("dev", () => {}, AbortSignal.abort())).rejects.toThrow(
      /^pulumi preview --stack dev --json (stopped by SIGINT|exited with code 130)$/,
    );
  });
});
