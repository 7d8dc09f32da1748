/**
 * The generated SDKs' tools for the tests: the scripts that generate and build them, and Go, which
 * the toolchain needs anyway (it builds the Pulumi CLI), found as scripts/toolchain.sh finds it.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "./package";

const execFileAsync = promisify(execFile);

/** Runs a command; on failure the error carries its whole output, which is what says why. */
export async function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, {
      cwd: options.cwd ?? repoRoot,
      env: options.env ?? process.env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed:\n${stdout ?? ""}${stderr ?? ""}`);
  }
}

/** The `go` command: on PATH, or where the toolchain's machines have it. */
export function goCommand(): string {
  for (const dir of [...(process.env.PATH ?? "").split(path.delimiter), "/usr/local/go/bin"]) {
    const candidate = path.join(dir, "go");
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  throw new Error(
    "Go is not installed: the Go SDK is compiled with it, and scripts/toolchain.sh builds the Pulumi CLI " +
      "with it too. Install Go >= 1.25 (https://go.dev/dl/, into /usr/local/go or onto PATH) and run again.",
  );
}

/** Every file under `dir`, relative to it, sorted. */
export function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}
