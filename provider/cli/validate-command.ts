import * as fs from "node:fs/promises";
import * as path from "node:path";
import type { Command } from "commander";
import {
  type CampaignProblem,
  formatProblems,
  listCampaignFiles,
  loadCampaignFiles,
} from "../campaign/loader";

/**
 * `directmail validate <files or folders...>`: the checks `pulumi up` runs before it changes
 * anything (YAML, schema, recipient files and rows, unique names), for the CI of a campaign
 * repository. Problems go to stderr as `path:line:column: message`; exit code 1 on any problem.
 */
export function registerValidateCommand(program: Command): void {
  program
    .command("validate")
    .description("Check campaign files (and the recipient files they name) without changing anything.")
    .argument("<paths...>", "campaign files, or folders whose *.yaml and *.yml files are checked")
    .action(async (paths: string[]) => {
      const { summary, problems } = await validate(paths);
      if (problems.length > 0) {
        process.stderr.write(`${formatProblems(problems)}\n`);
        process.stderr.write(`${problems.length} problem${problems.length === 1 ? "" : "s"}; ${summary}\n`);
        process.exitCode = 1;
      } else {
        process.stdout.write(`${summary}\n`);
      }
    });
}

export async function validate(paths: string[]): Promise<{ summary: string; problems: CampaignProblem[] }> {
  const files: string[] = [];
  const problems: CampaignProblem[] = [];
  for (const given of paths) {
    const absolute = path.resolve(given);
    const stat = await fs.stat(absolute).catch(() => undefined);
    if (stat === undefined) {
      problems.push({ file: absolute, line: 1, column: 1, message: "not found" });
    } else if (stat.isDirectory()) {
      try {
        files.push(...(await listCampaignFiles(absolute)));
      } catch (error) {
        problems.push({
          file: absolute,
          line: 1,
          column: 1,
          message: `cannot be read: ${(error as Error).message}`,
        });
      }
    } else {
      files.push(absolute);
    }
  }
  const loaded = await loadCampaignFiles(files);
  problems.push(...loaded.problems);
  const count = loaded.campaigns.length;
  const campaigns = `${count} campaign${count === 1 ? "" : "s"}`;
  return { summary: problems.length > 0 ? `${campaigns} without problems` : `${campaigns} OK`, problems };
}
