// Reading an ET: the framing and the graph, then mgsim's own attributes when
// the file is an mgsim export, else the generic rules (et_import_generic.cpp).

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "et_attributes.hpp"
#include "et_graph.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/limits.hpp"

namespace mgsim::chakra {
namespace {

template <typename T>
T required(const std::optional<T>& value, const std::string& what, std::string_view name) {
  if (!value) throw TraceError(fmt::format("{}: attribute '{}' missing", what, name));
  return *value;
}

double seconds_attr(const Attributes& attrs, std::string_view name, const std::string& what) {
  const double s = required(double_attr(attrs, name, what), what, name);
  if (!std::isfinite(s) || s < 0 || s > kMaxStepSeconds) {
    throw TraceError(fmt::format("{}: attribute '{}': expected seconds in [0, {}], got {}", what, name, kMaxStepSeconds, s));
  }
  return s;
}

Layer read_layer(const Attributes& attrs, const std::string& what) {
  Layer layer;
  layer.name = required(string_attr(attrs, "mgsim_layer", what), what, "mgsim_layer");
  layer.backward_time_s = seconds_attr(attrs, "mgsim_backward_s", what);
  layer.params = required(ints_attr(attrs, "mgsim_params", what), what, "mgsim_params");
  const std::int64_t dtype = required(int_attr(attrs, "mgsim_dtype_bytes", what), what, "mgsim_dtype_bytes");
  if (dtype < 1 || dtype > kMaxDtypeBytes) {
    throw TraceError(fmt::format("{}: mgsim_dtype_bytes: expected 1 to {}", what, kMaxDtypeBytes));
  }
  layer.dtype_bytes = static_cast<int>(dtype);
  for (std::int64_t n : layer.params) {
    if (n < 1 || n > kMaxTensorElements) {
      throw TraceError(fmt::format("{}: mgsim_params: expected element counts in [1, {}]", what, kMaxTensorElements));
    }
  }
  layer.grad_ready_s = doubles_attr(attrs, "mgsim_grad_ready_s", what).value_or(std::vector<double>{});
  if (find_attr(attrs, "mgsim_layer_forward_s")) layer.forward_time_s = seconds_attr(attrs, "mgsim_layer_forward_s", what);
  return layer;
}

/// Nanoseconds in [0, `most` seconds]: a step's (kMaxStepSeconds), or a time within the iteration's compute.
SimTime ns_attr(const Attributes& attrs, std::string_view name, const std::string& what, double most = kMaxStepSeconds) {
  const std::int64_t ns = required(int_attr(attrs, name, what), what, name);
  if (ns < 0 || ns > to_ns(most)) {
    throw TraceError(fmt::format("{}: attribute '{}': expected nanoseconds in [0, {}]", what, name, to_ns(most)));
  }
  return ns;
}

Message read_message(const ChakraProtoMsg::Node& node, const std::string& what) {
  const Attributes& attrs = node.attr();
  const std::vector<std::int64_t> range = required(ints_attr(attrs, "mgsim_tensors", what), what, "mgsim_tensors");
  if (range.size() != 2 || range[0] < 0 || range[1] <= range[0] || range[1] > kMaxLayers * 1024) {
    throw TraceError(fmt::format("{}: mgsim_tensors: expected [begin, end) with 0 <= begin < end", what));
  }
  Message m;
  m.begin = static_cast<int>(range[0]);
  m.end = static_cast<int>(range[1]);
  m.bytes = required(int_attr(attrs, "mgsim_bytes", what), what, "mgsim_bytes");
  m.sent_bytes = required(int_attr(attrs, "comm_size", what), what, "comm_size");
  m.duration = ns_attr(attrs, "mgsim_duration_ns", what);
  // A time in the iteration, past an hour where the compute is (red team: an export's own was refused).
  m.not_before = ns_attr(attrs, "mgsim_not_before_ns", what, kMaxComputeSeconds);
  m.selection = ns_attr(attrs, "mgsim_selection_ns", what);
  const std::int64_t type = required(int_attr(attrs, "comm_type", what), what, "comm_type");
  if (type != ChakraProtoMsg::ALL_REDUCE && type != ChakraProtoMsg::ALL_GATHER) {
    throw TraceError(fmt::format("{}: comm_type {}: mgsim writes ALL_REDUCE (0) or ALL_GATHER (2)", what, type));
  }
  m.kind = type == ChakraProtoMsg::ALL_GATHER ? CollectiveKind::sparse_allgather : CollectiveKind::allreduce;
  return m;
}

/// Whether node i is one mgsim writes besides the forward, a layer's first span and a message.
bool is_mgsim_compute(const ChakraProtoMsg::Node& node) {
  return node.type() == ChakraProtoMsg::COMP_NODE && find_attr(node.attr(), "mgsim_duration_ns");
}

/// The in-situ all-reduces an export wrote (mgsim_insitu_*: three lists of one length) into `trace`.
void read_insitu(const Attributes& meta, const std::string& what, Trace& trace) {
  const auto gpus = ints_attr(meta, "mgsim_insitu_gpus", what);
  const auto bytes = ints_attr(meta, "mgsim_insitu_bytes", what);
  const auto seconds = doubles_attr(meta, "mgsim_insitu_seconds", what);
  if (!gpus && !bytes && !seconds) return;
  if (!gpus || !bytes || !seconds || gpus->size() != bytes->size() || gpus->size() != seconds->size()) {
    throw TraceError(fmt::format("{}: mgsim_insitu_gpus, _bytes and _seconds: expected three lists of one length", what));
  }
  for (std::size_t i = 0; i < gpus->size(); ++i) {
    const std::int64_t ranks = (*gpus)[i], size = (*bytes)[i];
    const double s = (*seconds)[i];
    if (ranks < 1 || ranks > kMaxGpus || size < 0 || size > kMaxTensorElements * 16 || !(s >= 0 && s <= kMaxStepSeconds)) {
      throw TraceError(fmt::format("{}: mgsim_insitu_* [{}]: expected 1 to {} GPUs, bytes in [0, {}] and seconds in "
                                   "[0, {}], got {}, {} and {}",
                                   what, i, kMaxGpus, kMaxTensorElements * 16, kMaxStepSeconds, ranks, size, s));
    }
    trace.insitu_allreduce.push_back({static_cast<int>(ranks), size, s});
  }
}

/// Each message within the tensors and no larger than they are: a damaged layer (red team: a byte changed
/// its element count from 1,024,000 to 8,192, and the message sizes that contradicted it were not read).
void check_messages(const Imported& imported, const std::string& source) {
  const std::vector<std::int64_t> tensor_bytes = make_layout(imported.trace).bytes;  // as messages count tensors
  const auto tensors = std::ssize(tensor_bytes);
  for (const Message& m : imported.messages) {
    if (m.end > tensors) {
      throw TraceError(fmt::format("{}: a message covers tensors [{}, {}) of {}", source, m.begin, m.end, tensors));
    }
    std::int64_t held = 0;
    for (int t = m.begin; t < m.end; ++t) held += tensor_bytes[static_cast<std::size_t>(t)];
    if (m.bytes > held) {
      throw TraceError(fmt::format("{}: a message of {} bytes covers tensors [{}, {}), which hold {}: a damaged file",
                                   source, m.bytes, m.begin, m.end, held));
    }
  }
}

}  // namespace

Imported import_mgsim(const EtFile& file, const EtGraph& graph, const std::string& source) {
  Imported imported;
  imported.from_mgsim = true;
  const Attributes& meta = file.metadata.attr();
  const std::string what = source + ": GlobalMetadata";
  imported.trace.model = required(string_attr(meta, "mgsim_model", what), what, "mgsim_model");
  const std::int64_t batch = required(int_attr(meta, "mgsim_batch_size", what), what, "mgsim_batch_size");
  if (batch < 1 || batch > (1 << 30)) throw TraceError(fmt::format("{}: mgsim_batch_size out of range", what));
  imported.trace.batch_size = static_cast<int>(batch);
  imported.provenance = string_attr(meta, "mgsim_provenance", what).value_or("");
  if (find_attr(meta, "mgsim_optimizer_bytes_per_s")) {
    imported.trace.optimizer_bytes_per_s = required(double_attr(meta, "mgsim_optimizer_bytes_per_s", what), what,
                                                    "mgsim_optimizer_bytes_per_s");
  }
  read_insitu(meta, what, imported.trace);
  std::size_t unmapped = 0;
  for (std::size_t i : graph.order) {
    const ChakraProtoMsg::Node& node = file.nodes[i];
    const std::string where = describe(file, i, source);
    if (find_attr(node.attr(), "mgsim_forward_s")) {
      imported.trace.forward_time_s = seconds_attr(node.attr(), "mgsim_forward_s", where);
    } else if (find_attr(node.attr(), "mgsim_layer")) {
      imported.trace.layers.push_back(read_layer(node.attr(), where));
    } else if (node.type() == ChakraProtoMsg::COMM_COLL_NODE && find_attr(node.attr(), "mgsim_tensors")) {
      imported.messages.push_back(read_message(node, where));
    } else if (!is_mgsim_compute(node)) {
      ++unmapped;
    }
  }
  if (imported.trace.layers.empty()) throw TraceError(fmt::format("{}: no node carries mgsim_layer", source));
  const auto check_count = [&](const char* key, std::size_t found, std::string_view what_found) {
    const std::optional<std::int64_t> exported = int_attr(meta, key, what);  // absent in exports before they were written
    if (exported && *exported != static_cast<std::int64_t>(found)) {
      throw TraceError(fmt::format("{}: {} {}, but the export wrote {} ({}): a cut or damaged file", source, found,
                                   what_found, *exported, key));
    }
  };
  check_count("mgsim_layers", imported.trace.layers.size(), "layers");
  check_count("mgsim_messages", imported.messages.size(), "collectives");
  std::reverse(imported.trace.layers.begin(), imported.trace.layers.end());
  check_messages(imported, source);
  if (unmapped > 0) {
    imported.warnings.push_back(fmt::format("{}: {} nodes carry no mgsim attributes and were not mapped", source, unmapped));
  }
  return imported;
}

Imported import_et(std::string_view bytes, const std::string& source) {
  const EtFile file = decode_et(bytes, source);
  const EtGraph graph = order_nodes(file, source);
  Imported imported = find_attr(file.metadata.attr(), "mgsim_model") ? import_mgsim(file, graph, source)
                                                                      : import_generic(file, graph, source);
  if (graph.dangling > 0) {
    imported.warnings.push_back(fmt::format(
        "{}: {} dependencies name nodes that are not in the file; they were ignored", source, graph.dangling));
  }
  return imported;
}

}  // namespace mgsim::chakra
