#!/usr/bin/env bash
# Installs dependencies, builds, runs the whole test suite, then runs it again
# in a build with AddressSanitizer and UndefinedBehaviorSanitizer (any report
# fails; that suite includes the whole bad-input suite, ctest bad_inputs, run
# against the sanitized mgsim), then fuzzes every parser and the structure-aware
# run and sweep targets for 30 s, two targets at a time (docs/fuzzing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)")
# The sanitizer build is a unity build (MGSIM_UNITY_BUILD, as scripts/run-default.sh's): faster, and it keeps
# that build compiling; the Release build above compiles every source alone.
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DMGSIM_SANITIZE=ON -DMGSIM_BUILD_BENCHMARKS=OFF \
  -DMGSIM_UNITY_BUILD=ON >/dev/null
cmake --build build-sanitize -j"$(nproc)"
(cd build-sanitize && ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --output-on-failure -j"$(nproc)")
bash scripts/fuzz.sh 30 2
