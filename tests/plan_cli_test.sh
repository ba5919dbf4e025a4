#!/usr/bin/env bash
# End-to-end checks of `mgsim plan`: the frontier in each format, the chosen
# plan under a memory limit, atomic --output, and one-line errors (exit code 2,
# no output file) for bad flags and cluster files.
#   usage: plan_cli_test.sh <path-to-mgsim> <repo-root>
set -euo pipefail

source "$(dirname "$0")/cli_lib.sh" "$@"

PLAN=(plan --model resnet50 --gpus 4 --batch 2)

# ---- good runs ------------------------------------------------------------------------------------------------

if "$MGSIM" "${PLAN[@]}" >table.txt 2>err.txt && grep -q '^frontier: ' table.txt && grep -q '^data parallel: ' table.txt \
  && grep -q 'not measured' table.txt; then
  pass "table: frontier, data-parallel reference and provenance"
else
  fail "table" "$(cat err.txt)"
fi

# AlexNet on 2 GPUs without ZeRO keeps a few dozen points at most: under a bound of 1024 nothing is thinned, so
# on a latency-free ring (the gradient shares add up) the frontier is exact; under 4 it is bounded. Searching
# every stage is exact as well. With latency the search ranks without the start-ups: not proven exact.
cat >free.json <<'JSON'
{"collective": "ring", "gpus_per_node": 2, "network": {"alpha_us": 0, "beta_s_per_byte": 1e-10}}
JSON
if "$MGSIM" plan --model alexnet --gpus 2 --batch 2 --frontier-bound 1024 --zero 0 --cluster free.json >exact.txt 2>err.txt \
  && grep -q '^frontier: [0-9]* points (exact); bound 1024 points per table entry (--frontier-bound), 0 entries' exact.txt \
  && "$MGSIM" plan --model alexnet --gpus 2 --batch 2 --frontier-bound 4 --zero 0 --cluster free.json >bounded.txt 2>>err.txt \
  && grep -q '^frontier: 4 points (bounded: .*); bound 4 points' bounded.txt \
  && "$MGSIM" plan --model alexnet --gpus 2 --batch 2 --frontier-bound 1024 --cluster free.json >exact-zero.txt 2>>err.txt \
  && grep -q '^frontier: [0-9]* points (exact); bound 1024 points' exact-zero.txt \
  && "$MGSIM" plan --model alexnet --gpus 2 --batch 2 --frontier-bound 1024 --zero 0 >latency.txt 2>>err.txt \
  && grep -q '^frontier: [0-9]* points (not proven exact: ranked without the gradient start-ups' latency.txt; then
  pass "table: the frontier says whether it is exact, bounded or not proven exact, and the bound"
else
  fail "exact or bounded" "$(cat err.txt)"
fi

if "$MGSIM" "${PLAN[@]}" --memory-limit 80GiB >limit.txt 2>err.txt && grep -q '^fastest plan within 80.00 GiB: point 0' limit.txt \
  && grep -q '^conv1 ' limit.txt; then
  pass "memory limit: fastest point that fits and its operator table"
else
  fail "memory limit" "$(cat err.txt)"
fi

if "$MGSIM" "${PLAN[@]}" --memory-limit 1MB >tiny.txt 2>err.txt && grep -q '^no plan fits in 1000000 bytes per device; the smallest needs [0-9]*\.[0-9][0-9] MiB: lower --batch' tiny.txt; then
  pass "memory limit below every plan: said so, with what to change"
else
  fail "memory limit below every plan" "$(cat err.txt)"
fi

if "$MGSIM" "${PLAN[@]}" --format csv -o frontier.csv 2>err.txt && head -n 1 frontier.csv | grep -q '^model,gpus,kind,point,time_s,memory_bytes'; then
  pass "csv to a file"
else
  fail "csv to a file" "$(cat err.txt)"
fi

if [[ $HAVE_PYTHON == 1 ]]; then
  if "$MGSIM" "${PLAN[@]}" --memory-limit 40GB --format json >plan.json 2>err.txt && python3 -c '
import json, sys
d = json.load(open("plan.json"))
times = [p["time_s"] for p in d["frontier"]]
mems = [p["memory_bytes"] for p in d["frontier"]]
assert times == sorted(times) and mems == sorted(mems, reverse=True), "frontier order"
assert d["chosen"]["point"] == 0 and len(d["chosen"]["operators"]) > 100
assert d["exact"] == (d["thinned_entries"] == 0) and d["frontier_bound"] == 32, "exactness and bound"
'; then
    pass "json: frontier fastest first, memory decreasing, chosen plan"
  else
    fail "json" "$(cat err.txt)"
  fi
fi

