/**
 * `pulumi up` under the real CLI, killed with SIGKILL at a chosen moment: the `pulumi` process
 * itself, or the provider's process of the run, the dynamic provider or the provider plugin (found
 * by a marker in its environment, test/e2e/support/processes.ts). The stack must be created with `env: { [RUN_MARKER]: run }`.
 */
import { spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { isDynamicProvider, isProviderPlugin, processesOfRun } from "../../e2e/support/processes";
import type { TestStack } from "../../e2e/support/pulumi";

export const RUN_MARKER = "DIRECTMAIL_SOAK_RUN";

export type KillTarget = "pulumi" | "provider";

export interface KilledUp {
  output: string;
  /** Exit code of `pulumi` (null when it was killed). */
  code: number | null;
  /** Whether the kill happened (false when `when` never held before `pulumi` exited). */
  killed: boolean;
}

/**
 * Runs `pulumi up --yes --skip-preview` and kills `target` with SIGKILL as soon as `when` holds
 * (asked with the output so far on every chunk and every 100 ms). Resolves once `pulumi` exited.
 */
export function upKilled(
  t: TestStack,
  run: string,
  target: KillTarget,
  when: (output: string) => boolean | Promise<boolean>,
): Promise<KilledUp> {
  const child = spawn("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", "e2e"], {
    cwd: t.workDir,
    env: t.env,
  });
  let output = "";
  let killed = false;
  let exited = false;
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const kill = () => {
    if (target === "pulumi") {
      child.kill("SIGKILL");
      return true;
    }
    const providers = processesOfRun(RUN_MARKER, run).filter(
      (p) => isDynamicProvider(p) || isProviderPlugin(p),
    );
    for (const p of providers) process.kill(p.pid, "SIGKILL");
    return providers.length > 0;
  };
  const watch = (async () => {
    const deadline = Date.now() + 180_000;
    while (!exited && !killed) {
      if (await when(output)) killed = kill();
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`pulumi up never reached the moment to kill ${target}:\n${output}`);
      }
      await sleep(100);
    }
  })();
  return exit.then(async (code) => {
    exited = true;
    await watch;
    return { output, code, killed };
  });
}
