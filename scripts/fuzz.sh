#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang with ASan/UBSan) into build-fuzz/
# and runs each for SECONDS, JOBS targets at a time, from a seed corpus of the
# shipped and test files. Any crash, sanitizer report, leak, timeout (a hang:
# one input over 60 s) or out-of-memory fails the script; the reproducer is
# left in build-fuzz/findings/. docs/fuzzing.md.
#   bash scripts/fuzz.sh [--suite] [SECONDS=60] [JOBS=2] [TARGET...]
# --suite (what CI runs, scripts/test.sh): the same sanitized tree first builds
# everything, the mgsim binary and the tests included, and runs the test suite
# under ASan/UBSan (any report fails), so one sanitized build serves both. Left
# to the unsanitized suite: the layering probes (they only compile) and
# the replays, plans, exhaustive searches and calibrations of hundreds of
# runs through paths smaller tests take (SANITIZED_SKIP).
set -euo pipefail
cd "$(dirname "$0")/.."
suite=0
if [ "${1:-}" = --suite ]; then suite=1; shift; fi
seconds=${1:-60}
jobs=${2:-2}
shift $(( $# > 2 ? 2 : $# ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(config trace curve kineto nccl_tests osu chakra gpu_spec run sweep validate)

# A unity build (MGSIM_UNITY_BUILD, as scripts/run-default.sh's): a batch of
# sources per compiler run, and it keeps that build compiling.
# Line tables are all a sanitizer report's stack needs, and a fraction of -g's build time.
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" \
  -DMGSIM_BUILD_FUZZERS=ON -DMGSIM_UNITY_BUILD=ON \
  -DMGSIM_BUILD_TESTS=$( [ $suite = 1 ] && echo ON || echo OFF ) -DMGSIM_BUILD_BENCHMARKS=OFF \
  -DMGSIM_BUILD_PROFILER=OFF >/dev/null
if [ $suite = 1 ]; then
  cmake --build build-fuzz -j"$(nproc)"
  # Every documented command, every validation case, every config's golden outputs, replays of the shipped
  # set and of 500 random scenarios, OMGS plans of 80 layers, four calibrations of many keys and rows (each
  # a multistart of two global searches) and held-out fits replayed under several budgets and thread
  # counts: minutes under ASan, through code the smaller tests here take too, and all run unsanitized by
  # scripts/test.sh.
  SANITIZED_SKIP='^layering_|^doc_commands$|^validation_scripts$|^golden_outputs$|500 random scenarios'
  SANITIZED_SKIP+='|shipped validation set does not regress|calibrate recovers (the overlap and both|each numeric key)'
  SANITIZED_SKIP+='|calibrate leaves the minima|calibrate says which values trade off|held-out fits pass --max-work'
  SANITIZED_SKIP+='|OMGS plans what the plain Pareto search plans on balanced traces of 80 layers'
  # Exhaustive searches, a 2^20-tensor trace and fits from far starts: pure arithmetic, 15-30 s each under ASan.
  SANITIZED_SKIP+='|equals exhaustive search over contiguous groupings$|at most 2\^20 gradient tensors|fits from any start'
  (cd build-fuzz && ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --output-on-failure -j"$(nproc)" -E "$SANITIZED_SKIP")
else
  cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz_}"
fi

seeds_of() {
  case "$1" in
    config) ls configs/*.json tests/data/bad/*/config-* ;;
    trace) ls traces/googlenet-k80.json tests/data/bad/*/trace-* ;;
    curve) ls traces/googlenet-k80-allreduce.json tests/data/bad/*/curve-* ;;
    kineto) find tests/data -maxdepth 3 -type f -name 'kineto-*' ;;  # files only: rank folders are not seeds
    nccl_tests) ls tests/data/nccl-tests-* tests/data/bad/*/nccl-tests-* ;;
    osu) ls tests/data/osu-* tests/data/bad/*/osu-* ;;
    chakra) ls tests/data/chakra/*.et tests/data/bad/chakra/*.et ;;
    run) ls configs/googlenet-*.json tests/data/bad/*/config-* ;;
    sweep) ls configs/sweep-*.json tests/data/bad/resume/sweep.json ;;
    gpu_spec) ls tests/data/gpu-spec-*.json ;;
    validate) ls validation/*.json ;;
  esac 2>/dev/null
}

dictionary_of() {
  case "$1" in run | sweep | config | validate) echo "-dict=fuzz/config.dict" ;; esac
}

run_one() {
  local target=$1 corpus=build-fuzz/corpus/$1 findings=build-fuzz/findings/$1
  mkdir -p "$corpus" "$findings"
  seeds_of "$target" | xargs -r cp -t "$corpus"
  local status=0
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "build-fuzz/fuzz/fuzz_$target" "$corpus" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=2048 \
    -max_len=65536 $(dictionary_of "$target") -print_final_stats=1 -artifact_prefix="$findings/" >"build-fuzz/fuzz_$target.log" 2>&1 || status=$?
  echo "fuzz_$target: $(grep -E '^stat::number_of_executed_units' "build-fuzz/fuzz_$target.log" | awk '{print $2}') runs," \
    "exit $status$( [ $status -eq 0 ] || echo ": see build-fuzz/fuzz_$target.log and $findings/")"
  return $status
}

failed=0
pids=()
for target in "${targets[@]}"; do
  run_one "$target" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
exit $failed
