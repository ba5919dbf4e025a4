#!/usr/bin/env bash
# Red team: runs several hundred bad, edge and huge inputs against every
# mgsim command and classifies each result (docs/errors.md, "Red team").
#   red_team.sh MGSIM [FILTER]   FILTER: run only cases whose description holds it
# Each case runs in a fresh copy of small fixtures, under a 20 s timeout, and is
#   crash        killed by a signal, or a sanitizer / std::terminate report
#   hang         still running after 20 s
#   overwritten  a fixture (an input) changed
#   partial      an error exit that left a new file behind
#   accepted     a bad input that exited 0 (silently wrong)
#   refused      a valid input that failed
#   wrong        a valid run whose CSV holds nan/inf, efficiency > 1 or speedup > GPUs
#   message      an error exit that is not one line "mgsim: error: ..." with nothing on stdout
#   ok           as expected
# Prints one line per case that is not ok and a count per class; exits 1 when any.
set -uo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 MGSIM [FILTER]" >&2; exit 2; }
binary=$(realpath "$1")
filter=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
fixtures=$(mktemp -d)
trap 'rm -rf "$fixtures"' EXIT
declare -A counts=()
total=0

# --- fixtures: small valid inputs of every kind -------------------------------------------
make_fixtures() {
  local f=$fixtures/base
  mkdir -p "$f/ranks"
  cp "$root/tests/data/bad/resume/trace.json" "$f/trace.json"
  cat >"$f/run.json" <<'EOF'
{"trace": "trace.json", "gpus": [2, 4], "network": {"alpha_us": 10, "beta_s_per_byte": 2e-09},
 "schedules": ["wfbp", "mgwfbp"]}
EOF
  cp "$root/tests/data/bad/resume/sweep.json" "$f/sweep.json"
  cp "$root/tests/data/osu-allreduce-full-v7.txt" "$f/osu.txt"
  cp "$root/tests/data/nccl-tests-allreduce-8gpu-new.txt" "$f/nccl.txt"
  cp "$root/tests/data/kineto-two-linear-steps.json" "$f/kineto.json"
  cp "$root/tests/data/kineto-two-linear-steps.json" "$f/ranks/rank-0.json"
  cp "$root/tests/data/kineto-two-linear-steps.json" "$f/ranks/rank-1.json"
  cp "$root/configs/cluster-h100-ndr.json" "$f/cluster.json"
  "$binary" import osu "$f/osu.txt" --gpus 2 -o "$f/curve.json" 2>/dev/null
  cat >"$f/measured.json" <<'EOF'
{"measurements": [{"gpus": 2, "schedule": "wfbp", "iteration_time_s": 0.004},
                  {"gpus": 4, "schedule": "wfbp", "iteration_time_s": 0.005}]}
EOF
  mkdir -p "$f/cases"
  cp "$root/validation/bcaffe-googlenet-k80-layer.json" "$f/cases/" 2>/dev/null
  chmod -R a-w "$f"/cases 2>/dev/null; chmod -R u+w "$f"/cases
}

# "./NAME HASH" per file under $1, sorted by name.
snapshot() {
  (cd "$1" && find . -type f | LC_ALL=C sort | while IFS= read -r f; do echo "$f $(md5sum <"$f" | cut -c1-32)"; done)
}

# --- one case --------------------------------------------------------------------------------
# expect: err (exit 2, one error line), ok (exit 0), any (0 or 2, only no crash / hang / damage)
run_case() {
  local expect=$1 what=$2 command=$3
  [[ -n $filter && $what != *"$filter"* ]] && return
  total=$((total + 1))
  local dir=$fixtures/case
  rm -rf "$dir" "$fixtures/stamp" && cp -a "$fixtures/base" "$dir" && touch -d '2000-01-01' "$fixtures/stamp"
  local before after
  before=$(snapshot "$dir")
  (cd "$dir" && timeout -k 2 20 bash -c "mgsim() { touch \"$fixtures/stamp\"; \"$binary\" \"\$@\"; }; $command") >"$fixtures/out" 2>"$fixtures/err"
  local status=$?
  after=$(snapshot "$dir")
  local class=ok
  local outputs
  outputs=$(grep -oE -- '(-o|--output|--timeline|--curve-out) [^ ;&|]+' <<<"$command" | awk '{print "./" $2}' | sed 's|^\./\./|./|')
  # An input changed: a file whose content differs afterwards (on success, the case's named outputs excepted).
  local changed
  changed=$(LC_ALL=C join <(echo "$before") <(echo "$after") | awk '$2 != $3 {print $1}' |
    { if [[ $status -eq 0 ]]; then grep -vxF -f <(echo "$outputs"); else cat; fi; } | head -n 3 | tr '\n' ' ')
  # Left behind on an error: a named output written after mgsim started.
  local added=""
  for output in $outputs; do
    [[ $output != ./- && $dir/$output -nt $fixtures/stamp ]] && added+="$output "
  done
  if [[ $status -eq 124 || $status -eq 137 ]]; then
    class=hang
  elif [[ $status -gt 128 ]] || grep -qE 'Sanitizer|runtime error:|terminate called|Aborted' "$fixtures/err"; then
    class=crash
  elif [[ -n $changed ]]; then
    class=overwritten
  elif [[ $expect == err && $status -eq 0 ]]; then
    class=accepted
  elif [[ $expect == ok && $status -ne 0 ]]; then
    class=refused
  elif [[ $status -ne 0 && -n $added ]]; then
    class=partial
  elif [[ $status -ne 0 ]] && { [[ $(wc -l <"$fixtures/err") -ne 1 ]] || ! grep -q '^mgsim: error: ' "$fixtures/err" ||
    [[ -s $fixtures/out ]] || [[ $status -ne 2 ]]; }; then
    class=message
  elif [[ $status -eq 0 ]] && grep -qiE '(^|,)(-?nan|-?inf)(,|$)' "$fixtures/out"; then
    class=wrong
  elif [[ $status -eq 0 && $command == *"--format csv"* ]] && ! csv_sane "$fixtures/out"; then
    class=wrong
  fi
  counts[$class]=$((${counts[$class]:-0} + 1))
  if [[ $class != ok ]]; then
    echo "$class: $what: \`$command\` (exit $status${changed:+; changed $changed}${added:+; left $added})"
    echo "    $(head -c 300 "$fixtures/err" | tr '\n' ' ')"
  fi
}

# A run CSV: scaling_efficiency <= 1 and speedup <= gpus (+ rounding) on every row (Python's csv
# module: a schedule label with a comma is quoted).
csv_sane() {
  python3 -c '
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    if "scaling_efficiency" in row and (float(row["scaling_efficiency"]) > 1 + 1e-9
                                        or float(row["speedup"]) > int(row["gpus"]) * (1 + 1e-9)):
        sys.exit(1)' "$1"
}

