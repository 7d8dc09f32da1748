#!/usr/bin/env bash
# Reviews the change from BASE (a git ref, default origin/main) to the working tree with
# `directmail review`: the plan of the stack, the campaign files at both ends, and the live service
# (exact prices, dropped recipients, proofs of the drafts). Changes nothing. Writes review.md,
# review.json and the proofs under proofs/ in OUT (default review/), removing those of an earlier
# run first, so that a report there comes from this run.
#
# --offline PR_CHECKOUT: the review without the stack and the service, from the campaign files
# alone (no secret is needed or read), for a pull request whose head is checked out in PR_CHECKOUT
# (scripts/pull-request.sh): the code it changes is named in the report, flagged "code changed".
#
# Exit 0 when the change may be deployed, and says whether it spends money or has a step that
# cannot be undone (a checkout, automation recipients, an address book entry, a paid order leaving
# the stack, changed code): deploying such a change needs approval. In GitHub Actions that answer is the step output
# `spends`. Exit 1 on problems: invalid files, a price above maxTotal, an unreachable service.
#   usage: scripts/review.sh [--out OUT] [--offline PR_CHECKOUT] [BASE]     stack: PULUMI_STACK, or the selected one
set -euo pipefail
cd "$(dirname "$0")/.."

out=review
offline=""
while [ $# -gt 0 ]; do
  case "$1" in
  --out) out="${2:?--out needs a folder}" && shift 2 ;;
  --offline) offline="${2:?--offline needs the checkout of the pull request}" && shift 2 ;;
  *) break ;;
  esac
done
base="${1:-origin/main}"

rm -f "$out/review.md" "$out/review.json"
args=(review --out "$out")
if git rev-parse --verify --quiet "$base^{commit}" >/dev/null 2>&1; then
  args+=(--base "$base")
else
  echo "review: no commit '$base' to compare with: the report compares with the stack as deployed" >&2
fi
if [ -n "$offline" ]; then
  changes="$(mktemp)"
  trap 'rm -f "$changes"' EXIT
  git fetch --quiet --no-tags "$offline" "+HEAD:refs/directmail/pull-request"
  GITHUB_OUTPUT="" bash scripts/code-changes.sh "$base" refs/directmail/pull-request >"$changes"
  args+=(--offline --code-changes "$changes")
elif [ -n "${PULUMI_STACK:-}" ]; then
  args+=(--stack "$PULUMI_STACK")
fi

status=0
npx --no directmail "${args[@]}" || status=$?
case "$status" in
  0) spends=false ;;
  3) spends=true ;; # directmail review's exit code for spending or irreversible steps
  *) exit "$status" ;;
esac
if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "spends=$spends" >>"$GITHUB_OUTPUT"; fi
if [ "$spends" = true ]; then
  echo "review: this change spends money or cannot be undone; deploying it needs approval ($out/review.md)"
else
  echo "review: this change spends nothing ($out/review.md)"
fi
