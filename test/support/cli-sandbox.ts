/**
 * `directmail sandbox` as a user runs it: the compiled CLI (dist/, built before the tests) in a child
 * process, over real HTTP. Tests kill it, restart it, load it and probe it from outside, so nothing
 * of the process under test is shared with the test.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createInterface } from "node:readline";

export const ROOT = path.resolve(__dirname, "../..");
const BIN = path.join(ROOT, "bin/directmail.js");

export interface CliSandbox {
  url: string;
  /** The first line the command printed on stdout, parsed (url, and with `--seed` the key and ids). */
  first: Record<string, any>;
  child: ChildProcess;
  /** What the process wrote on stderr so far. */
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL, then waits for the exit. */
  kill9(): Promise<void>;
  /** SIGTERM (a clean close), then waits for the exit. */
  stop(): Promise<void>;
}

/** Starts `directmail sandbox` with these arguments and waits for its first line. */
export async function spawnCliSandbox(args: string[]): Promise<CliSandbox> {
  if (!fs.existsSync(path.join(ROOT, "dist/cli/main.js"))) throw new Error("run `npm run build` first");
  const child = spawn(process.execPath, [BIN, "sandbox", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr?.on("data", (d) => {
    err += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    rl.once("line", (l) => resolve(l));
    child.once("exit", (code) => reject(new Error(`sandbox exited (${code}) before its first line: ${err}`)));
  });
  const ended = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  const first = JSON.parse(line);
  return {
    url: first.url,
    first,
    child,
    stderr: () => err,
    exited,
    kill9: () => ended("SIGKILL"),
    stop: () => ended("SIGTERM"),
  };
}

/** Starts `directmail sandbox --port 0 --quiet` with `--data <data>` and the extra arguments. */
export function startCliSandbox(data: string, args: string[] = []): Promise<CliSandbox> {
  return spawnCliSandbox(["--port", "0", "--quiet", "--data", data, ...args]);
}

/** A scratch folder under the OS temp dir; remove it with `fs.rmSync(dir, { recursive: true })`. */
export function scratchDir(name: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `directmail-${name}-`));
}
