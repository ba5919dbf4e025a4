#pragma once
// The raw output of `mgsim-allreduce-bench` (profiler/allreduce_bench.cpp):
// one line per timed repetition, and what it reduces to, one curve point per
// size with the median and the spread of the repetitions. Format in
// docs/profiling.md.

#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <vector>

#include "mgsim/io/trace_io.hpp"

namespace mgsim::profile {

struct BenchRepetition {
  std::int64_t bytes = 0;
  int gpus = 0;
  int repetition = 0;
  double seconds = 0.0;  ///< first kernel start to last kernel end, over all GPUs
  std::string kernel;    ///< the NCCL kernel's name (it names algorithm and protocol)
};

struct BenchOutput {
  std::map<std::string, std::string> info;  ///< "# key: value" header lines
  std::vector<BenchRepetition> repetitions;
};

/// Throws CurveError naming the source and line.
BenchOutput read_bench_output(std::istream& in, const std::string& source);

/// One point per (gpus, bytes): median seconds, spread = max - min.
std::vector<CurveSample> summarize_bench(const BenchOutput& output);

}  // namespace mgsim::profile
