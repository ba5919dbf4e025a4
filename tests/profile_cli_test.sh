#!/usr/bin/env bash
# End-to-end checks of `mgsim profile`, `mgsim import` and `mgsim fit` that
# need no GPU: without a visible GPU `mgsim profile` says so in one line and
# exits 2; imported and fitted files load in `mgsim run`; the training helper
# parses its arguments without PyTorch.
#   usage: profile_cli_test.sh <path-to-mgsim> <repo-root>
set -uo pipefail

source "$(dirname "$0")/cli_lib.sh" "$@"
DATA="$ROOT/tests/data"

# `mgsim profile` with every GPU hidden: one line, "no CUDA GPU found", exit 2, no file.
no_gpu() {  # no_gpu NAME ARGS...
  local name=$1
  shift
  local out rc
  out=$(CUDA_VISIBLE_DEVICES= "$MGSIM" profile "$@" -o "$WORK/$name.json" 2>&1)
  rc=$?
  if [[ $rc -ne 2 ]]; then
    fail "profile $name without GPU exits 2" "exit $rc: $out"
  elif [[ $(printf '%s\n' "$out" | wc -l) -ne 1 || $out != "mgsim: error: no CUDA GPU found ("*")" ]]; then
    fail "profile $name without GPU prints one line" "$out"
  elif [[ -e "$WORK/$name.json" ]]; then
    fail "profile $name without GPU writes nothing"
  else
    pass "profile $name without GPU: $out"
  fi
}
no_gpu layers layers --model resnet50 --batch 64 --precision bf16
no_gpu allreduce allreduce

run_ok() {  # run_ok NAME COMMAND...
  local name=$1
  shift
  local out
  if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$out"; fi
}

# Importers, then the imported files in a simulation.
run_ok "import nccl-tests" "$MGSIM" import nccl-tests "$DATA/nccl-tests-allreduce-8gpu-new.txt" -o nccl8.json
run_ok "import nccl-tests --in-place" "$MGSIM" import nccl-tests "$DATA/nccl-tests-allreduce-2gpu-old.txt" \
  --in-place -o nccl2.json
run_ok "import osu" "$MGSIM" import osu "$DATA/osu-bcaffe-k80-allreduce2.log" -o osu2.json
run_ok "import kineto" "$MGSIM" import kineto "$DATA/kineto-two-linear-steps.json" --model two-linear --batch 64 \
  -o kineto.json
cat >run-measured.json <<JSON
{"trace": "kineto.json", "gpus": [2, 8], "collective": "measured", "curves": ["nccl2.json", "nccl8.json"],
 "schedules": ["wfbp", "mgwfbp"]}
JSON
run_ok "run on imported trace and curves" "$MGSIM" run -c run-measured.json

# Fit, and use what it prints and writes.
run_ok "fit the shipped K80 curves" "$MGSIM" fit "$ROOT/traces/googlenet-k80-allreduce.json" -o fit.txt \
  --curve-out fitted.json
if grep -q "breakpoint between 8 KiB and 12 KiB" fit.txt; then
  pass "fit finds the 8 KB protocol switch"
else
  fail "fit finds the 8 KB protocol switch" "$(cat fit.txt)"
fi
run_ok "fit --format json" "$MGSIM" fit osu2.json --format json -o fit.json
network=$(python3 -c 'import json,sys; print(json.dumps(json.load(open("fit.json"))["all_gpu_counts"]["nccl"]["network"]))' \
  2>/dev/null || echo '{"alpha_us": 1, "beta_s_per_byte": 1e-9}')
cat >run-nccl.json <<JSON
{"trace": "$ROOT/traces/googlenet-k80.json", "gpus": [2, 4, 8], "collective": "nccl", "network": $network,
 "schedules": ["wfbp", "mgwfbp"]}
JSON
run_ok "run with the calibrated nccl model" "$MGSIM" run -c run-nccl.json
cat >run-fitted.json <<JSON
{"trace": "$ROOT/traces/googlenet-k80.json", "gpus": [2, 4, 8], "collective": "measured", "curves": ["fitted.json"],
 "schedules": ["mgwfbp"]}
JSON
run_ok "run with the piecewise fit as a curve" "$MGSIM" run -c run-fitted.json

# Bad input: one error line, exit 2.
out=$("$MGSIM" import osu "$DATA/osu-bcaffe-k80-allreduce4.log" -o x.json 2>&1)
rc=$?
if [[ $rc -eq 2 && $out == "mgsim: error: "*"give --gpus"* && ! -e x.json ]]; then
  pass "import osu without rank count fails cleanly"
else
  fail "import osu without rank count fails cleanly" "exit $rc: $out"
fi

# The training helper parses its arguments without importing PyTorch.
if command -v python3 >/dev/null 2>&1; then
  run_ok "helper --help" python3 "$ROOT/profiler/mgsim_profile_model.py" --help
fi

finish
