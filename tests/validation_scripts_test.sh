#!/usr/bin/env bash
# The validation traces and cases written by scripts/make_validation_traces.py and
# scripts/make_{tfbench,cscs,dlperf,fleetx,bert,mlperf}_validation.py
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
for script in make_validation_traces make_{tfbench,cscs,dlperf,fleetx,bert,mlperf}_validation; do
  if python3 "$ROOT/scripts/$script.py" --mgsim "$MGSIM" --out out >"$script.log" 2>&1; then
    pass "$script.py runs"
  else
    fail "$script.py runs" "$(tail -3 "$script.log")"
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
