/**
 * The processes of one `pulumi` run, found through /proc by a marker in their environment, which
 * the CLI passes on to the plugins it starts and they to their children.
 */
import * as fs from "node:fs";

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
