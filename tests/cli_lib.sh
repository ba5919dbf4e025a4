# Shared by the end-to-end shell tests: reads <path-to-mgsim> <repo-root>,
# makes a work folder (removed on exit; KEEP=1 keeps it) and enters it, and
# counts checks. A test sources it with its own arguments and ends with
# `finish`:
#   source "$(dirname "$0")/cli_lib.sh" "$@"

if [[ $# -ne 2 ]]; then
  echo "usage: $0 <path-to-mgsim> <repo-root>" >&2
  exit 2
fi
MGSIM=$(realpath "$1")
ROOT=$(realpath "$2")
[[ -x "$MGSIM" ]] || { echo "FAIL: $MGSIM is not an executable" >&2; exit 1; }
TEST_NAME=$(basename "$0" .sh)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mgsim-$TEST_NAME.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
[[ -n "${KEEP:-}" ]] && trap - EXIT
cd "$WORK"

FAILURES=0
pass() { echo "PASS: $1"; }
fail() {
  echo "FAIL: $1${2:+ ($2)}"
  FAILURES=$((FAILURES + 1))
}

HAVE_PYTHON=0
if command -v python3 >/dev/null 2>&1; then HAVE_PYTHON=1; fi

# Prints the summary and exits non-zero when a check failed.
finish() {
  if [[ $FAILURES != 0 ]]; then
    echo "$TEST_NAME: $FAILURES check(s) FAILED"
    exit 1
  fi
  echo "$TEST_NAME: all checks passed"
}
