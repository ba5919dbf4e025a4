#!/usr/bin/env bash
# The stragglers study of docs/stragglers.md: synchronous MG-WFBP against
# Non-blocking SGD, D-PSGD and MATCHA at 16, 128 and 2048 GPUs on a
# heterogeneous cluster with random delays (configs/stragglers-study.json:
# GoogleNet's measured per-layer times, a synthetic cluster and noise).
#
# Writes results/stragglers-study.csv and the figures
# docs/figures/stragglers-study-throughput.{png,svg}.
# Builds mgsim into build/ when build/src/mgsim is missing (MGSIM=path overrides).
#   usage: scripts/stragglers_study.sh
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/ensure_mgsim.sh

mkdir -p results docs/figures
"$MGSIM" run -c configs/stragglers-study.json --format csv -o results/stragglers-study.csv
python3 scripts/plot_stragglers.py results/stragglers-study.csv docs/figures/stragglers-study \
  "SYNTHETIC cluster (1/4 of GPUs at half speed) and delays (Exp, mean 30 ms per mini-batch);\nMEASURED GoogleNet K80 layer times (B-Caffe); 10GbE alpha-beta"
