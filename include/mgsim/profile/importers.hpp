#pragma once
// Importers of other tools' outputs (docs/profiling.md):
//  - nccl-tests `all_reduce_perf` text output -> curve (older and newer
//    column sets, the out-of-place or the in-place columns);
//  - OSU Micro-Benchmarks `osu_allreduce` text output -> curve;
//  - PyTorch profiler (Kineto) Chrome trace JSON -> trace (per-layer
//    backward times from AccumulateGrad, kernels through correlation ids).
// Each reads one file's text, validates it, and throws CurveError or
// TraceError naming the file, the line (or event) and what was expected.

#include <istream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mgsim/io/trace_io.hpp"
#include "mgsim/trace.hpp"

namespace mgsim::profile {

struct ImportedCurve {
  std::vector<CurveSample> points;
  nlohmann::json provenance;
};

enum class NcclTestsColumns { out_of_place, in_place };

struct NcclTestsOptions {
  NcclTestsColumns columns = NcclTestsColumns::out_of_place;
  int gpus = 0;           ///< ranks; 0 = count the "# Rank" lines of the device list
  std::string data_type;  ///< keep only rows of this type (e.g. "float"); empty = all
  std::string reduction;  ///< keep only rows of this redop (e.g. "sum"); empty = all
};

ImportedCurve import_nccl_tests(std::istream& text, const std::string& source, const NcclTestsOptions& options);

struct OsuOptions {
  int gpus = 0;  ///< ranks (OSU does not print them); 0 = take them from an "N," row prefix
};

ImportedCurve import_osu(std::istream& text, const std::string& source, const OsuOptions& options);

struct KinetoOptions {
  std::string model;   ///< model name for the trace (required)
  int batch_size = 0;  ///< samples per iteration (required: the trace does not hold it)
  int skip_steps = 0;  ///< ProfilerStep windows to drop first (warm-up)
};

struct ImportedTrace {
  Trace trace;
  nlohmann::json provenance;
  std::vector<std::string> warnings;  ///< one line each, for the user
};

ImportedTrace import_kineto(const nlohmann::json& document, const std::string& source, const KinetoOptions& options);

}  // namespace mgsim::profile
