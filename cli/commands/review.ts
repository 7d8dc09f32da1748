import * as fs from "node:fs";
import * as path from "node:path";
import type { Command } from "commander";
import { say } from "../output";
import { EXIT } from "../review/model";
import { runReview } from "../review/run-review";
import { shownPath } from "../stack/shown-path";

interface ReviewCommandOptions {
  cwd?: string;
  stack?: string;
  base?: string;
  out: string;
  campaigns?: string;
  showPersonalData?: boolean;
  offline?: boolean;
  codeChanges?: string;
}

/**
 * `directmail review`: the report of a change for its pull request (review.md, review.json, the
 * drafts' proofs). Exit code 0: the change spends nothing and has no irreversible step; 3: it spends
 * money or has an irreversible step (a pipeline requires approval); 1: problems. See docs/review.md.
 */
export function registerReviewCommand(program: Command): void {
  program
    .command("review")
    .description(
      "Report what a change of the campaigns will do: the plan, the recipients added, removed and changed " +
        "since --base, the exact price of each checkout, the drop reports and the drafts' proofs. " +
        `Exit code ${EXIT.nothingToApprove}: spends nothing; ${EXIT.needsApproval}: spends money or cannot be undone; ` +
        `${EXIT.problems}: problems.`,
    )
    .option("--cwd <dir>", "the Pulumi project folder (default: the working directory)")
    .option("--stack <name>", "the stack (default: the selected stack)")
    .option("--base <ref>", "the git ref to compare the campaign files with (origin/main, say)")
    .option("--out <dir>", "where to write review.md, review.json and proofs/", "review")
    .option(
      "--campaigns <dir>",
      "the campaign folder, relative to the project (default: the stack's campaignsDir, else campaigns)",
    )
    .option(
      "--offline",
      "review from the campaign files alone: no stack, no service, no secret (a pull request that changes code)",
    )
    .option(
      "--code-changes <file>",
      "with --offline: a file listing the paths the change alters outside the campaign files, one a line",
    )
    .option(
      "--show-personal-data",
      "show recipients' names and addresses (by default only their keys and rows)",
    )
    .action(async (options: ReviewCommandOptions) => {
      if (options.codeChanges !== undefined && !options.offline) {
        throw new Error("--code-changes goes with --offline: a priced review runs the code it reviews");
      }
      if (options.offline && options.stack !== undefined) {
        throw new Error("--offline reads no stack: leave out --stack");
      }
      const { review, markdown, files } = await runReview({
        cwd: path.resolve(options.cwd ?? "."),
        out: options.out,
        showPersonalData: options.showPersonalData === true,
        ...(options.stack !== undefined ? { stack: options.stack } : {}),
        ...(options.base !== undefined ? { base: options.base } : {}),
        ...(options.campaigns !== undefined ? { campaigns: options.campaigns } : {}),
        ...(options.offline ? { offline: { codeChanges: readCodeChanges(options.codeChanges) } } : {}),
      });
      const shown = shownPath;
      const proofs = review.campaigns.filter((c) => c.proof).length;
      const verdict = {
        [EXIT.nothingToApprove]: "spends nothing and has no step that cannot be undone",
        [EXIT.needsApproval]: "spends money or has a step that cannot be undone: it needs approval",
        [EXIT.problems]: "has problems",
      }[review.exitCode];
      const of = review.stack !== null ? `of stack ${review.stack}` : "reviewed offline";
      say(
        [
          `${review.campaigns.length} campaign${review.campaigns.length === 1 ? "" : "s"} ${of}: ` +
            `the change ${verdict} (exit code ${review.exitCode})`,
          `wrote ${shown(files.markdown)} (${markdown.length} characters), ${shown(files.json)}` +
            (review.service ? `, ${proofs} proof${proofs === 1 ? "" : "s"} in ${shown(files.proofs)}` : ""),
          review.service
            ? `service ${review.service.baseUrl} (${review.service.settingsFrom})`
            : "no stack, no service, no secret: the campaign files alone",
        ].join("\n"),
      );
      process.exitCode = review.exitCode;
    });
}

/** The paths of --code-changes: one a line, blank lines left out. */
function readCodeChanges(file: string | undefined): string[] {
  if (file === undefined) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}
