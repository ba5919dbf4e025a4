// An iteration as planned, written as one rank's Chakra ET (docs/chakra.md).

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include "et_attributes.hpp"
#include "et_stream.hpp"
#include "mgsim/chakra/chakra.hpp"
#include "mgsim/error.hpp"

namespace mgsim::chakra {
namespace {

using ChakraProtoMsg::Node;

/// Microseconds, rounded to the nearest, for Chakra's duration_micros.
std::uint64_t micros(SimTime ns) { return static_cast<std::uint64_t>((ns + 500) / 1000); }

class RankWriter {
 public:
  RankWriter(const Workload& workload, const Plan& plan)
      : workload_(workload),
        plan_(plan),
        ready_node_(static_cast<std::size_t>(workload.layout.tensor_count())),
        selection_node_(plan.size()),
        selections_after_(static_cast<std::size_t>(workload.layout.layer_count())) {
    // Once, not a pass over the plan per layer (red team: 100,000 layers took 20 s, 1,000,000 about an hour).
    for (std::size_t m = 0; m < plan.size(); ++m) {
      if (plan[m].selection == 0) continue;
      selections_after_[static_cast<std::size_t>(workload.layout.backward_layer(plan[m].end - 1))].push_back(m);
    }
  }

  EtFile write() {
    add_forward();
    for (int u = 0; u < workload_.layout.layer_count(); ++u) {
      add_layer(u);
      add_selections(u);
    }
    for (std::size_t m = 0; m < plan_.size(); ++m) add_message(m);
    return std::move(file_);
  }

 private:
  Node& add_compute(std::string name, SimTime duration) {
    Node& node = file_.nodes.emplace_back();
    node.set_id(file_.nodes.size() - 1);
    node.set_name(std::move(name));
    node.set_type(ChakraProtoMsg::COMP_NODE);
    node.set_duration_micros(micros(duration));
    if (node.id() > 0) node.add_data_deps(last_compute_);
    add_bool(*node.mutable_attr(), "is_cpu_op", false);
    add_int(*node.mutable_attr(), "mgsim_duration_ns", duration);
    last_compute_ = node.id();
    return node;
  }

  void add_forward() {
    Node& node = add_compute("forward", workload_.profile.forward);
    add_double(*node.mutable_attr(), "mgsim_forward_s", workload_.trace.forward_time_s);
  }

  /// Backward-order layer u: one node per span between the times its tensors become ready.
  void add_layer(int u) {
    const TensorLayout& layout = workload_.layout;
    const int l = layout.layer_count() - 1 - u;
    const SimTime backward = workload_.profile.backward[static_cast<std::size_t>(l)];
    const int begin = layout.layer_begin[static_cast<std::size_t>(u)];
    const int end = layout.layer_begin[static_cast<std::size_t>(u) + 1];
    std::vector<SimTime> ends{backward};
    for (int t = begin; t < end; ++t) {
      const SimTime at = ready_offset(t, backward);
      if (at > 0) ends.push_back(at);
    }
    std::sort(ends.begin(), ends.end());
    ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
    const std::uint64_t before = last_compute_;
    const std::string& name = layout.layer_name[static_cast<std::size_t>(l)];
    for (std::size_t k = 0; k < ends.size(); ++k) {
      const SimTime start = k == 0 ? 0 : ends[k - 1];
      Node& node = add_compute(ends.size() == 1 ? "backward:" + name : fmt::format("backward:{}:{}", name, k),
                               ends[k] - start);
      if (k == 0) describe_layer(*node.mutable_attr(), workload_.trace.layers[static_cast<std::size_t>(l)]);
    }
    const std::uint64_t first = before + 1;
    for (int t = begin; t < end; ++t) {
      const SimTime at = ready_offset(t, backward);
      const auto k = static_cast<std::uint64_t>(std::lower_bound(ends.begin(), ends.end(), at) - ends.begin());
      ready_node_[static_cast<std::size_t>(t)] = at == 0 ? before : first + k;
    }
  }

  SimTime ready_offset(int t, SimTime backward) const {
    const TensorLayout& layout = workload_.layout;
    return std::min(backward, workload_.profile.ready_offset(layout.layer[static_cast<std::size_t>(t)],
                                                             layout.index_in_layer[static_cast<std::size_t>(t)]));
  }

  static void describe_layer(Attributes& attrs, const Layer& layer) {
    add_string(attrs, "mgsim_layer", layer.name);
    add_double(attrs, "mgsim_backward_s", layer.backward_time_s);
    add_ints(attrs, "mgsim_params", layer.params);
    add_int(attrs, "mgsim_dtype_bytes", layer.dtype_bytes);
    if (!layer.grad_ready_s.empty()) add_doubles(attrs, "mgsim_grad_ready_s", layer.grad_ready_s);
    if (layer.forward_time_s > 0) add_double(attrs, "mgsim_layer_forward_s", layer.forward_time_s);
  }

