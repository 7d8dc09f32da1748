/**
 * What the benchmark parts that drive the real CLI share: a sandbox in a process of its own
 * (`directmail sandbox`, in memory) and the environment of an offline `pulumi` run against it. The
 * programs, campaign files and timed commands of the parts that deploy campaigns are in
 * engine-stack.ts.
 */
import type { ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
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

/**
 * Peak RSS (VmHWM) of each running process whose command line has `marker` and whose working folder
 * is `cwd`, by pid, in KiB.
 */
export function peaksOf(marker: string, cwd: string, peaks: Map<number, number>): void {
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) continue;
      if (fs.readlinkSync(`/proc/${entry}/cwd`) !== cwd) continue;
      const kib = Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${entry}/status`, "utf8"))?.[1]);
      if (kib > (peaks.get(Number(entry)) ?? 0)) peaks.set(Number(entry), kib);
    } catch {
      // Gone meanwhile.
    }
  }
}

const repoRoot = path.resolve(__dirname, "../../..");

/**
 * The folders of a part that runs programs: `root` under the repository, as the e2e programs are
 * (`pulumi-directmail` resolves to this package), and `state` for the backend; `cleanUp` removes
 * both and stops `sandbox`, and runs too when the part is interrupted.
 */
export function programFolders(
  part: string,
  sandbox: ChildProcess,
): { root: string; state: string; cleanUp: () => void } {
  fs.mkdirSync(path.join(repoRoot, ".pulumi-test"), { recursive: true });
  const root = fs.mkdtempSync(path.join(repoRoot, ".pulumi-test", `bench-${part}-`));
  const state = fs.mkdtempSync(path.join(os.tmpdir(), `directmail-bench-${part}-`));
  const cleanUp = () => {
    sandbox.kill();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(state, { recursive: true, force: true });
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      cleanUp();
      process.exit(130);
    });
  }
  return { root, state, cleanUp };
}
