#!/usr/bin/env bash
# Installs dependencies, builds, runs the whole test suite, then builds
# everything again with clang, AddressSanitizer, UndefinedBehaviorSanitizer and
# libFuzzer's coverage, runs the suite there (any report fails; that suite
# includes the whole bad-input suite, ctest bad_inputs, run against the
# sanitized mgsim; scripts/fuzz.sh says which replays it leaves to the run
# above), and fuzzes every parser and the structure-aware run, sweep and
# validate targets for 6 s each, two targets at a time, in that same tree
# (scripts/fuzz.sh --suite, docs/fuzzing.md). The bad-input cases run there
# only: the same checks, against the sanitized binary, and any report fails.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
phase() { echo "== test.sh: $1 ($((SECONDS - start)) s in)"; }  # where CI's minutes go
phase "installing dependencies"
bash scripts/install-deps.sh
phase "building (Release)"
bash scripts/build.sh -DMGSIM_UNITY_BUILD=ON  # a batch of sources per compiler run: the fastest build from scratch
phase "testing (Release)"
(cd build && ctest --output-on-failure -j"$(nproc)" -E '^bad_inputs$')
phase "building, testing and fuzzing under ASan/UBSan"
bash scripts/fuzz.sh --suite 6 2
phase "done"