# Each (command with @ for the value) x each value: all must be refused.
refuse_values() {
  local template=$1
  shift
  for value in "$@"; do run_case err "${PREFIX:-}${template%% *} ${template#mgsim } = '$value'" "${template//@/\'$value\'}"; done
}

# A run config with KEY (a JSON path, python syntax) set to each VALUE (JSON).
mutate() {
  local file=$1 key=$2
  shift 2
  for value in "$@"; do
    run_case "${EXPECT:-err}" "${PREFIX:-}$file$key = $value" \
      "python3 -c 'import json,sys; d=json.load(open(\"$file\")); d$key=json.loads(sys.argv[1]); json.dump(d,open(\"m.json\",\"w\"))' '$value' && mgsim ${COMMAND:-run -c} m.json ${EXTRA:-}"
  done
}

make_fixtures
counts_words=(0 -1 -0 1e300 1e-300 nan inf "" abc 99999999999 "1 2")

# --- numeric and unit flags of every command -----------------------------------------------
refuse_values "mgsim plan --model resnet50 --gpus @" 0 -1 3 131072 1e300 nan "" abc 99999999999
refuse_values "mgsim plan --model resnet50 --gpus 8 --batch @" 0 -1 1e300 nan "" abc 99999999999 2147483648 1048577
refuse_values "mgsim plan --model resnet50 --gpus 65536 --batch @" 17 1024 1048576
refuse_values "mgsim plan --model resnet50 --gpus 8 --image-size @" 0 -1 nan "" abc 99999999999 2097152
refuse_values "mgsim plan --model bert-base --gpus 8 --seq-len @" 0 -1 nan "" abc 99999999999 100000
refuse_values "mgsim plan --model resnet50 --gpus 8 --frontier-bound @" 0 1 -1 nan "" abc 99999999999 18446744073709551615 1025
refuse_values "mgsim plan --model resnet50 --gpus 8 --memory-limit @" 0 0.5 40 "" -1GiB 0B 0.5B nan inf infGiB 1e300GiB 40gib "40 GiB" GiB 1e9 5PiB
refuse_values "mgsim plan --model resnet50 --gpus 8 --precision @" fp64 "" FP16
refuse_values "mgsim plan --model resnet50 --gpus 8 --optimizer @" adagrad ""
refuse_values "mgsim plan --model resnet50 --gpus 8 --zero @" 4 -1 "" fsdp 01 " 3" AUTO 3.0
refuse_values "mgsim plan --model resnet50 --gpus 8 --gpu @" h1000 ""
refuse_values "mgsim plan --model @ --gpus 8" nosuch ""
refuse_values "mgsim plan --model resnet50 --gpus 8 --format @" xml ""
refuse_values "mgsim zoo trace --model resnet50 --gpu h100 --batch @" 0 -1 nan "" abc 99999999999 1048577
refuse_values "mgsim zoo trace --model resnet50 --gpu h100 --image-size @" 0 -1 nan "" 99999999999 2097152
refuse_values "mgsim zoo trace --model bert-base --gpu h100 --seq-len @" 0 -1 "" 99999999999 100000
refuse_values "mgsim zoo trace --model resnet50 --gpu h100 --compute-efficiency @" 0 -1 1.5 nan inf "" 1e-300
refuse_values "mgsim zoo trace --model resnet50 --gpu h100 --memory-efficiency @" 0 -1 1.5 nan inf ""
refuse_values "mgsim zoo trace --model resnet50 --gpu h100 --backward-factor @" -1 101 nan inf ""
refuse_values "mgsim zoo trace --model resnet50 --gpu h100 --op-overhead-us @" -1 1e7 nan inf ""
refuse_values "mgsim zoo trace --model resnet50 --gpu @" nosuch ""
refuse_values "mgsim zoo show --model resnet50 --batch @" 0 -1 "" 99999999999
refuse_values "mgsim sweep -c sweep.json -j @" -1 nan "" abc 99999999999
refuse_values "mgsim sweep -c sweep.json --shard @" 0/1 2/1 1/0 "" abc 1/-1 -1/2 1/99999999999999999999 1/2/3
refuse_values "mgsim fit curve.json --max-ranges @" 0 21 -1 "" nan
refuse_values "mgsim fit curve.json --tolerance @" -0.1 2 nan inf ""
refuse_values "mgsim fit curve.json --min-points @" 0 1 1001 ""
refuse_values "mgsim fit curve.json --gpus-per-node @" 0 -1 99999999999 ""
refuse_values "mgsim fit curve.json --format @" xml ""
refuse_values "mgsim import osu osu.txt --gpus @" 0 1 -1 "" 99999999999 nan
refuse_values "mgsim import nccl-tests nccl.txt --gpus @" 0 1 -1 "" 99999999999
refuse_values "mgsim import nccl-tests nccl.txt --collective @" all_to_all ""
refuse_values "mgsim import kineto kineto.json --model m --batch @" 0 -1 "" 99999999999 nan
refuse_values "mgsim import kineto kineto.json --model m --batch 1 --skip-steps @" -1 "" 99999999999 2
refuse_values "mgsim run -c run.json --format @" xml "" CSV
refuse_values "mgsim advise -c run.json --format @" xml ""
refuse_values "mgsim profile layers --model resnet18 --batch @ -o t.json --python /nonexistent/python" 0 -1 "" 99999999999
refuse_values "mgsim profile layers --model resnet18 --batch 1 --iterations @ -o t.json --python /nonexistent/python" 0 -1 ""
refuse_values "mgsim profile layers --model resnet18 --batch 1 --warmup @ -o t.json --python /nonexistent/python" -1 "" 99999999999
refuse_values "mgsim profile layers --model resnet18 --batch 1 --seq-len @ -o t.json --python /nonexistent/python" 0 -1 ""
refuse_values "mgsim profile layers --model resnet18 --batch 1 --gpus @ -o t.json --python /nonexistent/python" 0 -1 1025
refuse_values "mgsim profile allreduce --min-bytes @ -o c.json" 0 -1 "" 99999999999999999999
refuse_values "mgsim profile allreduce --repetitions @ -o c.json" 0 -1 ""
refuse_values "mgsim profile allreduce --gpus @ -o c.json" 0 1 1025
refuse_values "mgsim list @" nosuch
refuse_values "mgsim @" nosuch "" --nosuch

