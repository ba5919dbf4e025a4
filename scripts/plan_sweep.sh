#!/usr/bin/env bash
# How the plan frontier moves with resources: `mgsim plan` for each model over
# 8 to 64 GPUs (H100 bf16, Adam, the default cluster), one CSV per run under
# results/plan/, and one figure per model with the memory of a 40 GB and an
# 80 GB GPU (docs/figures/plan-<model>.{png,svg}). Each argument is
# MODEL:SAMPLES_PER_GPU.
#   usage: scripts/plan_sweep.sh [model:batch ...]     (default: bert-large:32 gpt2-xl:3)
set -euo pipefail
cd "$(dirname "$0")/.."

MGSIM=${MGSIM:-build/src/mgsim}  # MGSIM=path/to/mgsim to use another build
[[ -x $MGSIM ]] || { echo "plan_sweep: $MGSIM not found: build mgsim first (README)" >&2; exit 1; }
models=("$@")
[[ ${#models[@]} -gt 0 ]] || models=(bert-large:32 gpt2-xl:3)

mkdir -p results/plan docs/figures
for spec in "${models[@]}"; do
  model=${spec%%:*}
  batch=${spec#*:}
  files=()
  for gpus in 8 16 32 64; do
    file=results/plan/$model-$gpus.csv
    "$MGSIM" plan --model "$model" --gpus "$gpus" --batch "$batch" --format csv -o "$file"
    files+=("$file")
  done
  python3 scripts/plot_frontier.py "${files[@]}" -o "docs/figures/plan-$model" --limit 40 --limit 80
done
