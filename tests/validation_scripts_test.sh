#!/usr/bin/env bash
# The validation cases written by scripts/make_{tfbench,cscs,dlperf,fleetx,bert,mlperf}_validation.py
# (every measured number quoted there with its source) are the shipped ones: the
# scripts run again into a scratch folder must write validation/ byte for byte,
# but for the mgsim version stamped in each trace's provenance.
#   usage: validation_scripts_test.sh <path-to-mgsim> <repo-root>
set -euo pipefail
source "$(dirname "$0")/cli_lib.sh" "$@"

if [[ $HAVE_PYTHON == 0 ]]; then
  echo "SKIP: no python3"
  exit 0
fi
mkdir -p out/traces
for source in tfbench cscs dlperf fleetx bert mlperf; do
  if python3 "$ROOT/scripts/make_${source}_validation.py" --mgsim "$MGSIM" --out out >"$source.log" 2>&1; then
    pass "make_${source}_validation.py runs"
  else
    fail "make_${source}_validation.py runs" "$(tail -3 "$source.log")"
  fi
done
unstamped() { grep -v '"mgsim_version":' "$1"; }
differing=()
for written in out/*.json out/traces/*.json; do
  shipped=$ROOT/validation/${written#out/}
  if [[ ! -f $shipped ]] || ! cmp -s <(unstamped "$written") <(unstamped "$shipped"); then differing+=("${written#out/}"); fi
done
if (( ${#differing[@]} == 0 )); then
  pass "the $(ls out/*.json | wc -l) cases and $(ls out/traces | wc -l) traces they write are the shipped ones"
else
  fail "the scripts write the shipped cases and traces" "differ: ${differing[*]:0:5}"
fi
finish