# --- files: missing, folders, devices, FIFOs, empty, garbage, deep ----------------------------
for command in "run -c @" "advise -c @" "sweep -c @" "calibrate -c @ -m measured.json --fit network.alpha_us" \
  "calibrate -c run.json -m @ --fit network.alpha_us" "validate @" "fit @" "import osu @ --gpus 2" \
  "import nccl-tests @" "import kineto @ --model m --batch 1" "plan --model resnet50 --gpus 8 --cluster @" \
  "plan --model resnet50 --gpus 8 --trace @" "zoo calibrate --trace @ --gpu h100" "fit curve.json --insitu @"; do
  run_case err "$command: a missing file" "mgsim ${command//@/missing.json}"
  run_case err "$command: /dev/zero" "mgsim ${command//@//dev/zero}"
  run_case err "$command: a FIFO" "mkfifo f && mgsim ${command//@/f}"
  run_case err "$command: an empty file" ": >e.json && mgsim ${command//@/e.json}"
  run_case err "$command: binary garbage" "head -c 4096 /dev/urandom >g.json && mgsim ${command//@/g.json}"
  run_case err "$command: JSON nested 100000 deep" \
    "python3 -c 'print(\"[\"*100000 + \"]\"*100000)' >d.json && mgsim ${command//@/d.json}"
  run_case err "$command: a JSON number 1e999" "echo '1e999' >n.json && mgsim ${command//@/n.json}"
done
run_case err "validate: a folder with no case" "mkdir empty && mgsim validate empty"

# --- outputs: never an input, by any name; nothing left on error -----------------------------
run_case err "run -o the config" "mgsim run -c run.json -o run.json"
run_case err "run -o the trace" "mgsim run -c run.json -o trace.json"
run_case err "run --timeline the trace" "mgsim run -c run.json --timeline trace.json"
run_case err "run --timeline the trace, -o a new file" "mgsim run -c run.json -o new.txt --timeline trace.json"
run_case err "run -o a hard link to the trace" "ln trace.json hard.json && mgsim run -c run.json -o hard.json"
run_case err "run -o a symlink to the trace" "ln -s trace.json soft.json && mgsim run -c run.json -o soft.json"
run_case err "run -o the trace through ./x/../" "mkdir x && mgsim run -c run.json -o x/../trace.json"
run_case err "run -o an absolute path of the config" "mgsim run -c run.json -o \$PWD/run.json"
run_case err "run -o to a missing folder" "mgsim run -c run.json -o nowhere/out.txt"
run_case err "run -o /dev/full" "mgsim run -c run.json -o /dev/full"
run_case err "run stdout to /dev/full" "mgsim run -c run.json >/dev/full"
run_case err "advise -o the trace" "mgsim advise -c run.json -o trace.json"
run_case err "sweep -o the trace" "mgsim sweep -c sweep.json -o trace.json"
run_case err "sweep -o the config" "mgsim sweep -c sweep.json -o sweep.json"
run_case err "sweep sidecar is the config" "cp sweep.json o.fingerprint && mgsim sweep -c o.fingerprint -o o"
run_case err "sweep sidecar is the trace" "cp sweep.json s.json && sed -i s/trace.json/trace.json.fingerprint/ s.json && cp trace.json trace.json.fingerprint && mgsim sweep -c s.json -o trace.json"
run_case err "sweep sidecar is a curve" "python3 -c 'import json; d=json.load(open(\"sweep.json\")); d[\"collective\"]=\"measured\"; d.pop(\"network\"); d[\"curves\"]=[\"o.fingerprint\"]; json.dump(d,open(\"s.json\",\"w\"))' && cp curve.json o.fingerprint && mgsim sweep -c s.json -o o"
run_case err "calibrate -o the measurements" "mgsim calibrate -c run.json -m measured.json --fit network.alpha_us -o measured.json"
run_case err "calibrate -o the trace" "mgsim calibrate -c run.json -m measured.json --fit network.alpha_us -o trace.json"
run_case err "calibrate -o a trace named in the measurements" "python3 -c 'import json; d=json.load(open(\"measured.json\")); d[\"measurements\"][0][\"trace\"]=\"t2.json\"; json.dump(d,open(\"m2.json\",\"w\"))' && cp trace.json t2.json && mgsim calibrate -c run.json -m m2.json --fit network.alpha_us -o t2.json"
run_case err "fit -o the curve" "mgsim fit curve.json -o curve.json"
run_case err "fit --curve-out the curve" "mgsim fit curve.json --curve-out curve.json"
run_case err "fit --curve-out the curve, -o new" "mgsim fit curve.json -o new.txt --curve-out curve.json"
run_case err "fit --curve-out the insitu trace" "mgsim fit curve.json --insitu trace.json --curve-out trace.json"
run_case err "import osu -o the log" "mgsim import osu osu.txt --gpus 2 -o osu.txt"
run_case err "import kineto -o another rank's file" "mgsim import kineto ranks --model m --batch 1 -o ranks/rank-1.json"
run_case err "import kineto -o the --param-sizes file" "echo '{}' >p.json && mgsim import kineto kineto.json --model m --batch 1 --param-sizes p.json -o p.json"
run_case err "plan -o the cluster" "mgsim plan --model resnet50 --gpus 8 --cluster cluster.json -o cluster.json"
run_case err "validate -o the case" "mgsim validate cases -o cases/bcaffe-googlenet-k80-layer.json"
run_case err "zoo calibrate -o the trace" "mgsim zoo trace --model resnet50 --gpu h100 -o z.json && mgsim zoo calibrate --trace z.json --gpu h100 -o z.json"
run_case err "run -o a planted link at the old temporary name" "ln -s trace.json out.txt.tmp.99999 && mgsim run -c run.json -o run.json"
run_case ok "run -o a new file next to a planted temporary link" "ln -s trace.json .mgsim-0.tmp && mgsim run -c run.json -o out.txt && test -s out.txt"
run_case ok "sweep --resume keeps its own sidecar" "mgsim sweep -c sweep.json -o o.csv && mgsim sweep -c sweep.json -o o.csv --resume"
run_case err "help to a full disk" "mgsim --help >/dev/full"
run_case err "version to a full disk" "mgsim --version >/dev/full"
run_case err "run --help to a full disk" "mgsim run --help >/dev/full"

