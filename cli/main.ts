import { Command } from "commander";
import { installInCommand } from "../provider/runtime";
import { packageVersion } from "../provider/version";
import { registerInitCommand } from "./commands/init";
import { registerOrdersCommand } from "./commands/orders";
import { registerProofCommand } from "./commands/proof";
import { registerReportCommand } from "./commands/report";
import { registerReviewCommand } from "./commands/review";
import { registerSandboxCommand } from "./commands/sandbox";
import { registerScansCommand } from "./commands/scans";
import { registerStatusCommand } from "./commands/status";
import { registerValidateCommand } from "./commands/validate";
import { registerWhoamiCommand } from "./commands/whoami";
import { note } from "./output";

/**
 * The `directmail` command line. Each subcommand lives in its own module of `commands/` and is
 * registered here, in the order `directmail --help` lists them.
 */
export function buildProgram(): Command {
  const program = new Command("directmail")
    .description(
      "Direct-mail campaigns as code: a local sandbox of the service, validation, review, proofs, status.",
    )
    .version(packageVersion());
  registerInitCommand(program);
  registerSandboxCommand(program);
  registerValidateCommand(program);
  registerWhoamiCommand(program);
  registerProofCommand(program);
  registerReviewCommand(program);
  registerReportCommand(program);
  registerStatusCommand(program);
  registerOrdersCommand(program);
  registerScansCommand(program);
  return program;
}

/**
 * Runs the command line. A failure is one line on stderr, `directmail: <what is wrong and what to
 * do>`, never a stack trace, with exit code 1; what it quotes passes through the terminal filter.
 */
export async function main(argv: string[]): Promise<void> {
  // The command's process: the runtime's patches (docs/architecture.md, "The runtime's patches").
  installInCommand();
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    note(`directmail: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
