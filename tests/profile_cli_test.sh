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

# The training helper parses its arguments without importing PyTorch, and
# trains under tests/fake_torch (sleeps for forward 3 ms, backward 4 ms, the
# optimizer's step 2 ms): nothing marked before the measured iterations, the
# unrecorded medians at least those sleeps, the keys those of
# tests/data/profile-model-fake.json (which the C++ reader's test parses).
if command -v python3 >/dev/null 2>&1; then
  run_ok "helper --help" python3 "$ROOT/profiler/mgsim_profile_model.py" --help
  run_ok "kineto capture --help" python3 "$ROOT/scripts/kineto_capture.py" --help
  run_ok "helper trains under a stand-in PyTorch" env FAKE_TORCH_MARKS="$WORK/marks.txt" PYTHONPATH="$ROOT/tests/fake_torch" \
    python3 "$ROOT/profiler/mgsim_profile_model.py" --model toy_model:build --batch 4 --warmup 2 --iterations 3 \
    --optimizer momentum --describe "$WORK/model.json"
  run_ok "the helper marks the measured iterations only and times the unrecorded ones" python3 - "$WORK" "$DATA" <<'PY'
import json, sys
work, data = sys.argv[1], sys.argv[2]
marks = open(work + "/marks.txt").read().split()
assert len(marks) == 3 * 8 and marks[0] == "mgsim:iter:begin:0" and marks[-1] == "mgsim:iter:end:2", marks
d = json.load(open(work + "/model.json"))
assert d["unrecorded_forward_backward_s"] >= 0.007, d
assert d["unrecorded_optimizer_step_s"] >= 0.002, d
assert d["optimizer"] == "momentum" and d["provenance"]["optimizer"].startswith("torch.optim.SGD"), d
shipped = json.load(open(data + "/profile-model-fake.json"))
assert set(d) == set(shipped) and set(d["params"][0]) == set(shipped["params"][0]), (set(d) ^ set(shipped))
PY
fi

# fit takes GPUs per node from the curve's provenance: the p4d log ran 16 ranks on 2 hosts, so 8.
run_ok "import a two-host nccl-tests log" "$MGSIM" import nccl-tests "$DATA/nccl-tests-allreduce-16gpu-p4d-mpirun-tagged.txt" \
  -o p4d.json
per_node() {  # per_node ARGS...: gpus_per_node of the nccl model `mgsim fit ARGS --format json` fitted
  "$MGSIM" fit "$@" --format json | python3 -c 'import json, sys; print(json.load(sys.stdin)["all_gpu_counts"]["nccl"]["gpus_per_node"])'
}
if [[ $HAVE_PYTHON == 1 ]]; then
  "$MGSIM" fit p4d.json >p4d-fit.txt 2>&1
  if [[ $(per_node p4d.json) == 8 && $(per_node p4d.json --gpus-per-node 4) == 4 && $(per_node nccl8.json) == 8 ]] &&
     grep -q "(gpus_per_node 8: the curve's provenance, 16 ranks on 2 hosts; --gpus-per-node overrides it)" p4d-fit.txt; then
    pass "fit: GPUs per node from the curve's provenance (16 ranks on 2 hosts: 8; 8 ranks on 1: 8), --gpus-per-node wins"
  else
    fail "fit: GPUs per node from the curve's provenance" "$(per_node p4d.json) $(per_node nccl8.json); $(tail -n 3 p4d-fit.txt)"
  fi
fi
# A curve no model fits (times that fall as messages grow): fit says what to use instead.
python3 - >unfit.json <<'PY'
import json
points = [{"gpus": g, "bytes": 1 << k, "seconds": (1e-3 if k % 2 else 1e-5) * (40 - k)} for g in (2, 8) for k in range(4, 28)]
print(json.dumps({"format": "mgsim-curve", "version": 1, "collective": "allreduce",
                  "provenance": {"kind": "synthetic", "note": "made to fit no model"}, "points": points}))
PY
"$MGSIM" fit unfit.json >unfit.txt 2>&1
if grep -q 'No model fits within 25%: price the all-reduces with the curve itself, "collective": "measured", "curves": \["unfit.json"\]' unfit.txt; then
  pass "fit: when no model fits, says to use the curve itself"
else
  fail "fit: when no model fits, says to use the curve itself" "$(tail -n 4 unfit.txt)"
fi

# import kineto --zoo: a trace without shapes is imported with a warning that the sizes could not be checked.
"$MGSIM" import kineto "$DATA/kineto-vgg16-t4-backward.json" --model vgg16 --batch 128 --zoo vgg16 -o vgg.json 2>vgg.err
if grep -q "^mgsim: warning: parameter sizes from zoo model vgg16, by position: the trace records no shapes" vgg.err; then
  pass "import kineto --zoo on a trace without shapes warns that the sizes are unchecked"
else
  fail "import kineto --zoo on a trace without shapes warns that the sizes are unchecked" "$(cat vgg.err)"
fi
# ... and a list of sizes that the trace's recorded shapes contradict is refused (Linear(8,16), Linear(16,4):
# 128, 16, 64, 4 elements in forward order; the last is given as 5).
printf '128\n16\n64\n4\n' >right-sizes.txt
printf '128\n16\n64\n5\n' >wrong-sizes.txt
rc=0
"$MGSIM" import kineto "$DATA/kineto-two-linear-steps.json" --model m --batch 64 --param-sizes right-sizes.txt -o right.json 2>/dev/null ||
  rc=$?
"$MGSIM" import kineto "$DATA/kineto-two-linear-steps.json" --model m --batch 64 --param-sizes wrong-sizes.txt -o wrong.json \
  2>wrong.err
if [[ $rc == 0 && ! -e wrong.json ]] &&
   grep -q "wrong-sizes.txt disagrees with the trace's recorded shapes: tensors of 4 elements: 1 in the trace, 0 in wrong-sizes.txt" wrong.err; then
  pass "import kineto: given sizes are checked against the recorded shapes"
else
  fail "import kineto: given sizes are checked against the recorded shapes" "exit $rc; $(cat wrong.err)"
fi

# import kineto: a step whose GPU work outlasts it (a backward kernel of 5000 s in a 1 ms step; the median of
# the two steps' backward is 2500 s, 2.5e8% of the step) is imported, with a warning that says the compute is longer than the step.
python3 - "$DATA/kineto-two-linear-steps.json" <<'PY'
import json, sys
trace = json.load(open(sys.argv[1]))
kernels = [e for e in trace["traceEvents"] if e.get("cat") == "kernel" and not e["name"].startswith("ncclDev")]
kernels[10]["dur"] = 5e9  # step 1's relu_backward_kernel
json.dump(trace, open("outlasting.json", "w"))
PY
"$MGSIM" import kineto outlasting.json --model m --batch 64 -o outlasting-trace.json 2>outlasting.err
if grep -q "^mgsim: warning: the trace's compute is 2499999[0-9][0-9]% longer than the measured step: the GPU work a step launched outlasts the step" outlasting.err &&
   ! grep -q "shorter than the measured step" outlasting.err; then
  pass "import kineto: GPU work that outlasts its step is named as such"
else
  fail "import kineto: GPU work that outlasts its step is named as such" "$(cat outlasting.err)"
fi

finish