# --- run config keys --------------------------------------------------------------------------
mutate run.json '["gpus"]' '[]' '[0]' '[-1]' '[2.5]' '[1048577]' '["2"]' '{}' 'null' '[1e300]'
mutate run.json '["network"]["alpha_us"]' '-1' '1e300' '"x"' 'null' '[]'
mutate run.json '["network"]["beta_s_per_byte"]' '-1' '1e300' '"x"' 'null'
mutate run.json '["schedules"]' '[]' '["nosuch"]' '[1]' '[{"name": "ddp", "bucket_cap_mb": -1}]' '[{"name": "ddp", "bucket_cap_mb": 1e300}]' '[{"name": "topk", "density": 0}]' '[{"name": "topk", "density": 2}]' '[{"name": "horovod", "cycle_time_ms": 1e300}]'
mutate run.json '["gpus_per_node"]' '0' '-1' '1e300' '"x"' '2.5'
mutate run.json '["collective"]' '"nosuch"' '1' '""'
mutate run.json '["message_unit"]' '"byte"' '1'
mutate run.json '["iterations"]' '0' '-1' '1000001' '1e300' '2.5'
mutate run.json '["speed_classes"]' '[{"fraction": 0.5, "speed": 0}]' '[{"fraction": 0.5, "speed": 1e-300}]' '[{"fraction": 2, "speed": 1}]' '[{"fraction": 0.5, "speed": 1e300}]' '[{"fraction": 0.5}]'
mutate run.json '["overlap"]' '{"compute_slowdown": -1}' '{"compute_slowdown": 1e300}' '{"nosuch": 1}'
mutate run.json '["variability"]' '{"law": "pareto", "shape": 0}' '{"law": "nosuch"}' '{"seed": -1}' '{"seed": 1e300}' '{"stragglers": {"ranks": [99], "speed": 0.5}}' '{"stragglers": {"ranks": [0, 0], "speed": 0.5}}'
mutate run.json '["trace"]' '""' '"/"' '1' 'null'
mutate run.json '["nosuch"]' '1'
EXPECT=ok mutate run.json '["speed_classes"]' '[{"fraction": 0.5, "speed": 1000}]' '[{"fraction": 0.5, "speed": 0.001}]'
mutate run.json '["speed_classes"]' '[{"fraction": 0.5, "speed": 1e-6}]'
EXTRA="--format csv" EXPECT=any mutate run.json '["speed_classes"]' '[{"fraction": 0.5, "speed": 2}]' '[{"fraction": 0.25, "speed": 100}]'
EXTRA="--format csv" EXPECT=any mutate run.json '["schedules"]' '[{"name": "nbsgd", "deadline_s": 1e-9}]' '["dpsgd"]' '["matcha"]' '["topk", "lags", "omgs"]'
EXPECT=any mutate run.json '["speed_classes"]' '[{"fraction": 0.5, "speed": 1e-14}]'

# --- huge work: must be refused or finish within the timeout ---------------------------------
EXPECT=any mutate run.json '["gpus"]' '[1048576]'
EXPECT=any COMMAND="run -c" mutate run.json '["iterations"]' '1000000'
run_case any "2048 ranks x 1e6 iterations under variability" "python3 -c 'import json; d=json.load(open(\"run.json\")); d[\"gpus\"]=[2048]; d[\"iterations\"]=1000000; d[\"variability\"]={\"law\": \"exponential\", \"scale\": 0.001}; json.dump(d,open(\"m.json\",\"w\"))' && mgsim run -c m.json"
run_case any "gossip on 2^20 ranks" "python3 -c 'import json; d=json.load(open(\"run.json\")); d[\"gpus\"]=[1048576]; d[\"schedules\"]=[\"dpsgd\"]; json.dump(d,open(\"m.json\",\"w\"))' && mgsim run -c m.json"
run_case any "matcha on 2^20 ranks" "python3 -c 'import json; d=json.load(open(\"run.json\")); d[\"gpus\"]=[1048576]; d[\"schedules\"]=[\"matcha\"]; json.dump(d,open(\"m.json\",\"w\"))' && mgsim run -c m.json"
for schedule in wfbp mgwfbp optimal ddp horovod single topk omgs lags nbsgd; do
  run_case any "a 1e6-layer trace under $schedule" "python3 -c '
