#!/usr/bin/env bash
# Posts the review as the pull request's one comment: the comment posted before (found by a hidden
# marker) is updated in place, so a pull request never collects one comment per push. Uses the
# GitHub CLI (`gh`) with a token that may write pull-request comments (GH_TOKEN); the repository is
# GH_REPO, or the one of the current folder's git remote.
#   usage: scripts/comment.sh PULL_REQUEST_NUMBER [REPORT]    (REPORT default: review/review.md)
set -euo pipefail
cd "$(dirname "$0")/.."

pr="${1:?usage: scripts/comment.sh PULL_REQUEST_NUMBER [REPORT]}"
report="${2:-review/review.md}"
marker="<!-- directmail-review -->"
link=""
if [ -n "${GITHUB_RUN_ID:-}" ]; then
  link="${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY}/actions/runs/${GITHUB_RUN_ID}"
fi

body="$(mktemp)"
trap 'rm -f "$body"' EXIT
# The marker, the report and a link to the run's artifacts, within GitHub's 65,536 characters.
node - "$report" "$marker" "$link" >"$body" <<'JS'
const fs = require("node:fs");
const [report, marker, link] = process.argv.slice(2);
const LIMIT = 65536;
const head = `${marker}\n`;
const tail = link ? `\n\nProofs and the whole report: the \`review\` artifact of [this run](${link}).\n` : "\n";
let text = fs.readFileSync(report, "utf8").trimEnd();
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
      let input = "";
      process.stdin.on("data", (chunk) => (input += chunk)).on("end", () => {
        const found = JSON.parse(input).flat().find((c) => String(c.body).includes(process.argv[1]));
        if (found) console.log(found.id);
      });' "$marker"
)"
if [ -n "$existing" ]; then
  gh api --method PATCH "repos/{owner}/{repo}/issues/comments/$existing" -F "body=@$body" >/dev/null
  echo "comment: updated the review comment $existing of pull request #$pr"
else
  gh api --method POST "repos/{owner}/{repo}/issues/$pr/comments" -F "body=@$body" >/dev/null
  echo "comment: posted the review comment on pull request #$pr"
fi
