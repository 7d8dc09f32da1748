/**
 * A user's own project in a temporary folder outside the repository, that installs the packed
 * package with npm (its cache serves what it holds): the sandbox and the `directmail` command run
 * from the installed package, and `pulumi` runs offline on a file backend of the project's own.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";
import { execFileAsync } from "./package";
import { readStackFile, stackOutputsOf } from "./state-file";

/**
 * A new temporary folder, in memory where the machine has /dev/shm: a project writes (and the end
 * deletes) a node_modules of some 280 packages, several times faster than on disk.
 */
export function scratchDir(prefix: string): string {
  const scratch = fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir();
  return fs.mkdtempSync(path.join(scratch, prefix));
}

/** `npm install ARGS` in `dir`, from npm's cache where it can. */
export async function npmInstall(dir: string, ...args: string[]): Promise<void> {
  await execFileAsync(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", ...args],
    { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
  ).catch((error) => {
    throw new Error(`npm install ${args.join(" ")} failed in ${dir}:\n${error.stdout}${error.stderr}`);
  });
}

/**
 * The installed `directmail` command, run in `dir` (through node: /dev/shm may forbid executing
 * files). Rejects with the exit code, stdout and stderr on failure.
 */
export function installedDirectmail(
  dir: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ stdout: string; stderr: string }> {
  return execFileAsync(process.execPath, [path.join(dir, "node_modules/.bin/directmail"), ...args], {
    cwd: dir,
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
}

export interface InstalledSandbox {
  url: string;
  apiKey: string;
  templates: { postcard: number; letter: number };
  stop(): void;
}

/** `directmail sandbox` of the installed package, seeded with the demo account, on a free port. */
export async function startInstalledSandbox(dir: string): Promise<InstalledSandbox> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      path.join(dir, "node_modules/.bin/directmail"),
      "sandbox",
      "--port",
      "0",
      "--seed",
      "demo",
      "--data",
      path.join(dir, ".sandbox"),
      "--quiet",
    ],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`directmail sandbox exited with ${code}: ${stderr}`)));
  });
  const seed = JSON.parse(line);
  return { url: seed.url, apiKey: seed.apiKey, templates: seed.templates, stop: () => child.kill() };
}

/**
 * The environment under which `pulumi` runs in the project: offline, on a file backend of its own.
 */
export function pulumiEnv(dir: string, passphrase: string): NodeJS.ProcessEnv {
  fs.mkdirSync(path.join(dir, ".state"), { recursive: true });
  return {
    ...process.env,
    PULUMI_BACKEND_URL: `file://${path.join(dir, ".state")}`,
    PULUMI_HOME: path.join(dir, ".pulumi-home"),
    PULUMI_CONFIG_PASSPHRASE: passphrase,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  };
}

/** Runs `pulumi ARGS --non-interactive` in the project (`pulumiEnv`'s); resolves to its stdout. */
export function pulumiIn(dir: string, passphrase: string) {
  const env = pulumiEnv(dir, passphrase);
  return async (...args: string[]): Promise<string> => {
    const { stdout } = await execFileAsync("pulumi", [...args, "--non-interactive"], {
      cwd: dir,
      env,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error) => {
      throw new Error(`pulumi ${args.join(" ")} failed:\n${error.stdout}${error.stderr}`);
    });
    return stdout;
  };
}

/**
 * The arguments of `pulumi config set-all` that point the stack at `sandbox` with its key, the key
 * encrypted as `config set --secret` does: both values in one CLI start.
 */
export function serviceConfigArgs(sandbox: Pick<InstalledSandbox, "url" | "apiKey">): string[] {
  return [
    "config",
    "set-all",
    "--plaintext",
    `directmail:baseUrl=${sandbox.url}`,
    "--secret",
    `directmail:apiKey=${sandbox.apiKey}`,
  ];
}

/**
 * The outputs of the one stack of the file backend at `stateDir` (`pulumiEnv`'s is `<dir>/.state`),
 * as its state file holds them: what `pulumi stack output --json` prints, without a CLI start (a
 * secret output stays ciphertext here).
 */
export function stateOutputs(stateDir: string): Record<string, any> {
  return stackOutputsOf(readStackFile(stateDir).checkpoint);
}
