#pragma once
// The events of a PyTorch profiler (Kineto) Chrome trace that the importer
// uses, in integer ns, grouped by what they are. Private to kineto_import.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mgsim/profile/records.hpp"

namespace mgsim::profile::kineto {

/// A CPU-side span: an operator, a module call or a step annotation.
struct Span {
  std::string name;
  std::uint64_t thread = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::optional<std::int64_t> sequence;  ///< "Sequence number"
  const nlohmann::json* args = nullptr;
};

struct Events {
  RecordSet records;            ///< GPU work and launching calls (no markers yet)
  std::vector<Span> operators;  ///< cpu_op, by start time
  std::vector<Span> modules;    ///< python_function "nn.Module: X", by start time
  std::vector<Span> steps;      ///< "ProfilerStep#N", by start time
  int activities_without_correlation = 0;
};

/// Reads the trace's events; throws TraceError naming `source` and the event.
Events read_events(const nlohmann::json& document, const std::string& source);

}  // namespace mgsim::profile::kineto
