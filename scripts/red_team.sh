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

# A run CSV: scaling_efficiency <= 1 and speedup <= gpus (+ rounding) on every row.
csv_sane() {
  awk -F, '/^#/ {next} NR > 0 && !header {for (i = 1; i <= NF; ++i) col[$i] = i; header = 1; next}
    col["scaling_efficiency"] && ($col["scaling_efficiency"] > 1 + 1e-9 || $col["speedup"] > $col["gpus"] * (1 + 1e-9)) {bad = 1}
    END {exit bad}' "$1"
}

# Each (command with @ for the value) x each value: all must be refused.
refuse_values() {
  local template=$1
  shift
  for value in "$@"; do run_case err "${template%% *} ${template#mgsim } = '$value'" "${template//@/\'$value\'}"; done
}

# A run config with KEY (a JSON path, python syntax) set to each VALUE (JSON).
mutate() {
  local file=$1 key=$2
  shift 2
  for value in "$@"; do
    run_case "${EXPECT:-err}" "$file$key = $value" \
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
run_case any "plan of gpt2-xl on 65536 GPUs with the largest frontier bound" "mgsim plan --model gpt2-xl --gpus 65536 --batch 1 --frontier-bound 1024"
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
run_case err "calibrate: a config from stdin" "mgsim calibrate -c - -m measured.json --fit network.alpha_us <run.json"

# --- Kineto rank folders ----------------------------------------------------------------------
for names in "rank-0.json rank-2.json" "rank--1.json" "rank-0.json rank-99999999999.json" "rank-1.json" \
  "rank-0.json rank-0x1.json" "rank-0.json rank-01.json"; do
  run_case err "kineto folder of $names" "rm -rf r && mkdir r && for n in $names; do cp kineto.json r/\$n; done && mgsim import kineto r --model m --batch 1 -o t.json"
done

echo "red team: $total cases"
for class in "${!counts[@]}"; do echo "  $class: ${counts[$class]}"; done | sort
[[ ${counts[ok]:-0} -eq $total ]]
