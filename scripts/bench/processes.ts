/**
 * What the benchmark parts that drive the real CLI share: a sandbox in a process of its own
 * (`directmail sandbox`, in memory), the environment of an offline `pulumi` run against it, a
 * timed `pulumi` command, the campaign files they deploy, and the median of rounds.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { startSandboxProcess } from "../sandbox-process";

/** `directmail sandbox` in memory with `extraArgs`, started (see startSandboxProcess). */
export const startSandbox = (extraArgs: string[] = []) =>
  startSandboxProcess(["--data", ":memory:", ...extraArgs]);

/**
 * The environment of a `pulumi` command on a file backend under `stateDir` (its folder made here),
 * with a home of its own (nothing of the user's ~/.pulumi is read or written), offline, against
 * the sandbox `target`.
 */
export function offlinePulumiEnv(
  stateDir: string,
  target: { url: string; apiKey: string },
): NodeJS.ProcessEnv {
  fs.mkdirSync(path.join(stateDir, "backend"), { recursive: true });
  return {
    ...process.env,
    PULUMI_BACKEND_URL: `file://${path.join(stateDir, "backend")}`,
    PULUMI_HOME: path.join(stateDir, "home"),
    PULUMI_CONFIG_PASSPHRASE: "bench",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    DIRECTMAIL_BASE_URL: target.url,
    DIRECTMAIL_API_KEY: target.apiKey,
  };
}

/** A Pulumi project a part runs commands in, and their environment. */
export interface BenchProject {
  name: string;
  dir: string;
  env: NodeJS.ProcessEnv;
}

/**
 * `pulumi ARGS --non-interactive --color never` in the project: its wall time in seconds and what it
 * printed; a failure throws with its output.
 */
export async function timedPulumi(
  project: BenchProject,
  args: string[],
): Promise<{ seconds: number; stdout: string }> {
  const started = performance.now();
  try {
    const { stdout } = await promisify(execFile)(
      "pulumi",
      [...args, "--non-interactive", "--color", "never"],
      {
        cwd: project.dir,
        env: project.env,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    return { seconds: (performance.now() - started) / 1000, stdout };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `pulumi ${args.join(" ")} of ${project.name} failed: ${e.stdout ?? ""}${e.stderr ?? e.message}`,
    );
  }
}

/** The median of the rounds' times. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return Number.isInteger(middle)
    ? ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
    : (sorted[Math.floor(middle)] as number);
}

/**
 * A campaign file of ten inline recipients (with `custom1`, which the demo seed's postcard prints)
 * from `templateId`, with a checkout when `pay`.
 */
export function benchCampaignYaml(name: string, templateId: number, options: { pay: boolean }): string {
  const rows = Array.from(
    { length: 10 },
    (_, i) =>
      `      - { firstName: Ada${i}, lastName: ${name}, address1: ${i + 1} Main St, city: Springfield, state: IL, zipCode: "62701", custom1: Hi }`,
  );
  return [
    "apiVersion: directmail/v1",
    "kind: Campaign",
    "metadata:",
    `  name: ${name}`,
    "spec:",
    "  order:",
    `    templateId: ${templateId}`,
    "  recipients:",
    "    inline:",
    ...rows,
    ...(options.pay ? ["  checkout:", "    postageType: Standard", "    productionSpeed: Normal"] : []),
    "",
  ].join("\n");
}
