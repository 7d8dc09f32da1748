import * as path from "node:path";
import type { Command } from "commander";
import { runReview, shownPath } from "./review/index";
import { EXIT } from "./review/model";

interface ReviewCommandOptions {
  cwd?: string;
  stack?: string;
  base?: string;
  out: string;
  campaigns?: string;
  showPersonalData?: boolean;
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
      "--show-personal-data",
      "show recipients' names and addresses (by default only their keys and rows)",
    )
    .action(async (options: ReviewCommandOptions) => {
      const { review, markdown, files } = await runReview({
        cwd: path.resolve(options.cwd ?? "."),
        out: options.out,
        showPersonalData: options.showPersonalData === true,
        ...(options.stack !== undefined ? { stack: options.stack } : {}),
        ...(options.base !== undefined ? { base: options.base } : {}),
        ...(options.campaigns !== undefined ? { campaigns: options.campaigns } : {}),
      });
      const shown = shownPath;
      const proofs = review.campaigns.filter((c) => c.proof).length;
      const verdict = {
        [EXIT.nothingToApprove]: "spends nothing and has no step that cannot be undone",
        [EXIT.needsApproval]: "spends money or has a step that cannot be undone: it needs approval",
        [EXIT.problems]: "has problems",
      }[review.exitCode];
      console.log(
        [
          `${review.campaigns.length} campaign${review.campaigns.length === 1 ? "" : "s"} of stack ${review.stack}: ` +
            `the change ${verdict} (exit code ${review.exitCode})`,
          `wrote ${shown(files.markdown)} (${markdown.length} characters), ${shown(files.json)}, ` +
            `${proofs} proof${proofs === 1 ? "" : "s"} in ${shown(files.proofs)}`,
          `service ${review.service.baseUrl} (${review.service.settingsFrom})`,
        ].join("\n"),
      );
      process.exitCode = review.exitCode;
    });
}
