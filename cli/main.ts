import { Command } from "commander";
import { packageVersion } from "../provider/version";
import { registerInitCommand } from "./init-command";
import { registerOrdersCommand } from "./orders-command";
import { note } from "./output";
import { registerReportCommand } from "./report-command";
import { registerReviewCommand } from "./review-command";
import { registerSandboxCommand } from "./sandbox-command";
import { registerScansCommand } from "./scans-command";
import { registerServiceCommands } from "./service-commands";
import { registerStatusCommand } from "./status-command";
import { registerValidateCommand } from "./validate-command";

/**
 * The `directmail` command line. Each subcommand lives in its own module of this folder and
 * registers itself here.
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
  registerServiceCommands(program);
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
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    note(`directmail: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