if "$MGSIM" plan --model googlenet-bvlc --aux-heads --gpus 4 --batch 16 --gpu k80 --precision fp32 \
  --trace "$ROOT/traces/googlenet-k80.json" >fitted.txt 2>err.txt && grep -q 'efficiencies fitted to .*googlenet-k80.json' fitted.txt; then
  pass "--trace: roofline fitted to a measured trace"
else
  fail "--trace" "$(cat err.txt)"
fi

# Pure data parallelism against `mgsim run`: the same model (ResNet-50, 2 samples per GPU, H100 bf16 roofline) on
# the same ring cluster; the single-message schedule is the plan's data-parallel time model: t_f + sum t_b +
# T(all gradient bytes) + the Adam step of every parameter. Both round each time to whole ns separately: within
# 1 ns per operator (some 350) apart.
RING='"collective": "ring", "network": {"alpha_us": 45.25, "beta_s_per_byte": 9.93e-10, "gamma_s_per_byte": 2.5e-9}'
printf '{%s}\n' "$RING" >ring.json
printf '{"trace": "r50.json", "gpus": [4], %s, "schedules": ["single"]}\n' "$RING" >run-r50.json
if [[ $HAVE_PYTHON == 1 ]]; then
  if "$MGSIM" zoo trace --model resnet50 --gpu h100 --precision bf16 --batch 2 -o r50.json 2>err.txt \
    && "$MGSIM" run -c run-r50.json --format json -o run-r50-out.json 2>>err.txt \
    && "$MGSIM" plan --model resnet50 --gpus 4 --batch 2 --cluster ring.json --format json -o plan-r50.json 2>>err.txt \
    && python3 -c '
import json
run = json.load(open("run-r50-out.json"))["results"][0]["iteration_time_s"]
plan = json.load(open("plan-r50.json"))["data_parallel"]["time_s"]
assert abs(run - plan) <= 350e-9, (run, plan)
'; then
    pass "data parallelism in the plan costs what mgsim run predicts with the single schedule"
  else
    fail "data parallelism vs mgsim run" "$(cat err.txt)"
  fi
fi

# With latency the search ranks by sums without the gradient start-ups: pure data parallelism, priced exactly, is
# still never beaten by the frontier in both time and memory unless a point dominates it (red team: LSTM at 4096
# GPUs reported it "dominated" while faster than every point, and a memory limit picked a slower plan).
if [[ $HAVE_PYTHON == 1 ]]; then
  if "$MGSIM" plan --model lstm-ptb --gpus 4096 --zero 0 --format json -o plan-lstm.json 2>err.txt && python3 -c '
import json
plan = json.load(open("plan-lstm.json"))
dp = plan["data_parallel"]
front = plan["frontier"]
assert any(p["time_s"] <= dp["time_s"] and p["memory_bytes"] <= dp["memory_bytes"] for p in front), (dp, front[0])
assert front[0]["time_s"] <= dp["time_s"], (dp, front[0])
assert dp["on_frontier"] == any(p["time_s"] == dp["time_s"] and p["memory_bytes"] == dp["memory_bytes"] for p in front)
'; then
    pass "plan: pure data parallelism is on the frontier or dominated by a point of it, with latency"
  else
    fail "plan: pure data parallelism on the frontier with latency" "$(cat err.txt)"
  fi
fi

# A user's own trace, planned alone: on one GPU at the trace's batch, data parallelism is the trace's forward plus
# every layer's backward (nothing to all-reduce), within 1 ns per layer of rounding.
GTRACE="$ROOT/traces/googlenet-k80.json"
if [[ $HAVE_PYTHON == 1 ]]; then
  if "$MGSIM" plan --trace "$GTRACE" --gpus 1 --format json -o trace-1.json 2>err.txt && python3 -c '
import json, sys
trace = json.load(open(sys.argv[1]))
plan = json.load(open("trace-1.json"))
expected = trace["forward_time_s"] + sum(l["backward_time_s"] for l in trace["layers"])
assert abs(plan["data_parallel"]["time_s"] - expected) <= len(trace["layers"]) * 1e-9, (plan["data_parallel"], expected)
assert len(plan["frontier"]) == 1
' "$GTRACE"; then
    pass "--trace alone on 1 GPU: the trace's forward + backward"
  else
    fail "--trace alone on 1 GPU" "$(cat err.txt)"
  fi
fi

# Two points: data parallelism with its gradients and optimizer state sharded (ZeRO stage 2: as fast as
# stage 0, smaller), and with its parameters sharded too (stage 3: slower, smaller still).
if "$MGSIM" plan --trace "$GTRACE" --gpus 8 --activation-bytes 100MiB --memory-limit 16GiB >trace-8.txt 2>err.txt \
  && grep -q "^googlenet on 8 x the trace's GPU (fp32, adam, ZeRO stages 0-3), global batch 512" trace-8.txt \
  && grep -q 'split along the batch only; activations 100MiB per sample' trace-8.txt \
  && grep -q '^frontier: 2 points (exact);' trace-8.txt \
  && grep -q '^fastest plan within 16.00 GiB: point 0, .*, ZeRO stage 2$' trace-8.txt; then
  pass "--trace alone on 8 GPUs: the trace's batch and element size, activations given, a memory limit"
