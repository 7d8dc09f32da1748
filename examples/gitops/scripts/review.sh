#!/usr/bin/env bash
# Reviews the change from BASE (a git ref, default origin/main) to the working tree with
# `directmail review`: the plan of the stack, the campaign files at both ends, and the live service
# (exact prices, dropped recipients, proofs of the drafts). Changes nothing. Writes review/review.md,
# review/review.json and the proofs under review/proofs/.
#
# Exit 0 when the change may be deployed, and says whether it spends money or has a step that
# cannot be undone (a checkout, automation recipients, a paid order leaving the stack): deploying
# such a change needs approval. In GitHub Actions that answer is the step output `spends`.
# Exit 1 on problems: invalid files, a price above maxTotal, an unreachable service.
#   usage: scripts/review.sh [BASE]     stack: PULUMI_STACK, or the selected one
set -euo pipefail
cd "$(dirname "$0")/.."

base="${1:-origin/main}"
args=(review --out review)
if git rev-parse --verify --quiet "$base^{commit}" >/dev/null 2>&1; then
  args+=(--base "$base")
else
  echo "review: no commit '$base' to compare with: the report compares with the stack as deployed" >&2
fi
if [ -n "${PULUMI_STACK:-}" ]; then args+=(--stack "$PULUMI_STACK"); fi

status=0
npx --no directmail "${args[@]}" || status=$?
case "$status" in
  0) spends=false ;;
  3) spends=true ;; # directmail review's exit code for spending or irreversible steps
  *) exit "$status" ;;
esac
if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "spends=$spends" >>"$GITHUB_OUTPUT"; fi
if [ "$spends" = true ]; then
  echo "review: this change spends money or cannot be undone; deploying it needs approval (review/review.md)"
else
  echo "review: this change spends nothing (review/review.md)"
fi
