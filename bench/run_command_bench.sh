#!/usr/bin/env bash
# Wall time of the whole command `mgsim run -c configs/googlenet-k80-ring.json`
# (GoogleNet, 10 GPU counts, 6 schedules). Target: < 0.2 s.
# Usage: bench/run_command_bench.sh [path/to/mgsim]   (default build-bench/src/mgsim)
# Run from the repository root. Uses hyperfine when installed, else a loop of
# /usr/bin/time over 50 runs.
set -euo pipefail
mgsim=${1:-build-bench/src/mgsim}
config=configs/googlenet-k80-ring.json
if command -v hyperfine >/dev/null; then
  hyperfine --warmup 5 --runs 50 -N "$mgsim run -c $config"
  exit
fi
for _ in 1 2 3 4 5; do "$mgsim" run -c "$config" >/dev/null; done  # warm-up
# /usr/bin/time has 10 ms resolution: time 50 runs together and divide.
runs=50
total=$( { /usr/bin/time -f %e bash -c 'for _ in $(seq "$3"); do "$1" run -c "$2" >/dev/null; done' _ "$mgsim" "$config" "$runs"; } 2>&1 )
awk -v t="$total" -v n="$runs" 'BEGIN {printf "%d runs in %.2f s: mean %.1f ms per run\n", n, t, 1000 * t / n}'
