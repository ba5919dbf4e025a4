#include "mgsim/app/sweep_fingerprint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <system_error>

#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/report.hpp"

namespace mgsim {
namespace {

constexpr std::string_view kMagic = "mgsim-sweep-fingerprint ";

/// Appends the fields of a grid as text, numbers exact ({:a}).
class Canon {
 public:
  template <typename... Fields>
  void line(std::string_view tag, const Fields&... fields) {
    text_ += tag;
    ((text_ += ' ', add(fields)), ...);
    text_ += '\n';
  }
  const std::string& text() const { return text_; }

 private:
  void add(double value) { text_ += fmt::format("{:a}", value); }
  void add(std::int64_t value) { text_ += fmt::format("{}", value); }
  void add(int value) { text_ += fmt::format("{}", value); }
  void add(std::string_view value) { text_ += fmt::format("{}:{}", value.size(), value); }
  std::string text_;
};

void add_trace(Canon& canon, const Trace& trace) {
  canon.line("trace", std::string_view(trace.model), trace.batch_size, trace.forward_time_s);
  for (const Layer& layer : trace.layers) {
    canon.line("layer", std::string_view(layer.name), layer.dtype_bytes, layer.backward_time_s);
    for (const std::int64_t elements : layer.params) canon.line("tensor", elements);
    for (const double ready : layer.grad_ready_s) canon.line("ready", ready);
  }
}

void add_link(Canon& canon, const Link& link) {
  canon.line("link", link.alpha_s, link.beta_s_per_byte, link.gamma_s_per_byte);
}

void add_schedule(Canon& canon, const ScheduleSpec& spec) {
  canon.line("schedule", std::string_view(spec.name));
  for (const auto& [key, value] : spec.params) canon.line("param", std::string_view(key), value);
  for (const auto& [layer, density] : spec.sparse.layer_density) canon.line("density", std::string_view(layer), density);
  for (const SelectionPoint& p : spec.sparse.selection_curve) canon.line("selection", p.elements, p.seconds);
  for (const auto& [key, value] : spec.choices) canon.line("choice", std::string_view(key), std::string_view(value));
  if (spec.graph) {
    canon.line("graph", spec.graph->vertices());
    for (const auto& [a, b] : spec.graph->edges()) canon.line("edge", a, b);
  }
}

/// Nothing without variability: the iteration count changes no row then.
void add_variability(Canon& canon, const Variability& variability, int iterations) {
  if (variability.none()) return;
  canon.line("variability", std::string_view(variability.law), to_string(variability.per),
             static_cast<std::int64_t>(variability.seed), iterations);
  for (const auto& [key, value] : variability.params) canon.line("law_param", std::string_view(key), value);
  for (const int rank : variability.stragglers.ranks) canon.line("straggler", rank, variability.stragglers.speed);
}

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

}  // namespace

std::string sweep_fingerprint(const Sweep& sweep, const SweepShard& shard) {
  const SweepConfig& config = sweep.config();
  Canon canon;
  canon.line("shard", shard.index, shard.count);
  for (std::size_t i = 0; i < config.traces.size(); ++i) {
    canon.line("label", std::string_view(config.trace_labels[i]));
    add_trace(canon, sweep.workloads()[i].trace);
  }
  for (const int gpus : config.gpus) canon.line("gpus", gpus);
  for (const int per_node : config.gpus_per_node) canon.line("gpus_per_node", per_node);
  for (const std::string& name : config.collectives) canon.line("collective", std::string_view(name));
  for (const SweepNetwork& entry : config.networks) {
    canon.line("network", std::string_view(entry.label));
    add_link(canon, entry.network.intra);
    add_link(canon, entry.network.inter);
  }
  for (const CurvePoint& p : config.curve) canon.line("curve", p.gpus, p.bytes, p.seconds);
  for (const ScheduleSpec& spec : config.schedules) add_schedule(canon, spec);
  add_variability(canon, config.variability, config.iterations);
  // Standalone builders run the iterations with the seed even without variability.
  const auto is_builder = [](const ScheduleSpec& spec) { return spec.builder() != nullptr; };
  if (std::any_of(config.schedules.begin(), config.schedules.end(), is_builder)) {
    canon.line("builder_runs", static_cast<std::int64_t>(config.variability.seed), config.iterations);
  }
  return fmt::format("{:016x}", fnv1a(canon.text()));
}

std::filesystem::path fingerprint_file(const std::filesystem::path& csv) { return csv.string() + ".fingerprint"; }

void check_fingerprint(const std::filesystem::path& csv, const std::string& fingerprint) {
  std::error_code error;
  if (std::filesystem::file_size(csv, error) == 0 || error) return;  // nothing to keep
  const std::filesystem::path sidecar = fingerprint_file(csv);
  std::string found;
  try {
    found = read_input_file(sidecar, InputKind::config);
  } catch (const Error&) {
    throw OutputError(fmt::format("{}: cannot resume: {} is missing or unreadable, so its rows cannot be checked "
                                  "against this sweep (remove the file or write elsewhere)",
                                  csv.string(), sidecar.string()));
  }
  if (found != fmt::format("{}{}\n", kMagic, fingerprint)) {
    throw OutputError(fmt::format("{}: cannot resume: its rows were computed from another configuration (a trace, "
                                  "network, curve or schedule parameter changed; {} differs): remove the file or "
                                  "write elsewhere",
                                  csv.string(), sidecar.string()));
  }
}

void write_fingerprint(const std::filesystem::path& csv, const std::string& fingerprint) {
  write_file_atomically(fingerprint_file(csv), fmt::format("{}{}\n", kMagic, fingerprint));
}

}  // namespace mgsim
