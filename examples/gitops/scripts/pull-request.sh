#!/usr/bin/env bash
# A pull request as data: this checkout (main: its code, its installed package, its scripts) over
# the campaign folder of the pull request merged into it. Nothing of the pull request runs: its
# commits are read with git, from PR_CHECKOUT (a checkout of its head), and only regular files of
# its campaign folder are taken.
#
#   scripts/pull-request.sh classify PR_CHECKOUT
#       whether the pull request gets the priced review (with the stack's secrets): only when it
#       comes from this repository (FROM_FORK is not true) and alters campaign files only. In
#       GitHub Actions the answer is the step output `priced` (true or false).
#   scripts/pull-request.sh prepare PR_CHECKOUT
#       replaces the campaign folder of the working tree with the one of the pull request merged
#       into HEAD; fails on a merge conflict or on an entry that is not a regular file.
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: scripts/pull-request.sh classify|prepare PR_CHECKOUT"
command="${1:?$usage}"
checkout="${2:?$usage}"
campaigns="${CAMPAIGNS_DIR:-campaigns}"
ref=refs/directmail/pull-request

# The pull request's commits, as objects of this repository: a local fetch, no credentials.
git fetch --quiet --no-tags "$checkout" "+HEAD:$ref"

case "$command" in
classify)
  changes="$(bash scripts/code-changes.sh HEAD "$ref")"
  priced=true
  if [ "${FROM_FORK:-false}" = true ]; then
    priced=false
    echo "pull-request: it comes from a fork"
  fi
  if [ -n "$changes" ]; then
    priced=false
    echo "pull-request: it changes code:"
    printf '%s\n' "$changes" | sed 's/^/  /'
  fi
  if [ "$priced" = true ]; then
    echo "pull-request: campaign files only, from this repository: the priced review, with the stack's secrets"
  else
    echo "pull-request: the offline review, without a secret; deploying it after merge needs approval if it changes code"
  fi
  if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "priced=$priced" >>"$GITHUB_OUTPUT"; fi
  ;;
prepare)
  if ! merged="$(git merge-tree --write-tree HEAD "$ref")"; then
    echo "pull-request: the pull request conflicts with $(git rev-parse --abbrev-ref HEAD): merge it into the branch, then push" >&2
    exit 1
  fi
  tree="$(printf '%s\n' "$merged" | head -n 1)"
  odd="$(git ls-tree -r "$tree" -- "$campaigns" | awk '$1 != "100644" && $1 != "100755" { sub(/^[^\t]*\t/, ""); print }')"
  if [ -n "$odd" ]; then
    echo "pull-request: the campaign folder may hold regular files only; these are symbolic links or submodules:" >&2
    printf '%s\n' "$odd" | sed 's/^/  /' >&2
    exit 1
  fi
  rm -rf "$campaigns"
  if git cat-file -e "$tree:$campaigns" 2>/dev/null; then
    git archive --format=tar "$tree" -- "$campaigns" | tar -x --no-same-owner
  else
    mkdir -p "$campaigns"
  fi
  echo "pull-request: $campaigns/ is the pull request's, merged into $(git rev-parse --short HEAD); the rest is this checkout's"
  ;;
*)
  echo "$usage" >&2
  exit 2
  ;;
esac