import json; t=json.load(open(\"trace.json\")); t[\"layers\"]=[{\"name\": \"l%d\" % i, \"params\": [10], \"dtype_bytes\": 4, \"backward_time_s\": 1e-6} for i in range(1000000)]
json.dump(t,open(\"big.json\",\"w\")); d=json.load(open(\"run.json\")); d[\"trace\"]=\"big.json\"; d[\"schedules\"]=[\"$schedule\"]; json.dump(d,open(\"m.json\",\"w\"))' && mgsim run -c m.json"
done
run_case any "omgs on a balanced 2000-layer trace" "python3 -c '
import json; t=json.load(open(\"trace.json\")); t[\"layers\"]=[{\"name\": \"l%d\" % i, \"params\": [25000], \"dtype_bytes\": 4, \"backward_time_s\": 1e-4} for i in range(2000)]
json.dump(t,open(\"big.json\",\"w\")); d=json.load(open(\"run.json\")); d[\"trace\"]=\"big.json\"; d[\"schedules\"]=[\"omgs\"]; json.dump(d,open(\"m.json\",\"w\"))' && mgsim run -c m.json"
run_case any "plan of gpt2-xl on 65536 GPUs with the largest frontier bound, one ZeRO stage" "mgsim plan --model gpt2-xl --gpus 65536 --batch 1 --frontier-bound 1024 --zero 0"
run_case any "plan of gpt2-xl on 65536 GPUs searching every ZeRO stage" "mgsim plan --model gpt2-xl --gpus 65536 --batch 1 --frontier-bound 128"
run_case any "plan of bert-large, 1024 GPUs" "mgsim plan --model bert-large --gpus 1024 --batch 1"

# --- zoo: every trace it writes is one its loader reads ---------------------------------------
for model in $("$binary" zoo list 2>/dev/null | awk 'NR > 1 && $1 ~ /^[a-z0-9_-]+$/ {print $1}' | sort -u | head -n 30); do
  run_case any "zoo trace of $model at batch 1048576 reads back" \
    "mgsim zoo trace --model $model --gpu h100 --batch 1048576 -o z.json; s=\$?; [[ \$s -ne 0 ]] && exit \$s; mgsim run -c <(echo '{\"trace\": \"z.json\", \"gpus\": [2], \"network\": {\"alpha_us\": 1, \"beta_s_per_byte\": 1e-9}}')"
done

# --- calibrate / validate measurements --------------------------------------------------------
for value in 1e-300 1e300 0 -1 null; do
  run_case err "calibrate: a measured time of $value" "python3 -c 'import json; d=json.load(open(\"measured.json\")); d[\"measurements\"][0][\"iteration_time_s\"]=json.loads(\"$value\".replace(\"~\",\"\")); json.dump(d,open(\"m2.json\",\"w\"))' && mgsim calibrate -c run.json -m m2.json --fit network.alpha_us"
done
run_case err "calibrate: a path that is not a number" "mgsim calibrate -c run.json -m measured.json --fit network"
run_case err "calibrate: an empty --fit" "mgsim calibrate -c run.json -m measured.json --fit ''"
run_case ok "calibrate: a config from stdin (read once)" "mgsim calibrate -c - -m measured.json --fit network.alpha_us <run.json"

# --- Kineto rank folders ----------------------------------------------------------------------
for names in "rank-0.json rank-2.json" "rank--1.json" "rank-0.json rank-99999999999.json" "rank-1.json" \
  "rank-0.json rank-0x1.json" "rank-0.json rank-01.json"; do
  run_case err "kineto folder of $names" "rm -rf r && mkdir r && for n in $names; do cp kineto.json r/\$n; done && mgsim import kineto r --model m --batch 1 -o t.json"
done


# === Round 3 (issues 25 and 26, the final red team): new cases only, each description starts "r3 " ==========
# `red_team.sh MGSIM "r3 "` runs these alone.
PREFIX="r3 "
T3='python3 -c '"'"'import json,sys; d=json.load(open("trace.json")); exec(sys.argv[1]); json.dump(d,open("t3.json","w"))'"'"''
r3_trace() {  # r3_trace EXPECT PYTHON-EDIT-OF-d COMMAND-READING-t3.json
  run_case "$1" "r3 trace edit '$2' then $3" "$T3 '$2' && mgsim $3"
}

# --- plan of a user's own trace ------------------------------------------------------------
refuse_values "mgsim plan --trace trace.json --gpus 4 --activation-bytes @" 0 -1 40 "" 2TiB nan infGiB 1e300B "1 GiB" 0.1B GiB
refuse_values "mgsim plan --trace trace.json --gpus @" 0 3 -1 131072 ""
refuse_values "mgsim plan --trace trace.json --gpus 4 --batch @" 0 -1 1048577 abc 262145
for flag in "--image-size 224" "--seq-len 128" "--aux-heads" "--gpu h100" "--precision bf16" "--precision fp16" \
  "--memory-limit 40GiB" "--activation-bytes 1MiB --memory-limit 40" "--model resnet50 --activation-bytes 1MiB"; do
  run_case err "r3 plan --trace with $flag" "mgsim plan --trace trace.json --gpus 4 $flag"
done
for file in missing.json /dev/zero run.json curve.json kineto.json ranks; do
  run_case err "r3 plan --trace of $file" "mgsim plan --trace $file --gpus 4"
done
run_case err "r3 plan --trace -o the trace" "mgsim plan --trace trace.json --gpus 4 -o trace.json"
run_case err "r3 plan --trace -o the cluster" "mgsim plan --trace trace.json --gpus 4 --cluster cluster.json -o cluster.json"
for edit in 'd["batch_size"]=0' 'd["layers"]=[]' 'd["layers"][0]["dtype_bytes"]=8' 'd["layers"][0]["dtype_bytes"]=3' \
  'd["forward_time_s"]=1e300' 'd["layers"][0]["backward_time_s"]=-1' 'd["layers"][0]["params"]=[]' \
  'd["layers"][0]["params"]=[2**62]' 'd["layers"][1]["dtype_bytes"]=2' 'd["layers"][0]["name"]=""'; do
  r3_trace err "$edit" "plan --trace t3.json --gpus 4"
done
for extra in "--gpus 8" "--gpus 4 --allow-replication" "--gpus 4 --format csv" "--gpus 4 --format json" "--gpus 4 --batch 1" \
  "--gpus 65536 --batch 1" "--gpus 1" "--gpus 4 --activation-bytes 1GiB --memory-limit 80GiB" \
  "--gpus 4 --activation-bytes 1TiB --memory-limit 1MB" "--gpus 4 --optimizer sgd" "--gpus 4 --cluster cluster.json" \
  "--gpus 4 --precision fp32" "--gpus 4 --precision tf32" "--gpus 4 --frontier-bound 2"; do
  run_case ok "r3 plan --trace trace.json $extra" "mgsim plan --trace trace.json $extra"
done
r3_trace ok 'd["layers"]=[{"name": "l%d" % i, "params": [10], "dtype_bytes": 4, "backward_time_s": 1e-6} for i in range(100000)]' \
  "plan --trace t3.json --gpus 1024 --batch 1"
r3_trace ok 'd["layers"]=[{"name": "l%d" % i, "params": [10], "dtype_bytes": 4, "backward_time_s": 1e-6} for i in range(20000)]' \
  "plan --trace t3.json --gpus 64 --batch 1 --allow-replication --frontier-bound 1024"
r3_trace err 'd["forward_time_s"]=0; d["layers"][0]["backward_time_s"]=0; d["layers"][1]["backward_time_s"]=0' "plan --trace t3.json --gpus 4"

# --- run: flags of this round ------------------------------------------------------------------
refuse_values "mgsim run -c run.json --columns @" nosuch "" "iter,nosuch" "," "all,"
refuse_values "mgsim run -c run.json --baseline @" nosuch "" ddp
refuse_values "mgsim run -c run.json --format csv --baseline @" wfbp
refuse_values "mgsim run -c run.json --max-work @" 0 -1 nan inf "" abc 1e300 -0
refuse_values "mgsim sweep -c sweep.json -o s.csv --max-work @" 0 -1 nan "" abc
run_case ok "r3 run --columns all" "mgsim run -c run.json --columns all"
run_case ok "r3 run --baseline wfbp" "mgsim run -c run.json --baseline wfbp"
run_case ok "r3 run --baseline by label" "mgsim run -c run.json --baseline mgwfbp"
run_case ok "r3 run --format json -o -" "mgsim run -c run.json --format json -o -"
run_case err "r3 run --timeline the same file as -o" "mgsim run -c run.json -o same.json --timeline same.json"
run_case err "r3 run --timeline a folder" "mkdir tl && mgsim run -c run.json --timeline tl"
run_case err "r3 run -o a folder" "mkdir od && mgsim run -c run.json -o od"
run_case err "r3 run -o an empty name" "mgsim run -c run.json -o ''"
run_case err "r3 run -o a name ending in /" "mgsim run -c run.json -o new/"
run_case err "r3 run --timeline /dev/full" "mgsim run -c run.json --timeline /dev/full"
run_case err "r3 run -o the config through a symlinked folder" "ln -s . here && mgsim run -c run.json -o here/run.json"
run_case err "r3 run -c a config from stdin, -o the trace" "mgsim run -c - -o trace.json <run.json"
run_case err "r3 advise -o the config" "mgsim advise -c run.json -o run.json"
run_case err "r3 advise --format csv -o the trace" "mgsim advise -c run.json --format csv -o trace.json"
run_case err "r3 run --max-work below the work of a variability run" "python3 -c 'import json; d=json.load(open(\"run.json\")); d[\"iterations\"]=1000; d[\"variability\"]={\"law\": \"exponential\", \"scale\": 0.001}; json.dump(d,open(\"m.json\",\"w\"))' && mgsim run -c m.json --max-work 10"

# --- run config keys not mutated before ---------------------------------------------------------
mutate run.json '["message_overhead_s"]' '-1' '1e300' '"x"' 'null' '[]' 'NaN'
mutate run.json '["overlap"]' '{"comm_slowdown": -1}' '{"comm_slowdown": 1001}' '{"comm_slowdown": "x"}' '{"compute_slowdown": null}' '[]'
mutate run.json '["schedules"]' '[{"name": "nbsgd", "k": 0, "trigger": "kth"}]' '[{"name": "nbsgd", "k": -1, "trigger": "kth"}]' \
  '[{"name": "nbsgd", "k": 5, "trigger": "kth"}]' '[{"name": "nbsgd", "deadline_s": 0, "trigger": "deadline"}]' \
  '[{"name": "nbsgd", "deadline_s": -1, "trigger": "deadline"}]' '[{"name": "nbsgd", "deadline_s": 1e300, "trigger": "deadline"}]' \
  '[{"name": "nbsgd", "trigger": "nosuch"}]' '[{"name": "nbsgd", "stop": "nosuch"}]' '[{"name": "nbsgd", "minibatches": 0}]' \
  '[{"name": "nbsgd", "minibatches": 1e300}]' '[{"name": "matcha", "budget": 0}]' '[{"name": "matcha", "budget": 2}]' \
  '[{"name": "dpsgd", "topology": "nosuch.txt"}]' '[{"name": "dpsgd", "barrier": "maybe"}]' '[{"name": "dpsgd", "topology": ""}]' \
  '[{"name": "ddp", "bucket_cap_mb": "25"}]' '[{"name": "ddp", "nosuch": 1}]' '[{"name": "horovod", "cycle_time_ms": -1}]' \
  '[{"name": "topk", "density": -0.5}]' '[{"name": "topk", "density": NaN}]' '["wfbp", "wfbp"]' '[{}]' '[null]' '[[]]'
mutate run.json '["variability"]' '{"law": "normal"}' '{"law": "exponential", "scale": -1}' '{"law": "exponential", "scale": 1e300}' \
  '{"law": "exponential", "scale": 0.001, "per": "nosuch"}' '{"stragglers": {"ranks": [-1], "speed": 0.5}}' \
  '{"stragglers": {"ranks": [0], "speed": 0}}' '{"stragglers": {"ranks": [0], "speed": 2e9}}' '{"stragglers": {"ranks": [], "speed": 0.5}}' \
  '{"stragglers": {"ranks": [0]}}' '{"law": "pareto", "shape": -1, "scale": 1}' '{"law": "lognormal", "sigma": -1}'
mutate run.json '["speed_classes"]' '[{"fraction": 0.6, "speed": 1}, {"fraction": 0.6, "speed": 2}]' '[{"fraction": -0.5, "speed": 1}]' \
  '[{"fraction": 0, "speed": 1}]' '[{"fraction": 0.5, "speed": "fast"}]' '{}' '[{"fraction": 0.5, "speed": 1, "nosuch": 1}]'
mutate run.json '["gpus_per_node"]' '1048577'
mutate run.json '["collective"]' '"measured"'
EXPECT=ok mutate run.json '["gpus_per_node"]' '3'  # 4 GPUs on nodes of 3: a node of 1 is a cluster, not an error
EXPECT=ok mutate run.json '["collective"]' '"hierarchical"' '"nccl"'  # one link for both levels
mutate run.json '["network"]' '{}' '{"intra": {"alpha_us": 1}}' '{"alpha_us": 1}' '{"alpha_us": 1, "beta_s_per_byte": 1e-9, "gamma_s_per_byte": -1}' '[]'
mutate run.json '["layer_density"]' '{"nosuch": 0.1}' '{"a": 0}' '{"a": 2}' '[]'
mutate run.json '["iterations"]' '"10"' 'true' '[10]'
mutate run.json '["description"]' '1' '""' '[]'
EXTRA="--format csv" EXPECT=ok mutate run.json '["schedules"]' '[{"name": "nbsgd", "deadline_s": 1e-6, "trigger": "deadline"}]' \
  '[{"name": "nbsgd", "deadline_s": 1e-3, "trigger": "deadline"}]' '[{"name": "nbsgd", "deadline_s": 1e-9, "trigger": "deadline", "stop": "abort"}]' \
  '[{"name": "nbsgd", "k": 1, "trigger": "kth"}]' '[{"name": "nbsgd", "minibatches": 16}]' '["dpsgd", "matcha", "nbsgd"]'
for speeds in '[{"fraction": 0.5, "speed": 2}]' '[{"fraction": 1, "speed": 10}]' '[{"fraction": 0.25, "speed": 1000}]' \
  '[{"fraction": 0.5, "speed": 0.5}, {"fraction": 0.5, "speed": 4}]'; do
  for schedules in '["wfbp", "single", "mgwfbp", "optimal"]' '["nbsgd"]' '[{"name": "nbsgd", "deadline_s": 1e-9, "trigger": "deadline"}]' '["dpsgd"]' '["matcha"]'; do
    run_case ok "r3 efficiency <= 100% and speedup <= GPUs: speed classes $speeds, schedules $schedules" \
      "python3 -c 'import json,sys; d=json.load(open(\"run.json\")); d[\"speed_classes\"]=json.loads(sys.argv[1]); d[\"schedules\"]=json.loads(sys.argv[2]); json.dump(d,open(\"m.json\",\"w\"))' '$speeds' '$schedules' && mgsim run -c m.json --format csv"
  done
done
for gpus in 1 2 3 7 1024; do
  run_case ok "r3 efficiency on $gpus GPUs with a slow straggler" \
    "python3 -c 'import json; d=json.load(open(\"run.json\")); d[\"gpus\"]=[$gpus]; d[\"variability\"]={\"stragglers\": {\"ranks\": [0], \"speed\": 0.5}}; json.dump(d,open(\"m.json\",\"w\"))' && mgsim run -c m.json --format csv"
done

# --- sweep ---------------------------------------------------------------------------------------
run_case ok "r3 sweep --resume of a CSV cut inside its header (rewritten whole)" "mgsim sweep -c sweep.json -o s.csv && head -c 40 s.csv >t && cp t s.csv && mgsim sweep -c sweep.json -o s.csv --resume"
run_case err "r3 sweep --resume after the config changed" "cp sweep.json s2.json && mgsim sweep -c s2.json -o s.csv && sed -i 's/\"mgwfbp\"/\"single\"/' s2.json && mgsim sweep -c s2.json -o s.csv --resume"
run_case err "r3 sweep --resume of a CSV with another header" "mgsim sweep -c sweep.json -o s.csv && sed -i '1s/gpus/GPUS/' s.csv && mgsim sweep -c sweep.json -o s.csv --resume"
run_case err "r3 sweep --resume with a deleted sidecar" "mgsim sweep -c sweep.json -o s.csv && rm s.csv.fingerprint && mgsim sweep -c sweep.json -o s.csv --resume"
run_case ok "r3 sweep --resume of a missing output starts afresh" "mgsim sweep -c sweep.json -o fresh.csv --resume && test -s fresh.csv"
run_case err "r3 sweep -o a folder" "mkdir sd && mgsim sweep -c sweep.json -o sd"
run_case ok "r3 sweep -o a file that is not its input (the curve, unread)" "mgsim sweep -c sweep.json -o curve.json"
run_case ok "r3 sweep -o stdout" "mgsim sweep -c sweep.json -o -"
refuse_values "mgsim sweep -c sweep.json -o s.csv -j @" 0 100000
run_case ok "r3 sweep shards 1/2 and 2/2 cover the sweep" "mgsim sweep -c sweep.json -o a.csv --shard 1/2 && mgsim sweep -c sweep.json -o b.csv --shard 2/2 && mgsim sweep -c sweep.json -o all.csv && test \$(( \$(wc -l <a.csv) + \$(wc -l <b.csv) - 2 )) -eq \$(( \$(wc -l <all.csv) - 1 ))"
mutate sweep.json '["gpus"]' '[]' '[0]' '"2"'
COMMAND="sweep -o s.csv -c" mutate sweep.json '["schedules"]' '[]' '["nosuch"]'
COMMAND="sweep -o s.csv -c" mutate sweep.json '["trace"]' '"missing.json"' '""' '1'

# --- export and import chakra -------------------------------------------------------------------
refuse_values "mgsim export chakra -c run.json --schedule wfbp -o et/x --gpus @" 0 -1 "" abc 99999999999 1048577
refuse_values "mgsim export chakra -c run.json --gpus 2 -o et/x --schedule @" nosuch "" nbsgd dpsgd
run_case err "r3 export chakra -o a prefix whose .0.et is the config" "cp run.json p.0.et && mgsim export chakra -c p.0.et --gpus 2 --schedule wfbp -o p"
run_case err "r3 export chakra -o a prefix whose .1.et is an input" "cp trace.json q.1.et && sed s/trace.json/q.1.et/ run.json >r2.json && mgsim export chakra -c r2.json --gpus 2 --schedule wfbp -o q"
run_case err "r3 export chakra -o an empty prefix" "mgsim export chakra -c run.json --gpus 2 --schedule wfbp -o ''"
run_case ok "r3 export chakra then import it back" "mgsim export chakra -c run.json --gpus 2 --schedule wfbp -o et/x && mgsim import chakra et/x -o back.json && test -s back.json"
run_case err "r3 import chakra -o its own file" "mgsim export chakra -c run.json --gpus 2 --schedule wfbp -o et/x >/dev/null && mgsim import chakra et/x.0.et -o et/x.0.et"
run_case err "r3 import chakra of a missing prefix" "mgsim import chakra nowhere -o t.json"
run_case err "r3 import chakra of an empty file" ": >e.et && mgsim import chakra e.et -o t.json"
run_case err "r3 import chakra of random bytes" "head -c 5000 /dev/urandom >g.et && mgsim import chakra g.et -o t.json"
run_case err "r3 import chakra of a trace JSON" "mgsim import chakra trace.json -o t.json"
refuse_values "mgsim export chakra -c run.json --gpus 2 --schedule wfbp -o et/x >/dev/null && mgsim import chakra et/x --batch @ -o t.json" 0 -1 "" 2147483648
for f in et-cycle et-duplicate-id et-record-past-end et-record-too-large et-truncated-varint et-unknown-node-type; do
  run_case err "r3 import chakra $f, truncated by half" "cp $root/tests/data/bad/chakra/$f.et f.et && head -c \$(( \$(stat -c %s f.et) / 2 )) f.et >h.et && mgsim import chakra h.et -o t.json"
done

# --- validate, calibrate, fit --------------------------------------------------------------------
V3='python3 -c '"'"'import json,sys; d={"format": "mgsim-validation", "version": 1, "description": "r3", "sources": {"s": {"url": "x"}}, "config": {"trace": "../trace.json", "gpus": [2], "network": {"alpha_us": 10, "beta_s_per_byte": 2e-9}, "schedules": ["wfbp"]}, "predict": [{"gpus": 4, "schedule": "wfbp", "iteration_time_s": 0.004, "source": "s"}]}; exec(sys.argv[1]); import os; os.makedirs("vc", exist_ok=True); json.dump(d,open("vc/case.json","w"))'"'"''
run_case any "r3 validate a hand-made case" "$V3 '' && mgsim validate vc"
for edit in 'd["predict"]=[]' 'd["predict"][0]["iteration_time_s"]=0' 'd["predict"][0]["iteration_time_s"]=1e300' \
  'd["predict"][0]["iteration_time_s"]=1e-300' 'd["predict"][0]["gpus"]=0' 'd["predict"][0]["schedule"]="nosuch"' \
  'd["predict"][0]["source"]="nosuch"' 'del d["sources"]' 'd["version"]=2' 'd["format"]="x"' 'd["config"]["trace"]="../missing.json"' \
  'd["config"]["nosuch"]=1' 'd["nosuch"]=1' 'd["predict"][0]["comm_time_s"]=0.001' 'del d["predict"][0]["iteration_time_s"]'; do
  run_case err "r3 validate a case with $edit" "$V3 '$edit' && mgsim validate vc"
done
run_case err "r3 validate -o the case's trace" "$V3 '' && mgsim validate vc -o trace.json"
run_case err "r3 validate -o the case" "$V3 '' && mgsim validate vc/case.json -o vc/case.json"
M3='python3 -c '"'"'import json,sys; d=json.load(open("measured.json")); exec(sys.argv[1]); json.dump(d,open("m3.json","w"))'"'"''
for edit in 'd["measurements"]=[]' 'd["measurements"][0]["gpus"]=0' 'd["measurements"][0]["schedule"]="nosuch"' \
  'd["measurements"][0]["throughput_samples_per_s"]=100' 'd["measurements"][0]["trace"]="missing.json"' 'd["measurements"][0]["nosuch"]=1' \
  'd["measurements"][0]["iteration_time_s"]="0.004"' 'd["measurements"]={}' 'd={}'; do
  run_case err "r3 calibrate with $edit" "$M3 '$edit' && mgsim calibrate -c run.json -m m3.json --fit network.alpha_us"
done
run_case ok "r3 calibrate with a measurement at 3 GPUs (a count the config can run)" "$M3 'd[\"measurements\"][0][\"gpus\"]=3' && mgsim calibrate -c run.json -m m3.json --fit network.alpha_us"
refuse_values "mgsim calibrate -c run.json -m measured.json --fit @" nosuch network.nosuch gpus schedules "network.alpha_us,network.alpha_us" "network.alpha_us network.alpha_us" trace
run_case err "r3 calibrate -o the config" "mgsim calibrate -c run.json -m measured.json --fit network.alpha_us -o run.json"
C3='python3 -c '"'"'import json,sys; d=json.load(open("curve.json")); exec(sys.argv[1]); json.dump(d,open("c3.json","w"))'"'"''
for edit in 'd["points"]=[]' 'd["points"][0]["bytes"]=-1' 'd["points"][0]["seconds"]=-1' 'd["points"][0]["seconds"]=1e300' \
  'd["points"][0]["gpus"]=0' 'd["points"]=d["points"][:1]' 'd["points"][0]["nosuch"]=1' 'd["format"]="x"' 'd["points"][0]["bytes"]=2**70' \
  'd["points"][0]["seconds"]="1"'; do
  run_case err "r3 fit a curve with $edit" "$C3 '$edit' && mgsim fit c3.json"
done
run_case err "r3 fit -o the same file as --curve-out" "mgsim fit curve.json -o same.json --curve-out same.json"
run_case err "r3 fit --insitu of a trace without in-situ data" "mgsim fit curve.json --insitu trace.json"

# --- importers: logs cut, doubled, blanked --------------------------------------------------------
for input in osu nccl; do
  case $input in osu) cmd="import osu l.txt --gpus 2 -o c.json" ;; nccl) cmd="import nccl-tests l.txt -o c.json" ;; esac
  run_case any "r3 $input: only the first 5 lines" "head -n 5 $input.txt >l.txt && mgsim $cmd"
  run_case err "r3 $input: every number replaced by nan" "sed -E 's/[0-9]+\.[0-9]+/nan/g' $input.txt >l.txt && mgsim $cmd"
  run_case err "r3 $input: every number negated" "sed -E 's/ ([0-9]+\.[0-9]+)/ -\1/g' $input.txt >l.txt && mgsim $cmd"
  run_case any "r3 $input: the log twice" "cat $input.txt $input.txt >l.txt && mgsim $cmd"
  run_case any "r3 $input: CRLF line ends and a NUL byte" "sed 's/\$/\r/' $input.txt >l.txt && printf '\0' >>l.txt && mgsim $cmd"
  run_case err "r3 $input: a 10 MB line" "head -c 10000000 /dev/zero | tr '\0' 7 >l.txt && mgsim $cmd"
  run_case err "r3 $input: -o the log" "cp $input.txt l.txt && mgsim ${cmd/c.json/l.txt}"
done
K3='python3 -c '"'"'import json,sys; d=json.load(open("kineto.json")); exec(sys.argv[1]); json.dump(d,open("k3.json","w"))'"'"''
for edit in 'd["traceEvents"]=[]' 'del d["traceEvents"]' 'd["traceEvents"][0]["dur"]=-1' 'd["traceEvents"][0]["dur"]=1e300' \
  'd["traceEvents"]=[e for e in d["traceEvents"] if "ProfilerStep" not in e.get("name","")]' 'd["traceEvents"][0]["ts"]="x"' \
  'd["traceEvents"]=d["traceEvents"]*50' 'd["traceEvents"][0]["args"]=[]' 'd=[]'; do
  run_case any "r3 kineto with $edit" "$K3 '$edit' && mgsim import kineto k3.json --model m --batch 1 -o t.json"
done
run_case err "r3 kineto --zoo of a model it is not" "mgsim import kineto kineto.json --zoo resnet50 --batch 1 -o t.json"
run_case err "r3 kineto --zoo nosuch" "mgsim import kineto kineto.json --zoo nosuch --batch 1 -o t.json"
run_case ok "r3 kineto of a .json.gz that is plain JSON (read by its bytes)" "cp kineto.json k.json.gz && mgsim import kineto k.json.gz --model m --batch 1 -o t.json"
run_case err "r3 kineto of a truncated .json.gz" "gzip -c kineto.json | head -c 200 >k.json.gz && mgsim import kineto k.json.gz --model m --batch 1 -o t.json"
run_case ok "r3 kineto of a .json.gz" "gzip -c kineto.json >k.json.gz && mgsim import kineto k.json.gz --model m --batch 1 -o t.json"
run_case any "r3 kineto folder -o into the folder as a new rank file (no input replaced)" "mgsim import kineto ranks --model m --batch 1 -o ranks/rank-2.json"

# --- zoo ------------------------------------------------------------------------------------------
refuse_values "mgsim zoo trace --model resnet50 --gpu h100 --throughput @ --measured-by x" 0 -1 nan inf "" 1e300
refuse_values "mgsim zoo trace --model resnet50 --gpu h100 --step-time @ --measured-by x" 0 -1 nan inf "" 1e300
run_case err "r3 zoo trace with both --throughput and --step-time" "mgsim zoo trace --model resnet50 --gpu h100 --throughput 100 --step-time 1 --measured-by x"
run_case err "r3 zoo trace --throughput without --measured-by" "mgsim zoo trace --model resnet50 --gpu h100 --throughput 100"
run_case err "r3 zoo trace with --gpu and --gpu-spec" "mgsim zoo trace --model resnet50 --gpu h100 --gpu-spec x.json"
for edit in '{}' '{"name": "x"}' '{"name": "x", "peak_tflops": {"fp32": -1}, "memory_gb_per_s": 1000, "vector_tflops": 10}' '[]' '1'; do
  run_case err "r3 zoo trace --gpu-spec $edit" "echo '$edit' >g.json && mgsim zoo trace --model resnet50 --gpu-spec g.json"
done
for model in $("$binary" zoo list 2>/dev/null | awk 'NR > 1 && $1 ~ /^[a-z0-9_-]+$/ {print $1}' | sort -u | head -n 12); do
  run_case any "r3 zoo show $model at image size 1 and sequence length 1" "mgsim zoo show --model $model --image-size 1 --seq-len 1"
done
run_case err "r3 zoo calibrate to a full disk" "mgsim zoo calibrate --trace trace.json --gpu h100 --model resnet50 >/dev/full"

# --- help and version of every command to a full disk --------------------------------------------
for command in run sweep advise validate calibrate fit plan list "zoo" "zoo trace" "import" "import osu" "import kineto" \
  "import chakra" "export chakra" "profile layers"; do
  run_case err "r3 $command --help to a full disk" "mgsim $command --help >/dev/full"
done

echo "red team: $total cases"
for class in "${!counts[@]}"; do echo "  $class: ${counts[$class]}"; done | sort
[[ ${counts[ok]:-0} -eq $total ]]