else
  fail "--trace alone on 8 GPUs" "$(cat err.txt)"
fi

# --zero: one stage searched says so in the header and on every point; auto tags each point with its stage.
if "$MGSIM" "${PLAN[@]}" --zero 3 >zero3.txt 2>err.txt && grep -q '^resnet50 on 4 x h100 (bf16, adam, ZeRO stage 3)' zero3.txt \
  && grep -q '^data parallel: .*, ZeRO stage 3 (' zero3.txt \
  && [[ $(awk '/^ *point /{on=1; next} on && NF {print $4}' zero3.txt | sort -u) == 3 ]]; then
  pass "--zero 3: the header and every point name stage 3"
else
  fail "--zero 3" "$(cat err.txt)"
fi
if [[ $HAVE_PYTHON == 1 ]]; then
  if "$MGSIM" "${PLAN[@]}" --memory-limit 80GiB --format json >zero.json 2>err.txt \
    && "$MGSIM" "${PLAN[@]}" --format csv >zero.csv 2>>err.txt && python3 -c '
import csv, json
d = json.load(open("zero.json"))
assert d["zero_stages"] == [0, 1, 2, 3] and d["data_parallel"]["zero_stage"] == 0, d["zero_stages"]
stages = [p["zero_stage"] for p in d["frontier"]]
assert set(stages) <= {0, 1, 2, 3} and d["chosen"]["zero_stage"] == stages[d["chosen"]["point"]], stages
rows = list(csv.DictReader(open("zero.csv")))
assert [int(r["zero_stage"]) for r in rows if r["kind"] == "frontier"] == stages, "csv and json agree"
dp = [r for r in rows if r["kind"] == "data_parallel"]
on = d["data_parallel"]["point"]
assert len(dp) == 1 and dp[0]["point"] == ("" if on is None else str(on)) and d["data_parallel"]["on_frontier"] == (on is not None), dp
assert abs(float(dp[0]["time_s"]) - d["data_parallel"]["time_s"]) <= 1e-9 * d["data_parallel"]["time_s"], "csv and json data parallelism"
'; then
    pass "--zero auto: every point of the json and csv names its stage"
  else
    fail "--zero auto" "$(cat err.txt)"
  fi
  # Plans past a second: the csv keeps seconds to the nanosecond, as the json (red team: 9 significant digits,
  # 1.11074963 against 1.110749628).
  cat >slow.json <<'JSON'
{"collective": "ring", "gpus_per_node": 1, "network": {"alpha_us": 10, "beta_s_per_byte": 2e-11, "fabric_s_per_byte": 5e-10}}
JSON
  if "$MGSIM" plan --trace "$ROOT/traces/googlenet-k80.json" --gpus 16 --cluster slow.json --format json >slow-plan.json \
      2>err.txt && "$MGSIM" plan --trace "$ROOT/traces/googlenet-k80.json" --gpus 16 --cluster slow.json --format csv \
      >slow-plan.csv 2>>err.txt && python3 -c '
import csv, json
d = json.load(open("slow-plan.json"))
rows = list(csv.DictReader(open("slow-plan.csv")))
times = [p["time_s"] for p in d["frontier"]] + [d["data_parallel"]["time_s"]]
assert max(times) > 1, times
assert len(rows) == len(times), (len(rows), len(times))
assert all(abs(float(r["time_s"]) - t) <= 5e-10 for r, t in zip(rows, times)), [(r["time_s"], t) for r, t in zip(rows, times)]
'; then
    pass "csv times past a second to the nanosecond, as the json"
  else
    fail "csv times past a second to the nanosecond" "$(cat err.txt)"
  fi
fi

cat >cluster.json <<'JSON'
{"collective": "ring", "gpus_per_node": 4, "network": {"alpha_us": 45.25, "beta_s_per_byte": 9.93e-10}}
JSON
if "$MGSIM" "${PLAN[@]}" --cluster cluster.json >cluster.txt 2>err.txt && grep -q 'cluster: cluster.json (ring, 4 GPUs per node)' cluster.txt; then
  pass "cluster file"
else
  fail "cluster file" "$(cat err.txt)"
fi

if "$MGSIM" "${PLAN[@]}" --cluster "$ROOT/configs/cluster-h100-ndr.json" >ndr.txt 2>err.txt && grep -q 'cluster-h100-ndr.json (hierarchical, 8 GPUs per node)' ndr.txt; then
  pass "shipped cluster file"
