#pragma once
// Writing what the profiler and the importers produce: trace and curve files
// in the standard formats (docs/trace-format.md), with a provenance object
// that says where every number came from. The text returned is what
// load_trace / load_curve read back.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mgsim/trace.hpp"

namespace mgsim::profile {

/// One measured all-reduce latency with its spread over repetitions.
struct CurveSample {
  int gpus = 0;
  std::int64_t bytes = 0;
  double seconds = 0.0;
  std::optional<double> spread_s;  ///< e.g. max - min of the repetitions
};

/// A trace file; `provenance` must hold "kind".
std::string format_trace_json(const Trace& trace, const nlohmann::json& provenance);

/// A curve file ("collective": "allreduce"), points sorted by (gpus, bytes).
std::string format_curve_json(std::vector<CurveSample> points, const nlohmann::json& provenance);

/// Today's date in UTC, "YYYY-MM-DD", for provenance.
std::string today_utc();

}  // namespace mgsim::profile
