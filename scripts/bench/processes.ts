/**
 * What the benchmark parts that drive the real CLI share: a sandbox in a process of its own
 * (`directmail sandbox`, in memory), and the environment of an offline `pulumi` run against it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";

const repoRoot = path.resolve(__dirname, "../../..");

/**
 * `directmail sandbox --port 0 --data :memory: --quiet` and `extraArgs`, started; `first` is its
 * first stdout line, parsed (the URL, and with `--seed demo` the key and template ids).
 */
export async function startSandbox(
  extraArgs: string[] = [],
): Promise<{ url: string; first: Record<string, any>; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      path.join(repoRoot, "bin/directmail.js"),
      "sandbox",
      "--port",
      "0",
      "--data",
      ":memory:",
      "--quiet",
      ...extraArgs,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  const first = JSON.parse(line);
  return { url: first.url, first, child };
}

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
