#!/usr/bin/env bash
# Posts the review as the pull request's one comment: the comment this pipeline posted before
# (written by its own identity, and starting with a hidden marker) is updated in place, so a pull
# request never collects one comment per push, and nobody else's comment is ever touched. Uses the
# GitHub CLI (`gh`) with a token that may write pull-request comments (GH_TOKEN); the repository is
# GH_REPO, or the one of the current folder's git remote.
#
# The report is REPORT_DIR/review.md, written by scripts/review.sh in this run (it removes the
# reports of an earlier run first). OUTCOME is the review step's outcome: when it is not `success`,
# the comment says that the review failed, above the report when there is one, or that it did not
# run (`skipped`), without any report.
#   usage: scripts/comment.sh PULL_REQUEST_NUMBER [REPORT_DIR [OUTCOME]]   (default: review success)
# The identity: COMMENT_AUTHOR, else github-actions[bot] in GitHub Actions, else `gh api user`'s login.
set -euo pipefail
cd "$(dirname "$0")/.."

pr="${1:?usage: scripts/comment.sh PULL_REQUEST_NUMBER [REPORT_DIR [OUTCOME]]}"
report="${2:-review}/review.md"
outcome="${3:-success}"
marker="<!-- directmail-review -->"
link=""
if [ -n "${GITHUB_RUN_ID:-}" ]; then
  link="${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY}/actions/runs/${GITHUB_RUN_ID}"
fi
author="${COMMENT_AUTHOR:-}"
if [ -z "$author" ] && [ "${GITHUB_ACTIONS:-}" = true ]; then author="github-actions[bot]"; fi
if [ -z "$author" ]; then author="$(gh api user --jq .login)"; fi

body="$(mktemp)"
trap 'rm -f "$body"' EXIT
# The marker once, the report (or what failed) and a link to the run, within GitHub's 65,536
# characters. A marker inside the report is removed: only the first line marks the comment.
node - "$report" "$outcome" "$marker" "$link" >"$body" <<'JS'
const fs = require("node:fs");
const [report, outcome, marker, link] = process.argv.slice(2);
const LIMIT = 65536;
const head = `${marker}\n`;
const run = link ? `[this run](${link})` : "this run";
const tail = link ? `\n\nProofs and the whole report: the \`review\` artifact of ${run}.\n` : "\n";
let text = fs.existsSync(report) ? fs.readFileSync(report, "utf8").split(marker).join("").trim() : "";
if (outcome === "skipped") {
  text = `**❌ The review did not run**: a step before it failed; the log of ${run} says why.`;
} else if (outcome !== "success") {
  const failed = text
    ? `**❌ The review failed** (${outcome}): the report below may be incomplete; the log of ${run} says why.`
    : `**❌ The review failed** (${outcome}) before it wrote a report: the log of ${run} says why.`;
  text = text ? `${failed}\n\n${text}` : failed;
}
const room = LIMIT - head.length - tail.length;
if (text.length > room) {
  const cut = "\n\n_The report was shortened to fit in a comment; the artifact holds all of it._";
  text = text.slice(0, room - cut.length) + cut;
}
process.stdout.write(head + text + tail);
JS

existing="$(
  gh api --paginate --slurp "repos/{owner}/{repo}/issues/$pr/comments?per_page=100" |
    node -e '
      const [marker, author] = process.argv.slice(1);
      let input = "";
      process.stdin.on("data", (chunk) => (input += chunk)).on("end", () => {
        const ours = JSON.parse(input).flat().find(
          (c) => c.user?.login === author && String(c.body).startsWith(`${marker}\n`),
        );
        if (ours) console.log(ours.id);
      });' "$marker" "$author"
)"
if [ -n "$existing" ]; then
  gh api --method PATCH "repos/{owner}/{repo}/issues/comments/$existing" -F "body=@$body" >/dev/null
  echo "comment: updated the review comment $existing of pull request #$pr"
else
  gh api --method POST "repos/{owner}/{repo}/issues/$pr/comments" -F "body=@$body" >/dev/null
  echo "comment: posted the review comment on pull request #$pr"
fi
