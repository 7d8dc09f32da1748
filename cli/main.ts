import { Command } from "commander";
import { packageVersion } from "../provider/version";
import { registerInitCommand } from "./init-command";
import { registerOrdersCommand } from "./orders-command";
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

export async function main(argv: string[]): Promise<void> {
  await buildProgram().parseAsync(argv);
}
