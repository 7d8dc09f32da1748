#!/usr/bin/env bash
# Lists what a change alters besides campaign data: every path outside the campaign folder (code:
# index.ts, package.json and its lockfile, scripts/, the workflow), every entry of the campaign
# folder that is not a regular file (a symbolic link or a submodule can lead outside it), and git's
# own files in it (.gitattributes can hide or rewrite campaign files). One path a
# line on stdout; empty when the change alters campaign files only. In GitHub Actions the answer is
# also the step output `code-changed` (true or false).
#
# A change that alters code is never run with a secret before it is merged and approved: its pull
# request gets the offline review, and its deploy waits for approval. After merge, the workflow runs
# this script as it was before the push, so that a change cannot decide how it is judged.
#   usage: scripts/code-changes.sh BASE HEAD     (git commits; the campaign folder: CAMPAIGNS_DIR, default campaigns)
set -euo pipefail

base="${1:?usage: scripts/code-changes.sh BASE HEAD}"
head="${2:?usage: scripts/code-changes.sh BASE HEAD}"
campaigns="${CAMPAIGNS_DIR:-campaigns}"

answer() {
  if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "code-changed=$1" >>"$GITHUB_OUTPUT"; fi
}

# What the change brings is measured from where it left the base (a branch behind main brings
# nothing of main's newer commits).
if ! from="$(git merge-base "$base" "$head" 2>/dev/null)"; then
  echo "code-changes: $base and $head have no common history: everything counts as changed" >&2
  echo "."
  answer true
  exit 0
fi

changes="$(
  {
    git diff --name-only --no-renames "$from" "$head" -- . ":(exclude)$campaigns"
    # Entries of the campaign folder other than regular files (mode 100644 or 100755), and git's
    # own files (.git, .gitattributes, .gitmodules, in any case), which change how git stores or
    # checks out the campaign files: configuration, not data.
    git ls-tree -r "$head" -- "$campaigns" | awk '{
      path = $0; sub(/^[^\t]*\t/, "", path)
      if (($1 != "100644" && $1 != "100755") || tolower(path) ~ /(^|\/)\.git(attributes|modules)?[. ]*(\/|$)/) print path
    }'
  } | sort -u
)"
if [ -n "$changes" ]; then
  printf '%s\n' "$changes"
  count="$(printf '%s\n' "$changes" | wc -l)"
  echo "code-changes: the change alters $count path$([ "$count" -eq 1 ] || echo s) besides the campaign files" >&2
  answer true
else
  echo "code-changes: the change alters campaign files only" >&2
  answer false
fi
