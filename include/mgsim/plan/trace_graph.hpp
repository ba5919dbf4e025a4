#pragma once
// A measured trace as a graph the planner searches: `mgsim plan --trace` of
// a model the zoo does not have. A trace records each layer's gradient
// tensors and times but no shapes, so each layer becomes one OpKind::measured
// operator that splits only along the batch (data parallelism, or replicas
// with allow_replication), timed by the trace: its backward and a share of the
// forward in proportion to its backward (a trace has one forward time), scaled
// linearly from the trace's batch to the planned one. The memory of stored
// activations, which a trace does not record either, is given per sample and
// held by an input operator ahead of the layers. docs/plan.md.

#include <cstdint>
#include <vector>

#include "mgsim/trace.hpp"
#include "mgsim/zoo/graph.hpp"

namespace mgsim::plan {

struct TraceGraph {
  zoo::ModelGraph graph;
  std::vector<double> measured_s;  ///< per operator, for CostSettings::measured_s
};

/// The graph of `trace` at `global_batch` samples with `dtype_bytes` per
/// element, `activation_bytes` stored per sample. Throws ConfigError naming
/// the trace and the layer when a layer's gradients have another element size.
TraceGraph trace_graph(const Trace& trace, const std::string& source, int global_batch, int dtype_bytes,
                       std::int64_t activation_bytes);

}  // namespace mgsim::plan
