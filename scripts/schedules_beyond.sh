#!/usr/bin/env bash
# The study of docs/schedules-beyond.md: every schedule mgsim has on three
# models (ResNet-50, VGG-16, BERT-large; roofline-synthetic V100 traces from
# the zoo, fp16) x three networks (10 GbE, 25 GbE, 100 Gb/s InfiniBand) x 8
# to 1024 GPUs. All-reduce schedules run over NCCL (its own cost predictor,
# the `nccl` model: ring or tree, the protocols, as NCCL picks), the parameter
# server and BytePS are collectives of their own and run the schedules that
# send whole all-reduces.
#
# Writes results/schedules-beyond/ (the traces, the sweep configs it ran and
# their CSVs) and the figures docs/figures/schedules-beyond-*.{png,svg}.
# Builds mgsim into build/ when build/src/mgsim is missing (MGSIM=path overrides).
#   usage: scripts/schedules_beyond.sh
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/ensure_mgsim.sh

out=results/schedules-beyond
mkdir -p "$out" docs/figures
"$MGSIM" zoo trace --model resnet50 --gpu v100 --precision fp16 --batch 64 -o "$out/resnet50-v100.json" 2>/dev/null
"$MGSIM" zoo trace --model vgg16 --gpu v100 --precision fp16 --batch 32 -o "$out/vgg16-v100.json" 2>/dev/null
"$MGSIM" zoo trace --model bert-large --gpu v100 --precision fp16 --batch 8 -o "$out/bert-large-v100.json" 2>/dev/null

# 10 GbE: the MG-WFBP authors' measured constants (configs/googlenet-k80-ring.json);
# 25 GbE and 100 Gb/s InfiniBand: line rate with a typical start-up.
networks='[{"name": "10GbE", "alpha_us": 45.25, "beta_s_per_byte": 9.934107462565104e-10},
             {"name": "25GbE", "alpha_us": 20, "beta_s_per_byte": 3.2e-10},
             {"name": "100Gb-IB", "alpha_us": 5, "beta_s_per_byte": 8e-11}]'
common='"trace": ["resnet50-v100.json", "vgg16-v100.json", "bert-large-v100.json"],
  "message_unit": "tensor",
  "gpus": [8, 16, 32, 64, 128, 256, 512, 1024],
  "network": '"$networks"

cat >"$out/allreduce.json" <<JSON
{
  "description": "docs/schedules-beyond.md: every all-reduce schedule over NCCL's all-reduce (the nccl model). Written by scripts/schedules_beyond.sh.",
  $common,
  "collective": "nccl",
  "schedules": ["wfbp", "single", "mgwfbp", "optimal", "ddp", "horovod", "bytescheduler", "p3", "dear", "zero1", "zero2", "zero3", "fsdp"]
}
JSON
cat >"$out/servers.json" <<JSON
{
  "description": "docs/schedules-beyond.md: parameter servers colocated with the workers, and BytePS with 16 CPU machines. Written by scripts/schedules_beyond.sh.",
  $common,
  "collective": ["ps-colocated", {"name": "byteps", "cpu_machines": 16}],
  "schedules": ["wfbp", "mgwfbp", "bytescheduler", "p3"]
}
JSON

for study in allreduce servers; do
  "$MGSIM" sweep --config "$out/$study.json" --output "$out/$study.csv"
  echo "schedules_beyond: $(($(wc -l <"$out/$study.csv") - 1)) runs -> $out/$study.csv" >&2
done
# Priority against bandwidth (ByteScheduler and P3's claim): 16 GPUs on
# colocated parameter servers, 1 to 100 Gb/s, each schedule at the partition
# `mgsim advise` finds best (ByteScheduler tunes its own) against WFBP.
echo "model,gbps,wfbp_s,bytescheduler_s,bytescheduler_partition,p3_s,p3_slice,optimal_s" >"$out/priority.csv"
for model in vgg16 resnet50; do
  for gbps in 1 2.5 5 10 25 40 100; do
    beta=$(python3 -c "print(8 / ($gbps * 1e9))")
    cat >"$out/priority.json" <<JSON
{"trace": "$model-v100.json", "gpus": [16], "collective": "ps-colocated", "message_unit": "tensor",
 "network": {"alpha_us": 20, "beta_s_per_byte": $beta}, "schedules": ["wfbp"]}
JSON
    wfbp=$("$MGSIM" run -c "$out/priority.json" --format csv | python3 -c \
      'import csv, sys; print(next(csv.DictReader(sys.stdin))["iteration_time_s"])')
    "$MGSIM" advise -c "$out/priority.json" --format csv | python3 -c '
import csv, sys
rows = {r["parameter"]: r for r in csv.DictReader(sys.stdin)}
b, p = rows["partition_params"], rows["slice_params"]
print(",".join([sys.argv[1], sys.argv[2], sys.argv[3], b["best_iteration_time_s"], b["best_value"],
                p["best_iteration_time_s"], p["best_value"], b["optimal_iteration_time_s"]]))' \
      "$model" "$gbps" "$wfbp" >>"$out/priority.csv"
  done
done
python3 scripts/plot_priority_gain.py "$out/priority.csv" docs/figures/schedules-beyond-priority

python3 scripts/plot_sweep.py "$out/allreduce.csv" docs/figures/schedules-beyond --panel model --panel network \
  --title $'Every all-reduce schedule over NCCL, V100 fp16\nsimulated by mgsim from roofline-synthetic zoo traces (not measured)'
