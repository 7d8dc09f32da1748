/**
 * Runs Pulumi programs of test/e2e/programs with the real `pulumi` CLI through the Automation
 * API, offline: a file backend in a temporary folder, a fixed passphrase, no update check, no
 * plugin download. A missing CLI fails the test; it is never skipped.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type ConfigMap, LocalWorkspace, PulumiCommand, type Stack } from "@pulumi/pulumi/automation";
import { parseDocument } from "yaml";
import { readStackFile } from "../../support/state-file";

const repoRoot = path.resolve(__dirname, "../../..");

export const TEST_PASSPHRASE = "directmail-e2e-passphrase";

let command: Promise<PulumiCommand> | undefined;

/** The `pulumi` on PATH (scripts/toolchain.sh puts the project's build there). */
export function pulumiCommand(): Promise<PulumiCommand> {
  command ??= (async () => {
    let bin: string;
    try {
      bin = execFileSync("sh", ["-c", "command -v pulumi"], { encoding: "utf8" }).trim();
    } catch {
      throw new Error(
        "the pulumi CLI is not on PATH: run the tests with `npm test`, which builds and caches it",
      );
    }
    return PulumiCommand.get({ root: path.dirname(path.dirname(bin)) });
  })();
  return command;
}

export function pulumiVersion(): string {
  return execFileSync("pulumi", ["version"], { encoding: "utf8", env: offlineEnv() }).trim();
}

function offlineEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_CONFIG_PASSPHRASE: TEST_PASSPHRASE,
    // The test programs are type-checked once by `tsc -p test/tsconfig.json` (scripts/test.sh):
    // ts-node only transpiles them at each pulumi command.
    PULUMI_NODEJS_TRANSPILE_ONLY: "true",
    ...extra,
  };
}

export interface TestStack {
  stack: Stack;
  /** The copy of the program the stack runs. */
  workDir: string;
  /** The environment every pulumi command of this stack runs with (backend, home, passphrase). */
  env: Record<string, string>;
  /**
   * The stack's checkpoint exactly as the file backend stored it on disk (secrets encrypted, as a
   * leaked state file would show them), parsed and as raw text.
   */
  readStateFile(): { checkpoint: any; text: string };
  dispose(): Promise<void>;
}

/**
 * A fresh stack of test/e2e/programs/<program>. The program is copied under .pulumi-test/ in the
 * repository, so `pulumi-directmail` and `@pulumi/pulumi` resolve exactly as they do for the
 * repository's own projects, while stack files never touch the committed program.
 */
export async function createTestStack(
  program: string,
  options: {
    config?: ConfigMap;
    env?: Record<string, string>;
    /** Repository paths to copy, keeping their place, instead of test/e2e/programs/<program> (the root project). */
    from?: string[];
    /** A repository folder whose contents are the program, instead of test/e2e/programs/<program>. */
    fromDir?: string;
  } = {},
): Promise<TestStack> {
  fs.mkdirSync(path.join(repoRoot, ".pulumi-test"), { recursive: true });
  const runDir = fs.mkdtempSync(path.join(repoRoot, ".pulumi-test", `${program}-`));
  const workDir = path.join(runDir, program);
  if (options.fromDir) {
    fs.cpSync(path.join(repoRoot, options.fromDir), workDir, { recursive: true });
  } else if (options.from) {
    for (const item of options.from)
      fs.cpSync(path.join(repoRoot, item), path.join(workDir, item), { recursive: true });
  } else {
    fs.cpSync(path.join(repoRoot, "test/e2e/programs", program), workDir, { recursive: true });
  }
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-e2e-state-"));
  const homeDir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-e2e-home-"));
  const envVars = offlineEnv({
    PULUMI_BACKEND_URL: `file://${stateDir}`,
    PULUMI_HOME: homeDir,
    ...options.env,
  });
  const stack = await LocalWorkspace.createStack(
    { stackName: "e2e", workDir },
    { envVars, pulumiCommand: await pulumiCommand() },
  );
  if (options.config) {
    // Plain values go into Pulumi.<stack>.yaml directly; only secrets need the CLI, which encrypts them.
    const entries = Object.entries(options.config);
    writePlainConfig(
      { stack, workDir },
      Object.fromEntries(entries.filter(([, c]) => !c.secret).map(([key, c]) => [key, c.value])),
    );
    const secrets = entries.filter(([, c]) => c.secret);
    if (secrets.length > 0) await stack.setAllConfig(Object.fromEntries(secrets));
  }
  return {
    stack,
    workDir,
    env: envVars,
    readStateFile: () => readStackFile(stateDir),
    async dispose() {
      for (const dir of [runDir, stateDir, homeDir]) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Sets plain configuration values of the stack (undefined removes one) by editing its
 * Pulumi.<stack>.yaml as its user can, instead of a `pulumi config` command (a CLI start each):
 * the next pulumi command reads the file. A key without a namespace is the project's, as
 * `pulumi config set` reads it. Secrets still go through `stack.setConfig`, which encrypts them.
 */
export function writePlainConfig(
  t: Pick<TestStack, "stack" | "workDir">,
  values: Record<string, string | undefined>,
): void {
  const project = parseDocument(fs.readFileSync(path.join(t.workDir, "Pulumi.yaml"), "utf8")).get("name");
  const file = path.join(t.workDir, `Pulumi.${t.stack.name}.yaml`);
  const doc = parseDocument(fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "{}");
  for (const [key, value] of Object.entries(values)) {
    const name = key.includes(":") ? key : `${project}:${key}`;
    if (value === undefined) doc.deleteIn(["config", name]);
    else doc.setIn(["config", name], value);
  }
  fs.writeFileSync(file, String(doc));
}

/**
 * A fresh stack of the repository's own program (a CampaignFolder over `campaigns/`, created
 * empty) that sends to `service` with the account's key, held as the stack's secret configuration.
 */
export async function createCampaignsStack(
  name: string,
  service: { baseUrl: string; apiKey: string },
): Promise<TestStack> {
  const t = await createTestStack(name, {
    from: ["Pulumi.yaml", "program"],
    config: {
      "directmail:baseUrl": { value: service.baseUrl },
      "directmail:apiKey": { value: service.apiKey, secret: true },
      campaignsDir: { value: "campaigns" },
    },
  });
  fs.mkdirSync(path.join(t.workDir, "campaigns"));
  return t;
}
