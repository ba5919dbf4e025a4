#!/usr/bin/env bash
# cmake/version.cmake, the version `mgsim --version` and every report carry:
# the project version outside a git checkout, `git describe` without the
# tag's "v" in one, the project version and the commit when no v* tag is
# reachable, "-dirty" with uncommitted changes.
#   usage: version_test.sh <repo-root>
set -euo pipefail
SCRIPT=$(realpath "$1")/cmake/version.cmake
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mgsim-version_test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FAILURES=0

version_of() {  # version_of SOURCE-DIR: the version the script writes for it
  cmake -DSOURCE_DIR="$1" -DOUTPUT="$WORK/version.cpp" -DFALLBACK_VERSION=1.2.3 -P "$SCRIPT"
  sed -n 's/.*return "\(.*\)";.*/\1/p' "$WORK/version.cpp"
}
check() {  # check WHAT GOT EXPECTED
  if [[ $2 == "$3" ]]; then echo "PASS: $1: $2"; else echo "FAIL: $1: got '$2', expected '$3'"; FAILURES=$((FAILURES + 1)); fi
}

mkdir "$WORK/tarball"
check "outside a git checkout" "$(version_of "$WORK/tarball")" 1.2.3

if command -v git >/dev/null 2>&1; then
  repo=$WORK/repo
  git init -q "$repo"
  g() { git -C "$repo" -c user.name=test -c user.email=test@example.com -c commit.gpgsign=false "$@"; }
  echo a >"$repo/file" && g add file && g commit -qm one
  one=$(g rev-parse --short=7 HEAD)
  check "a commit, no tag" "$(version_of "$repo")" "1.2.3-g$one"
  g tag v2.0.0
  check "at tag v2.0.0" "$(version_of "$repo")" 2.0.0
  echo b >"$repo/file" && g commit -qam two
  two=$(g rev-parse --short=7 HEAD)
  check "one commit after v2.0.0" "$(version_of "$repo")" "2.0.0-1-g$two"
  echo c >"$repo/file"
  check "uncommitted changes" "$(version_of "$repo")" "2.0.0-1-g$two-dirty"
  mkdir "$repo/vendored"
  check "a tarball unpacked inside another repository" "$(version_of "$repo/vendored")" 1.2.3
fi
[[ $FAILURES == 0 ]] || { echo "version_test: $FAILURES check(s) FAILED"; exit 1; }
echo "version_test: all checks passed"
