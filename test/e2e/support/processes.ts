/**
 * The processes of one `pulumi` run, found through /proc by a marker in their environment, which
 * the CLI passes on to the plugins it starts and they to their children.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

export interface RunProcess {
  pid: number;
  cmdline: string;
}

/** The live (not zombie) processes whose environment holds `<marker>=<run>`. */
export function processesOfRun(marker: string, run: string): RunProcess[] {
  const needle = `${marker}=${run}`;
  const found: RunProcess[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = fs.readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      if (!environ.includes(needle)) continue;
      // The state follows the parenthesized command name: "pid (comm) S ...".
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
      found.push({ pid: Number(entry), cmdline });
    } catch {
      // The process exited while being read, or is not ours to read.
    }
  }
  return found;
}

/** The dynamic provider's process (node running @pulumi/pulumi's dynamic-provider host). */
export const isDynamicProvider = (p: RunProcess) =>
  /^node .*\/@pulumi\/pulumi\/cmd\/dynamic-provider\//.test(p.cmdline);

/** The provider plugin's process (`pulumi-resource-directmail`, which Pulumi runs from PATH). */
export const isProviderPlugin = (p: RunProcess) => /^node \S*\/pulumi-resource-directmail\b/.test(p.cmdline);

/** Polls `probe` every 100 ms until it gives a value; fails after `seconds`. */
export async function waitFor<T>(
  what: string,
  seconds: number,
  probe: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${seconds} s waiting for ${what}`);
    await sleep(100);
  }
}

/** `pulumi up` of the stack `e2e` in `workDir`, as a user starts it, to be interrupted; `exited` settles when it ends. */
export function spawnUp(stack: { workDir: string; env: Record<string, string> }): {
  cli: ChildProcess;
  exited: Promise<unknown>;
} {
  const cli = spawn("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", "e2e"], {
    cwd: stack.workDir,
    env: stack.env,
    stdio: "ignore",
  });
  return { cli, exited: new Promise((resolve) => cli.on("exit", resolve)) };
}
