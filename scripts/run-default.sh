#!/usr/bin/env bash
# Fresh machine to first result: installs what building mgsim needs, builds
# the mgsim binary alone as a unity build (MGSIM_UNITY_BUILD: a batch of
# sources per compiler run; scripts/test.sh builds and runs everything else),
# and predicts GoogleNet's iteration time on the K80 cluster it was measured
# on, for every schedule, from the shipped measured trace with each all-reduce
# priced as the training loop timed it (in situ; docs/fidelity.md compares
# with the log).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --build
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMGSIM_UNITY_BUILD=ON >/dev/null
cmake --build build -j"$(nproc)" --target mgsim
./build/src/mgsim run --config configs/googlenet-k80-insitu.json
