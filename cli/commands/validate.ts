import * as fs from "node:fs/promises";
import * as path from "node:path";
import { type Command, Option } from "commander";
import {
  type CampaignProblem,
  formatProblems,
  listCampaignFiles,
  loadCampaignFiles,
} from "../../provider/campaign/loader";
import { checkCampaignsOnline } from "../../provider/campaign/online-check";
import { displayPath } from "../../provider/campaign/problem";
import { campaignFolderRoot, type FileRoot } from "../../provider/file-root";
import { type ServiceFacts, serviceFacts } from "../../provider/lookups/facts";
import { note, say } from "../output";
import { serviceSettings, withClient } from "../stack/settings";

/**
 * `directmail validate <files or folders...>`: the checks `pulumi up` runs before it changes
 * anything (YAML, schema, recipient files and rows, unique names), for the CI of a campaign
 * repository. Problems go to stderr as `path:line:column: message`, or with `--format github` to
 * stdout as GitHub Actions annotations (`::error file=…,line=…,col=…::message`, shown on the lines
 * of the pull request's diff); exit code 1 on any problem. The rows the service will drop by its
 * address rules are warnings (`path:line:column: warning: …`, `::warning …`), which fail nothing
 * unless they are more than the campaign's maxDroppedPercent: that is a problem.
 *
 * `--online` also checks the files against the live account (provider/campaign/online-check.ts):
 * the template, the font, the QR settings and the merge fields the template prints. The account is
 * the one `pulumi up` would use (the selected stack's configuration, else the environment).
 */
export function registerValidateCommand(program: Command): void {
  program
    .command("validate")
    .description("Check campaign files (and the recipient files they name) without changing anything.")
    .argument("<paths...>", "campaign files, or folders whose *.yaml and *.yml files are checked")
    .addOption(
      new Option("--format <format>", "text: path:line:column: message; github: GitHub Actions annotations")
        .choices(["text", "github"])
        .default("text"),
    )
    .option(
      "--online",
      "also check against the live account: the template, the font, the QR settings, and the merge fields the " +
        "template prints (read from the account's templates; offline they are not known)",
    )
    .option("--cwd <dir>", "with --online: the Pulumi project whose stack names the account")
    .option("--stack <name>", "with --online: the stack whose configuration to read")
    .action(
      async (
        paths: string[],
        options: { format: "text" | "github"; online?: boolean; cwd?: string; stack?: string },
      ) => {
        const { summary, problems, warnings } = options.online
          ? await validateOnline(paths, options)
          : await validate(paths);
        // Warnings, then problems: what refuses the files is read last, beside the summary.
        const found = [...warnings, ...problems];
        if (found.length > 0) {
          if (options.format === "github") {
            // Workflow commands are read from stdout; the summary stays where it always is.
            say(formatProblems(found, undefined, githubAnnotation));
          } else {
            // Each list grouped by file on its own: a file's warnings never count among its problems.
            for (const list of [warnings, problems]) if (list.length > 0) note(formatProblems(list));
          }
        }
        if (problems.length > 0) {
          note(summary);
          process.exitCode = 1;
        } else {
          say(summary);
        }
      },
    );
}

/** validate, then the campaigns that passed against the account of the stack (or the environment). */
async function validateOnline(
  paths: string[],
  options: { cwd?: string; stack?: string },
): Promise<{ summary: string; problems: CampaignProblem[]; warnings: CampaignProblem[] }> {
  const settings = await serviceSettings(options);
  const result = await withClient(settings, (client) =>
    validate(paths, serviceFacts(client, settings.apiKey as string)),
  );
  return { ...result, summary: `${result.summary}, against the account at ${settings.baseUrl}` };
}

/**
 * A problem as a GitHub Actions error annotation (a warning as a warning annotation). The runner reads `%`, CR and LF escaped in the
 * message, and `,` and `:` too in a property (the file's path).
 */
export function githubAnnotation(problem: CampaignProblem, shownPath: string): string {
  const data = (text: string) => text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
  const property = (text: string) => data(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
  const kind = problem.warning ? "warning" : "error";
  return `::${kind} file=${property(shownPath)},line=${problem.line},col=${problem.column}::${data(problem.message)}`;
}

export async function validate(
  paths: string[],
  online?: ServiceFacts,
): Promise<{ summary: string; problems: CampaignProblem[]; warnings: CampaignProblem[] }> {
  const files = new Set<string>();
  // A folder given is the root of its files, as a stack's campaign folder is; a file given alone
  // has its Pulumi project folder as its root (the loader's default).
  const folderOf = new Map<string, FileRoot>();
  const problems: CampaignProblem[] = [];
  for (const given of paths) {
    const absolute = path.resolve(given);
    const stat = await fs.stat(absolute).catch(() => undefined);
    if (stat === undefined) {
      problems.push({ file: absolute, line: 1, column: 1, message: "not found" });
    } else if (stat.isDirectory()) {
      try {
        const root = campaignFolderRoot(absolute, displayPath(absolute));
        for (const file of await listCampaignFiles(absolute)) {
          files.add(file);
          folderOf.set(file, root);
        }
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
  // validate shows no digest: the recipients' contents are not hashed but to judge a repeated key.
  const loaded = await loadCampaignFiles([...files], {
    root: (file) => folderOf.get(file),
    contentDigests: false,
  });
  // Not push(...list): a file can have more problems than a call takes arguments.
  for (const problem of loaded.problems) problems.push(problem);
  const invalidFiles = new Set(loaded.invalidFiles);
  if (online) {
    const found = await checkCampaignsOnline(loaded.campaigns, online);
    for (const problem of found) invalidFiles.add(problem.file);
    for (const problem of found) problems.push(problem);
  }
  return {
    summary: summarize({
      files: files.size,
      invalidFiles: invalidFiles.size,
      campaigns: loaded.campaigns.length,
      unreadablePaths,
      problems: problems.length,
      drops: loaded.campaigns.reduce((n, c) => n + (c.predictedDrops?.dropped ?? 0), 0),
    }),
    problems,
    warnings: loaded.warnings,
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
  /** Recipients the service will drop, over every campaign. */
  drops: number;
}): string {
  const results = [`${counts.files - counts.invalidFiles} valid`];
  if (counts.invalidFiles > 0) results.push(`${counts.invalidFiles} with problems`);
  if (counts.unreadablePaths > 0)
    results.push(`${plural(counts.unreadablePaths, "path")} not found or unreadable`);
  const detail =
    counts.problems > 0 ? plural(counts.problems, "problem") : plural(counts.campaigns, "campaign");
  const drops =
    counts.drops > 0
      ? `; the service will drop ${plural(counts.drops, "recipient")} (the warnings above)`
      : "";
  return `checked ${plural(counts.files, "campaign file")}: ${results.join(", ")} (${detail})${drops}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
