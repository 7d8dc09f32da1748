import type { Command } from "commander";

export interface StackOptions {
  cwd?: string;
  stack?: string;
}

/** `--cwd` and `--stack`: which project's stack configuration gives the service and the key. */
export function withStackOptions(command: Command): Command {
  return command
    .option("--cwd <dir>", "the Pulumi project folder (default: the working directory)")
    .option("--stack <name>", "the stack whose configuration to read (default: the selected stack)");
}
