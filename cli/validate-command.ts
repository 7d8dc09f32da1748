import * as fs from "node:fs/promises";
import * as path from "node:path";
import type { Command } from "commander";
import {
  type CampaignProblem,
  formatProblems,
  listCampaignFiles,
  loadCampaignFiles,
} from "../provider/campaign/loader";

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
        process.stderr.write(`${formatProblems(problems)}\n${summary}\n`);
        process.exitCode = 1;
      } else {
        process.stdout.write(`${summary}\n`);
      }
    });
}

export async function validate(paths: string[]): Promise<{ summary: string; problems: CampaignProblem[] }> {
  const files = new Set<string>();
  const problems: CampaignProblem[] = [];
  for (const given of paths) {
    const absolute = path.resolve(given);
    const stat = await fs.stat(absolute).catch(() => undefined);
    if (stat === undefined) {
      problems.push({ file: absolute, line: 1, column: 1, message: "not found" });
    } else if (stat.isDirectory()) {
      try {
        for (const file of await listCampaignFiles(absolute)) files.add(file);
      } catch (error) {
        problems.push({
          file: absolute,
          line: 1,
          column: 1,
          message: `cannot be read: ${(error as Error).message}`,
        });
      }
    } else {
      files.add(absolute);
    }
  }
  const unreadablePaths = problems.length;
  const loaded = await loadCampaignFiles([...files]);
  problems.push(...loaded.problems);
  return {
    summary: summarize({
      files: files.size,
      invalidFiles: loaded.invalidFiles.length,
      campaigns: loaded.campaigns.length,
      unreadablePaths,
      problems: problems.length,
    }),
    problems,
  };
}

/**
 * What was checked, then what failed: "checked 5 campaign files: 3 valid, 2 with problems (4
 * problems)"; "checked 2 campaign files: 2 valid (3 campaigns)".
 */
function summarize(counts: {
  files: number;
  invalidFiles: number;
  campaigns: number;
  unreadablePaths: number;
  problems: number;
}): string {
  const results = [`${counts.files - counts.invalidFiles} valid`];
  if (counts.invalidFiles > 0) results.push(`${counts.invalidFiles} with problems`);
  if (counts.unreadablePaths > 0)
    results.push(`${plural(counts.unreadablePaths, "path")} not found or unreadable`);
  const detail =
    counts.problems > 0 ? plural(counts.problems, "problem") : plural(counts.campaigns, "campaign");
  return `checked ${plural(counts.files, "campaign file")}: ${results.join(", ")} (${detail})`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
