#!/usr/bin/env bash
# Acceptance check: every shipped config's output is byte-identical to the
# goldens in tests/golden/<config>/. A run config is checked in every report
# format (table, csv, json) and with --timeline (the Chrome trace and the
# table printed beside it); a sweep config by its CSV. mgsim's version in them
# is replaced by VERSION (normalize_version). The Chrome traces are kept
# gzipped (timeline.json.gz, up to 2 MiB of JSON each) and compared unzipped,
# so a difference shows as text.
#   usage: check_outputs.sh <path-to-mgsim>            compare (CTest: golden_outputs)
#          check_outputs.sh <path-to-mgsim> --update   rewrite the goldens (only for an intended change)
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 || ( $# -eq 2 && $2 != --update ) ]]; then
  echo "usage: $0 <path-to-mgsim> [--update]" >&2
  exit 2
fi
MGSIM=$(realpath "$1")
UPDATE=${2:-}
ROOT=$(realpath "$(dirname "$0")/..")
GOLDEN=$ROOT/tests/golden
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mgsim-check-outputs.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# The goldens hold "VERSION" where outputs carry mgsim's version (the JSON
# field "mgsim_version", the CSV column of that name, last but one), so they do
# not change with every commit; any other difference, the format version
# included, still fails.
VERSION=$("$MGSIM" --version)
VERSION=${VERSION#mgsim }
VERSION_RE=$(printf '%s' "$VERSION" | sed 's/[][\\.*^$/]/\\&/g')
normalize_version() {
  sed -i -e "s/\"mgsim_version\": \"$VERSION_RE\"/\"mgsim_version\": \"VERSION\"/" \
    -e "s/,$VERSION_RE,\([0-9]*\)\$/,VERSION,\1/" "$@"
}

# Writes a config's outputs into folder $2; a config `mgsim run` refuses is taken as a sweep config.
produce() {
  local config=$1 out=$2
  mkdir -p "$out"
  if "$MGSIM" run -c "$config" >"$out/table.txt" 2>/dev/null; then
    "$MGSIM" run -c "$config" --format csv >"$out/report.csv"
    "$MGSIM" run -c "$config" --format json >"$out/report.json"
    "$MGSIM" run -c "$config" --timeline "$out/timeline.json" >"$out/timeline-table.txt"
  else
    rm -f "$out/table.txt"
    "$MGSIM" sweep -c "$config" -j 2 -o "$out/sweep.csv" >/dev/null
  fi
  normalize_version "$out"/*
}

FAILURES=0
for config in "$ROOT"/configs/*.json; do
  name=$(basename "$config" .json)
  # Cluster files for `mgsim plan` name no trace: they are not run or sweep configs.
  grep -q '"traces\?"' "$config" || continue
  produce "$config" "$WORK/$name"
  if [[ $UPDATE == --update ]]; then
    rm -rf "${GOLDEN:?}/$name"
    mkdir -p "$GOLDEN"
    cp -r "$WORK/$name" "$GOLDEN/$name"
    find "$GOLDEN/$name" -name timeline.json -exec gzip -n -9 {} +
    echo "updated: tests/golden/$name"
    continue
  fi
  [[ ! -d $GOLDEN/$name ]] || cp -r "$GOLDEN/$name" "$WORK/golden-$name"
  find "$WORK/golden-$name" -name '*.gz' -exec gunzip {} +
  if diff -r "$WORK/golden-$name" "$WORK/$name" >"$WORK/$name.diff" 2>&1; then
    echo "PASS: $name"
  else
    echo "FAIL: $name differs from tests/golden/$name:"
    head -20 "$WORK/$name.diff"
    FAILURES=$((FAILURES + 1))
  fi
done
# A golden folder without its config means a config was removed or renamed.
for folder in "$GOLDEN"/*/; do
  name=$(basename "$folder")
  [[ -f $ROOT/configs/$name.json ]] || { echo "FAIL: tests/golden/$name has no configs/$name.json"; FAILURES=$((FAILURES + 1)); }
done
[[ $FAILURES == 0 ]] || { echo "check_outputs: $FAILURES config(s) differ"; exit 1; }
echo "check_outputs: every config's output matches its goldens"
