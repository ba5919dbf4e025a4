#pragma once
// The events of a PyTorch profiler (Kineto) Chrome trace that the importer
// uses, in integer ns, grouped by what they are. Private to kineto_import.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mgsim/profile/importers.hpp"
#include "mgsim/profile/records.hpp"

namespace mgsim::profile::kineto {

/// A CPU-side span: an operator, a module call or a step annotation.
/// The autograd node that accumulates one parameter's gradient.
inline constexpr std::string_view kAccumulateGrad = "torch::autograd::AccumulateGrad";
inline constexpr std::string_view kOptimizerStep = "Optimizer.step#";  // "Optimizer.step#SGD.step"

struct Span {
  std::string name;
  std::uint64_t thread = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::optional<std::int64_t> sequence;  ///< "Sequence number"
  /// "Input Dims" and "Input type" of its args (an object; null without
  /// them, which costs no allocation: most spans have neither): all the
  /// importer reads there, copied so the event need not stay.
  nlohmann::json inputs;
};

/// A communication kernel (NCCL): kept out of the compute records.
struct CommKernel {
  std::string name;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::optional<std::int64_t> correlation;
};

/// A "record_param_comms" operator (PyTorch >= 2.1): what the collective
/// launched inside it moves.
struct CommCall {
  std::uint64_t thread = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::string collective;  ///< "Collective name", e.g. "allreduce"
  std::int64_t bytes = 0;  ///< "In msg nelems" x the size of "dtype"; 0 when unknown
  int group_size = 0;      ///< "Group size"; 0 when unknown
};

struct Events {
  RecordSet records;            ///< GPU work but communication, and launching calls (no markers yet)
  std::vector<CommKernel> communication;  ///< kernels named nccl*, by start time
  std::vector<CommCall> comm_calls;       ///< record_param_comms operators
  std::vector<Span> operators;  ///< cpu_op, operator and user_annotation, by start time
  std::vector<Span> modules;    ///< python_function "nn.Module: X", by start time
  std::vector<Span> steps;      ///< "ProfilerStep#N", by start time
  int gpu_step_copies = 0;      ///< "ProfilerStep#N" copies on the GPU's timeline (gpu_user_annotation)
  int activities_without_correlation = 0;
  std::int64_t activities_without_correlation_ns = 0;  ///< their time, summed
};

/// Takes the events one at a time, so that a trace read from a file is never
/// held whole (import_kineto_file streams them in).
class EventCollector {
 public:
  /// Of the array at top-level key `list` ("traceEvents"), or of a bare
  /// list (""): messages name an event as the JSON parser does.
  explicit EventCollector(std::string source, std::string_view list = "traceEvents")
      : source_(std::move(source)), list_(list) {}
  /// list[index]; throws TraceError naming the source and the event.
  void add(const nlohmann::json& event, std::size_t index);
  /// The events, spans by start time.
  Events take() &&;

 private:
  std::string source_;
  std::string_view list_;  ///< a literal
  Events events_;
};

/// Reads the events of a whole document; throws TraceError naming `source` and the event.
Events read_events(const nlohmann::json& document, const std::string& source);

/// What the trace says about where it ran (Kineto writes these at the top);
/// a distributedInfo rank or world_size that is not a whole number is refused.
nlohmann::json top_level_facts(const nlohmann::json& document, const std::string& source);

/// The import of events already read, with the document's top-level facts.
ImportedTrace import_events(Events events, const nlohmann::json& facts, const std::string& source,
                            const KinetoOptions& options);

}  // namespace mgsim::profile::kineto