else
  fail "shipped cluster file" "$(cat err.txt)"
fi

# ---- bad input: exit 2, one error line naming the flag or key, no output file ---------------------------------

expect_error() {  # expect_error NAME PATTERN ARGS...
  local name=$1 pattern=$2
  shift 2
  rm -f out.txt
  local rc=0
  "$MGSIM" "$@" -o out.txt >stdout.txt 2>stderr.txt || rc=$?
  if [[ $rc == 2 && $(wc -l <stderr.txt) == 1 ]] && grep -q -- "$pattern" stderr.txt && [[ ! -e out.txt ]]; then
    pass "bad input: $name"
  else
    fail "bad input: $name" "rc=$rc, stderr: $(cat stderr.txt)"
  fi
}

printf '{"collective": "ring", "network": {"alpha_us": 1, "beta_s_per_byte": 1e-9}, "gpu_per_node": 8}\n' >typo.json
printf '{"collective": "measured", "network": {"alpha_us": 1, "beta_s_per_byte": 1e-9}}\n' >measured.json
printf '{"collective": "ring", "network": {"alpha_us": -1, "beta_s_per_byte": 1e-9}}\n' >negative.json

expect_error "gpus not a power of two" "^mgsim: error: --gpus: expected a power of two in 1..65536, got 12" "${PLAN[@]/4/12}"
expect_error "memory limit without a number" "--memory-limit: expected a size with a unit such as 40GiB or 80GB (1 byte .. 1 PiB), got 'lots'" "${PLAN[@]}" --memory-limit lots
expect_error "memory limit with an unknown unit" "got '40GiBs'" "${PLAN[@]}" --memory-limit 40GiBs
expect_error "memory limit past 1 PiB" "got '1.5PiB'" "${PLAN[@]}" --memory-limit 1.5PiB
# The bound the message names can be written in its own unit (red team: 1PiB was refused).
if "$MGSIM" "${PLAN[@]}" --memory-limit 1PiB -o pib.txt 2>pib.err; then
  pass "memory limit of 1PiB, the bound the message names"
else
  fail "memory limit of 1PiB, the bound the message names" "$(cat pib.err)"
fi
expect_error "memory limit without a unit (40 bytes?)" "^mgsim: error: --memory-limit: expected a size with a unit such as 40GiB or 80GB .*: the unit is missing, got '40'$" \
  "${PLAN[@]}" --memory-limit 40
expect_error "unknown model" "unknown model 'resnet51'" plan --model resnet51 --gpus 4
expect_error "unknown optimizer" "unknown optimizer 'adagrad'" "${PLAN[@]}" --optimizer adagrad
expect_error "ZeRO stage past 3" "^mgsim: error: --zero: expected auto (search stages 0..3) or a ZeRO stage 0..3 .*, got '4'$" \
  "${PLAN[@]}" --zero 4
expect_error "unknown format" "--format: unknown format 'xml' (valid: table, csv, json)" "${PLAN[@]}" --format xml
expect_error "cluster key misspelled" "typo.json: gpu_per_node: unknown key" "${PLAN[@]}" --cluster typo.json
expect_error "cluster with a measured curve" "measured.json: collective: collective 'measured'" "${PLAN[@]}" --cluster measured.json
expect_error "cluster with a negative latency" "negative.json: network.alpha_us: expected" "${PLAN[@]}" --cluster negative.json
expect_error "trace of another model" "conv1" plan --model resnet50 --gpus 4 --gpu k80 --precision fp32 --trace "$ROOT/traces/googlenet-k80.json"
expect_error "neither a model nor a trace" "expected --model (a zoo model, see \`mgsim zoo list\`) or --trace" plan --gpus 4
expect_error "trace alone with a memory limit but no activations" "--memory-limit with --trace alone needs --activation-bytes" \
  plan --trace "$GTRACE" --gpus 4 --memory-limit 40GiB
expect_error "trace alone with a zoo model's flag" "^mgsim: error: --image-size describes a zoo model" plan --trace "$GTRACE" --gpus 4 --image-size 224
expect_error "trace alone at another precision" "googlenet-k80.json: layer 'conv1/7x7_s2' has 4-byte gradients" \
  plan --trace "$GTRACE" --gpus 4 --precision bf16
expect_error "activations without a unit" "^mgsim: error: --activation-bytes: expected a size with a unit" \
  plan --trace "$GTRACE" --gpus 4 --activation-bytes 100
expect_error "activations for a zoo model" "--activation-bytes is for a plan of --trace alone" "${PLAN[@]}" --activation-bytes 1GiB
expect_error "missing cluster file" "nowhere.json" "${PLAN[@]}" --cluster nowhere.json

finish
