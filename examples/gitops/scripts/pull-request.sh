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
#       into HEAD, byte for byte as git stores it: the files that `pulumi up` reads after merge.
#       Fails on a merge conflict, on an entry that is not a regular file, on git's own files
#       (.git, .gitattributes, .gitmodules) in the folder, on an attribute that would change a
#       campaign file when the deploy checks it out, and when the folder written is not exactly
#       the merged tree's.
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: scripts/pull-request.sh classify|prepare PR_CHECKOUT"
command="${1:?$usage}"
checkout="${2:?$usage}"
campaigns="${CAMPAIGNS_DIR:-campaigns}"
campaigns="${campaigns#./}"
campaigns="${campaigns%/}"
ref=refs/directmail/pull-request

# The pull request's commits, as objects of this repository: a local fetch, no credentials.
git fetch --quiet --no-tags "$checkout" "+HEAD:$ref"

# The campaign folder of TREE, written as git stores it. Never `git archive` or a checkout: both
# obey the tree's own .gitattributes, so a pull request could leave a file out of the review
# (export-ignore) or rewrite it (export-subst, filters, ident, line endings) while `pulumi up` reads
# it as committed. Each file is its blob (`git cat-file`, which applies no attribute), and what was
# written is checked against the tree.
prepare_campaigns() {
  local tree="$1" work listing expected odd="" control="" entry meta path mode oid name
  work="$(mktemp -d)"
  # shellcheck disable=SC2064 # expanded now: the folder of this call
  trap "rm -rf '$work'" EXIT
  listing="$work/listing"
  expected="$work/expected"
  : >"$expected"
  git --literal-pathspecs ls-tree -r -z --full-tree "$tree" -- "$campaigns" >"$listing"
  while IFS= read -r -d '' entry; do
    meta="${entry%%$'\t'*}"
    path="${entry#*$'\t'}"
    mode="${meta%% *}"
    oid="${meta##* }"
    if [ "$mode" != 100644 ] && [ "$mode" != 100755 ]; then odd+="  $path"$'\n'; fi
    # git's own names (any case, as a case-insensitive disk reads them), and names no checkout
    # could write where the tree says.
    IFS=/ read -r -a parts <<<"${path#"$campaigns"/}"
    for name in "${parts[@]}"; do
      shopt -s nocasematch
      if [[ "$name" =~ ^\.git(attributes|modules)?[.\ ]*$ || "$name" = . || "$name" = .. || -z "$name" ]]; then
        control+="  $path"$'\n'
      fi
      shopt -u nocasematch
    done
    if [[ "$path" != "$campaigns"/* || "$path" == *[$'\001'-$'\037'$'\177']* ]]; then control+="  $path"$'\n'; fi
    printf '%s %s\n' "$oid" "$path" >>"$expected"
  done <"$listing"
  if [ -n "$odd" ]; then
    echo "pull-request: the campaign folder may hold regular files only; these are symbolic links or submodules:" >&2
    printf '%s' "$odd" | sort -u >&2
    exit 1
  fi
  if [ -n "$control" ]; then
    echo "pull-request: the campaign folder may not hold git's own files (.git, .gitattributes, .gitmodules), control characters or names that are not plain paths under $campaigns/:" >&2
    printf '%s' "$control" | sort -u >&2
    echo "  They change how git stores or checks out the campaign files, so the review could read other files than the deploy. Remove them from the pull request (git rm --cached -- PATH); attributes the repository needs belong in its .gitattributes, outside $campaigns/." >&2
    exit 1
  fi
  transforming_attributes "$tree" "$work"

  rm -rf "$campaigns"
  mkdir -p "$campaigns"
  while IFS= read -r -d '' entry; do
    meta="${entry%%$'\t'*}"
    path="${entry#*$'\t'}"
    mkdir -p "$(dirname "$path")"
    git cat-file blob "${meta##* }" >"$path"
    if [ "${meta%% *}" = 100755 ]; then chmod +x "$path"; fi
  done <"$listing"

  # What is on disk now, as blob ids: exactly the merged tree's campaign files, or the step fails.
  local written="$work/written"
  if [ -n "$(find "$campaigns" ! -type f ! -type d -print -quit)" ]; then
    echo "pull-request: $campaigns/ holds entries that are not files after the extraction:" >&2
    find "$campaigns" ! -type f ! -type d | sed 's/^/  /' >&2
    exit 1
  fi
  find "$campaigns" -type f | LC_ALL=C sort >"$work/files"
  paste -d ' ' <(git hash-object --no-filters --stdin-paths <"$work/files") "$work/files" >"$written"
  LC_ALL=C sort -k 2 "$expected" -o "$expected"
  if ! cmp -s "$expected" "$written"; then
    echo "pull-request: $campaigns/ as written is not the merged tree's campaign folder (blob id, path; - the tree, + the folder):" >&2
    diff "$expected" "$written" | sed -n 's/^</  -/p; s/^>/  +/p' >&2
    exit 1
  fi
}

# Fails when an attribute of the merged tree (its .gitattributes files, read from a temporary
# index) would make a checkout of a campaign file differ from its blob: the deploy checks the
# commit out, so the file `pulumi up` reads would not be the one reviewed. The runner's own
# attributes file is not the pull request's and is left out.
transforming_attributes() {
  local tree="$1" work="$2" found="" path attribute value
  GIT_INDEX_FILE="$work/index" git read-tree "$tree"
  cut -d ' ' -f 2- "$work/expected" | tr '\n' '\0' |
    GIT_INDEX_FILE="$work/index" git -c core.attributesFile=/dev/null check-attr --cached -z --stdin \
      filter ident working-tree-encoding eol >"$work/attributes"
  while IFS= read -r -d '' path && IFS= read -r -d '' attribute && IFS= read -r -d '' value; do
    case "$attribute=$value" in
    *=unspecified | *=unset | eol=lf) ;;
    *) found+="  $path: $attribute${value:+=$value}"$'\n' ;;
    esac
  done <"$work/attributes"
  if [ -n "$found" ]; then
    echo "pull-request: attributes of the merged tree would change these campaign files when the deploy checks them out, so it would read other bytes than the review:" >&2
    printf '%s' "$found" | sed 's/=set$//' >&2
    echo "  Remove these attributes for $campaigns/ from the .gitattributes files (filter, ident, working-tree-encoding, eol=crlf): campaign files are deployed as committed." >&2
    exit 1
  fi
}

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
  prepare_campaigns "$(printf '%s\n' "$merged" | head -n 1)"
  echo "pull-request: $campaigns/ is the pull request's, merged into $(git rev-parse --short HEAD); the rest is this checkout's"
  ;;
*)
  echo "$usage" >&2
  exit 2
  ;;
esac