  /// The top-k selection of each sparse message whose last layer is u.
  void add_selections(int u) {
    for (const std::size_t m : selections_after_[static_cast<std::size_t>(u)]) {
      Node& node = add_compute(fmt::format("selection:{}", m), plan_[m].selection);
      add_int(*node.mutable_attr(), "mgsim_message", static_cast<std::int64_t>(m));
      selection_node_[m] = node.id();
    }
  }

  void add_message(std::size_t m) {
    const Message& message = plan_[m];
    const bool gather = message.kind == CollectiveKind::sparse_allgather;
    Node& node = file_.nodes.emplace_back();
    node.set_id(file_.nodes.size() - 1);
    node.set_name(fmt::format("{}:{}", gather ? "all_gather" : "all_reduce", m));
    node.set_type(ChakraProtoMsg::COMM_COLL_NODE);
    node.set_duration_micros(micros(message.duration));
    std::vector<std::uint64_t> deps(ready_node_.begin() + message.begin, ready_node_.begin() + message.end);
    if (selection_node_[m]) deps.push_back(*selection_node_[m]);
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    for (std::uint64_t dep : deps) node.add_data_deps(dep);
    if (last_message_) node.add_ctrl_deps(*last_message_);
    last_message_ = node.id();
    Attributes& attrs = *node.mutable_attr();
    add_bool(attrs, "is_cpu_op", false);
    add_int(attrs, "comm_type", gather ? ChakraProtoMsg::ALL_GATHER : ChakraProtoMsg::ALL_REDUCE);
    add_int(attrs, "comm_size", message.sent_bytes);
    add_ints(attrs, "mgsim_tensors", {message.begin, message.end});
    add_int(attrs, "mgsim_bytes", message.bytes);
    add_int(attrs, "mgsim_duration_ns", message.duration);
    add_int(attrs, "mgsim_not_before_ns", message.not_before);
    add_int(attrs, "mgsim_selection_ns", message.selection);
  }

  const Workload& workload_;
  const Plan& plan_;
  EtFile file_;
  std::vector<std::uint64_t> ready_node_;  ///< per tensor (backward order): the node it is ready after
  std::vector<std::optional<std::uint64_t>> selection_node_;  ///< per message: its top-k selection's node
  std::vector<std::vector<std::size_t>> selections_after_;     ///< per backward-order layer: the selections it ends
  std::uint64_t last_compute_ = 0;
  std::optional<std::uint64_t> last_message_;
};

}  // namespace

std::string export_rank(const Workload& workload, const Plan& plan, const ExportLabel& label) {
  const auto sharded = [](const Message& m) {
    return m.kind == CollectiveKind::reduce_scatter || m.kind == CollectiveKind::param_allgather;
  };
  if (std::any_of(plan.begin(), plan.end(), sharded)) {
    throw ConfigError("export chakra: plans with reduce-scatters and parameter all-gathers (dear, zero1, zero2, "
                      "zero3, fsdp) cannot be exported yet");
  }
  EtFile file = RankWriter(workload, plan).write();
  file.metadata.set_version("0.0.4");
  Attributes& attrs = *file.metadata.mutable_attr();
  add_string(attrs, "mgsim_model", workload.trace.model);
  add_int(attrs, "mgsim_batch_size", workload.trace.batch_size);
  // The rest of the trace, so that an import gives it back whole (red team: the optimizer step, the layers'
  // forward times and the in-situ all-reduces were lost).
  if (workload.trace.optimizer_bytes_per_s > 0) {
    add_double(attrs, "mgsim_optimizer_bytes_per_s", workload.trace.optimizer_bytes_per_s);
  }
  if (!workload.trace.insitu_allreduce.empty()) {
    std::vector<std::int64_t> gpus, bytes;
    std::vector<double> seconds;
    for (const CurvePoint& point : workload.trace.insitu_allreduce) {
      gpus.push_back(point.gpus);
      bytes.push_back(point.bytes);
      seconds.push_back(point.seconds);
    }
    add_ints(attrs, "mgsim_insitu_gpus", gpus);
    add_ints(attrs, "mgsim_insitu_bytes", bytes);
    add_doubles(attrs, "mgsim_insitu_seconds", seconds);
  }
  // What the import must find again: a file cut between two records decodes whole.
  add_int(attrs, "mgsim_layers", std::ssize(workload.trace.layers));
  add_int(attrs, "mgsim_messages", std::ssize(plan));
  add_string(attrs, "mgsim_producer", label.producer);
  add_string(attrs, "mgsim_provenance", label.provenance);
  return encode_et(file);
}

}  // namespace mgsim::chakra
