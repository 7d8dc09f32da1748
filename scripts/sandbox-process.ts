/**
 * `directmail sandbox` in a process of its own, as the scripts start it (the demo, the benchmark
 * parts that drive the real CLI): on a free port, quiet, ready once it has printed its first line.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import * as readline from "node:readline";

const repoRoot = path.resolve(__dirname, "../..");

/**
 * `directmail sandbox --port 0 --quiet` and `args`, started; `first` is its first stdout line,
 * parsed (the URL, and with `--seed demo` the key and template ids). With `requestLog`, the sandbox
 * is not quiet and each line of its request log (stderr) goes to that function instead.
 */
export async function startSandboxProcess(
  args: string[],
  options: { requestLog?: (line: string) => void } = {},
  // biome-ignore lint/suspicious/noExplicitAny: the first line's fields depend on the options (a seed adds the key and template ids); callers read those they asked for.
): Promise<{ url: string; first: Record<string, any>; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      path.join(repoRoot, "bin/directmail.js"),
      "sandbox",
      "--port",
      "0",
      ...(options.requestLog ? [] : ["--quiet"]),
      ...args,
    ],
    { stdio: ["ignore", "pipe", options.requestLog ? "pipe" : "inherit"] },
  );
  if (options.requestLog && child.stderr)
    readline.createInterface({ input: child.stderr }).on("line", options.requestLog);
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve);
    child.once("exit", (code) =>
      reject(new Error(`the sandbox exited with code ${code} before it was ready`)),
    );
  });
  const first = JSON.parse(line);
  return { url: first.url, first, child };
}
