// Any data-parallel ET as an mgsim trace (docs/chakra.md, "Import"): GPU
// compute nodes in dependency order are one compute stream; each ALL_REDUCE
// or ALL_GATHER node is one gradient message, and the layer it carries is the
// compute between the previous message's last compute ancestor and its own.
// The forward is the compute before the first node named "backward". Every
// node of another kind, every CPU op and the compute after the last message
// is reported in a warning with its count.

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "et_attributes.hpp"
#include "et_graph.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/counted.hpp"
#include "mgsim/limits.hpp"

namespace mgsim::chakra {
namespace {

struct Stream {
  std::vector<SimTime> compute;             ///< GPU compute nodes in order: their durations
  std::ptrdiff_t backward_start = -1;       ///< first compute node named *backward*
  std::vector<std::size_t> messages;        ///< gradient collectives, in order
  std::vector<std::ptrdiff_t> trigger;      ///< per message: its last compute ancestor (-1: none)
  std::map<std::string, std::size_t> skipped;  ///< what was not mapped, by kind
  bool cpu_backward = false;                 ///< a CPU op is named *backward* (not GPU compute)
};

bool names_backward(const std::string& name) {
  return ascii_lower(name).find("backward") != std::string::npos;
}

std::string collective_name(std::int64_t type) {
  return ChakraProtoMsg::CollectiveCommType_IsValid(static_cast<int>(type))
             ? ChakraProtoMsg::CollectiveCommType_Name(static_cast<ChakraProtoMsg::CollectiveCommType>(type))
             : fmt::format("comm_type {}", type);
}

/// Whether a COMM_COLL_NODE is a gradient message; else counts it in `skipped`.
bool is_gradient_message(const ChakraProtoMsg::Node& node, const std::string& what, Stream& stream) {
  const std::optional<std::int64_t> type = int_attr(node.attr(), "comm_type", what);
  if (!type) return ++stream.skipped["COMM_COLL_NODE without comm_type"], false;
  if (*type == ChakraProtoMsg::ALL_REDUCE || *type == ChakraProtoMsg::ALL_GATHER) return true;
  ++stream.skipped[collective_name(*type) + " collectives"];
  return false;
}

/// A node's duration, at most an hour (the longest step: docs/limits.md), named where past it (red team: clamped
/// at 2^40 us, then refused by the trace writer as that figure, naming no node).
SimTime node_duration(const ChakraProtoMsg::Node& node, const std::string& what) {
  const std::uint64_t micros = node.duration_micros();
  if (static_cast<double>(micros) > kMaxStepSeconds * 1e6) {
    throw TraceError(fmt::format("{}: duration_micros {}: expected at most {:g} (an hour, the longest step)", what,
                                 micros, kMaxStepSeconds * 1e6));
  }
  return static_cast<SimTime>(micros) * 1000;
}

Stream read_stream(const EtFile& file, const EtGraph& graph, const std::string& source) {
  Stream stream;
  std::vector<std::ptrdiff_t> last_compute(file.nodes.size(), -1);
  for (std::size_t i : graph.order) {
    const ChakraProtoMsg::Node& node = file.nodes[i];
    const std::string what = describe(file, i, source);
    for (std::size_t p : graph.parents[i]) last_compute[i] = std::max(last_compute[i], last_compute[p]);
    const ChakraProtoMsg::AttributeProto* cpu = find_attr(node.attr(), "is_cpu_op");
    if (node.type() == ChakraProtoMsg::COMP_NODE && cpu && cpu->bool_val()) {
      ++stream.skipped["CPU ops (is_cpu_op: not GPU compute)"];
      stream.cpu_backward = stream.cpu_backward || names_backward(node.name());
    } else if (node.type() == ChakraProtoMsg::COMP_NODE) {
      if (stream.backward_start < 0 && names_backward(node.name())) {
        stream.backward_start = static_cast<std::ptrdiff_t>(stream.compute.size());
      }
      last_compute[i] = static_cast<std::ptrdiff_t>(stream.compute.size());
      stream.compute.push_back(node_duration(node, what));
    } else if (node.type() == ChakraProtoMsg::COMM_COLL_NODE && is_gradient_message(node, what, stream)) {
      stream.messages.push_back(i);
      stream.trigger.push_back(last_compute[i]);
    } else if (node.type() != ChakraProtoMsg::COMM_COLL_NODE) {
      ++stream.skipped[ChakraProtoMsg::NodeType_Name(node.type()) + " nodes"];
    }
  }
  return stream;
}

SimTime sum(const std::vector<SimTime>& times, std::ptrdiff_t begin, std::ptrdiff_t end) {
  SimTime total = 0;
  for (std::ptrdiff_t k = std::max<std::ptrdiff_t>(begin, 0); k < end; ++k) total += times[static_cast<std::size_t>(k)];
  return total;
}

Message read_message(const ChakraProtoMsg::Node& node, int index, const std::string& what) {
  const std::optional<std::int64_t> given = int_attr(node.attr(), "comm_size", what);
  if (!given) throw TraceError(fmt::format("{}: comm_size: missing: expected the bytes the collective sends", what));
  const std::int64_t size = *given;
  if (size < 1 || size > kMaxTensorElements) {
    throw TraceError(fmt::format("{}: comm_size {}: expected bytes in [1, {}]", what, size, kMaxTensorElements));
  }
  Message m;
  m.begin = index;
  m.end = index + 1;
  m.bytes = m.sent_bytes = size;
  m.duration = node_duration(node, what);
  m.kind = int_attr(node.attr(), "comm_type", what) == ChakraProtoMsg::ALL_GATHER ? CollectiveKind::sparse_allgather
                                                                                 : CollectiveKind::allreduce;
  return m;
}

void warn_skipped(const Stream& stream, SimTime after, std::ptrdiff_t after_count, const std::string& source,
                  Imported& imported) {
  for (const auto& [kind, count] : stream.skipped) {
    imported.warnings.push_back(fmt::format("{}: {} {} not mapped (docs/chakra.md)", source, count, kind));
  }
  if (after_count > 0) {
    imported.warnings.push_back(fmt::format(
        "{}: {} compute nodes ({:.3f} ms) after the last gradient collective are not in the trace (mgsim's "
        "iteration is forward + backward)", source, after_count, to_seconds(after) * 1e3));
  }
  if (stream.backward_start < 0) {
    imported.warnings.push_back(fmt::format(
        "{}: no compute node is named *backward*{}: forward_time_s is 0 and the first layer holds all compute "
        "before its collective", source,
        stream.cpu_backward ? " (a CPU op is, and CPU ops are not GPU compute: the forward counts as backward)" : ""));
  }
}

}  // namespace

Imported import_generic(const EtFile& file, const EtGraph& graph, const std::string& source) {
  const Stream stream = read_stream(file, graph, source);
  if (stream.messages.empty()) {
    throw TraceError(fmt::format("{}: no ALL_REDUCE or ALL_GATHER collective: not a data-parallel step", source));
  }
  if (sum(stream.compute, 0, static_cast<std::ptrdiff_t>(stream.compute.size())) == 0) {
    throw TraceError(fmt::format("{}: no GPU compute (every COMP_NODE is a CPU op or takes 0 us): not a training step",
                                 source));
  }
  if (stream.messages.size() > static_cast<std::size_t>(kMaxTensors)) {
    throw TraceError(fmt::format("{}: more than {} gradient collectives", source, kMaxTensors));
  }
  Imported imported;
  const std::ptrdiff_t start = std::max<std::ptrdiff_t>(stream.backward_start, 0);
  imported.trace.forward_time_s = to_seconds(sum(stream.compute, 0, start));
  std::ptrdiff_t done = start;  // compute nodes [0, done) are accounted for
  int before_backward = 0;      // collectives after no backward compute (red team: 0 backward without a word)
  for (std::size_t k = 0; k < stream.messages.size(); ++k) {
    const std::size_t i = stream.messages[k];
    if (stream.backward_start >= 0 && stream.trigger[k] < stream.backward_start) ++before_backward;
    const std::string what = describe(file, i, source);
    const std::ptrdiff_t end = std::max(done, stream.trigger[k] + 1);
    Layer layer;
    layer.name = file.nodes[i].name();
    layer.dtype_bytes = 1;
    layer.backward_time_s = to_seconds(sum(stream.compute, done, end));
    imported.messages.push_back(read_message(file.nodes[i], static_cast<int>(k), what));
    layer.params = {imported.messages.back().bytes};
    imported.trace.layers.push_back(std::move(layer));
    done = end;
  }
  std::reverse(imported.trace.layers.begin(), imported.trace.layers.end());
  if (before_backward > 0) {
    imported.warnings.push_back(fmt::format(
        "{}: {} after no backward compute (only the forward, or nothing): a layer of 0 backward each, ready when "
        "the backward starts",
        source, counted(before_backward, "gradient collective")));
  }
  const auto total = static_cast<std::ptrdiff_t>(stream.compute.size());
  warn_skipped(stream, sum(stream.compute, done, total), total - done, source, imported);
  return imported;
}

}  // namespace mgsim::chakra
