/**
 * What the benchmark parts that drive the real CLI share: a sandbox in a process of its own
 * (`directmail sandbox`, in memory) and the environment of an offline `pulumi` run against it. The
 * programs, campaign files and timed commands of the parts that deploy campaigns are in
 * engine-stack.ts.
 */
import * as fs from "node:fs";
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
