#!/usr/bin/env bash
# Fresh machine to first result: installs dependencies, builds, and predicts
# GoogleNet's iteration time on the K80 cluster it was measured on, for every
# schedule, from the shipped measured trace and all-reduce curves.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
./build/src/mgsim run --config configs/googlenet-k80-measured.json
