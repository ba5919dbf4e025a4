#!/usr/bin/env bash
# Reproduces the shape of the MG-WFBP scaling study (Shi, Chu, Li, "MG-WFBP:
# efficient data communication for distributed synchronous SGD algorithms",
# INFOCOM'19): 4 to 2048 GPUs, WFBP vs single-layer vs MG-WFBP (plus the
# optimal merge), ring and tree all-reduce, on every trace shipped in traces/,
# with the network constants of the authors' simulator (10 GbE, as in
# configs/googlenet-k80-ring.json).
#
# Writes results/mgwfbp-study.json (the sweep config it ran), results/mgwfbp-study.csv
# and the figures docs/figures/mgwfbp-study-{efficiency,throughput}.{png,svg}.
# Installs what it needs (Debian packages, scripts/install-deps.sh) and builds
# mgsim into build/ when build/src/mgsim is missing (MGSIM=path overrides).
#   usage: scripts/mgwfbp_study.sh [--threads N]
set -euo pipefail
cd "$(dirname "$0")/.."

threads=0
if [[ ${1:-} == --threads ]]; then threads=$2; fi

source scripts/ensure_mgsim.sh

traces=()
for file in traces/*.json; do
  grep -q '"format": *"mgsim-trace"' "$file" && traces+=("\"../$file\"")
done
[[ ${#traces[@]} -gt 0 ]] || { echo "mgwfbp_study: no trace in traces/" >&2; exit 1; }

mkdir -p results docs/figures
trace_list=$(IFS=,; echo "${traces[*]}")
cat >results/mgwfbp-study.json <<EOF
{
  "description": "Shape of the MG-WFBP study (INFOCOM'19): WFBP, single-layer, MG-WFBP and the optimal merge from 4 to 2048 GPUs over ring and tree all-reduce, 10 GbE constants of the authors' simulator. Written by scripts/mgwfbp_study.sh.",
  "trace": [${trace_list//,/, }],
  "message_unit": "layer",
  "gpus": [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048],
  "collective": ["ring", "tree"],
  "network": {"name": "10GbE", "alpha_us": 45.25, "beta_s_per_byte": 9.934107462565104e-10, "gamma_s_per_byte": 2.5e-9},
  "schedules": ["wfbp", "single", "mgwfbp", "optimal"]
}
EOF

"$MGSIM" sweep --config results/mgwfbp-study.json --threads "$threads" --output results/mgwfbp-study.csv
echo "mgwfbp_study: $(($(wc -l <results/mgwfbp-study.csv) - 1)) runs -> results/mgwfbp-study.csv" >&2

python3 scripts/plot_sweep.py results/mgwfbp-study.csv docs/figures/mgwfbp-study \
  --title $'WFBP, single-layer, MG-WFBP and the optimal merge, 10 GbE\nsimulated by mgsim from the measured GoogleNet/K80 trace with analytic ring and tree models'
