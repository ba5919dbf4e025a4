// `mgsim plan`: the Pareto frontier of parallelization strategies (iteration
// time vs memory per device) of a zoo model on a cluster, and with a memory
// limit the fastest plan that fits (docs/plan.md).

#include <cctype>
#include <array>
#include <charconv>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/plan/cluster.hpp"
#include "mgsim/plan/plan_report.hpp"
#include "mgsim/zoo/calibration.hpp"
#include "mgsim/zoo/models.hpp"

namespace mgsim::cli {
namespace {

using namespace mgsim::plan;

struct PlanOptions {
  std::string model;
  int gpus = 0;
  int batch = 8;
  int image_size = 0;
  int seq_len = 0;
  bool aux_heads = false;
  std::string trace;
  std::string gpu = "h100";
  std::string precision = "bf16";
  std::string optimizer = "adam";
  std::string cluster;
  std::optional<std::string> memory_limit;
  std::int64_t frontier_bound = static_cast<std::int64_t>(SearchOptions{}.frontier_bound);
  bool allow_replication = false;
  std::string format = "table";
  std::string output;
};

/// Largest --memory-limit: 1 PiB per GPU, far past any device.
constexpr double kMaxMemoryBytes = 0x1p50;

/// "40GiB", "80GB", "512MiB", "1e9B": bytes, at least one and at most
/// kMaxMemoryBytes. The unit is required (B, KB, MB, GB, TB: powers of 1000;
/// KiB .. TiB: of 1024): a bare "0.5" or "40" is refused, never read as bytes.
std::int64_t parse_size(const std::string& text) {
  const auto bad = [&](std::string_view why) {
    return ConfigError(fmt::format("--memory-limit: expected a size with a unit such as 40GiB or 80GB (1 byte .. "
                                   "1 PiB){}, got '{}'", why, text));
  };
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || !std::isfinite(value) || value <= 0) throw bad("");
  const std::string unit(end, text.data() + text.size());
  if (unit.empty()) throw bad(": the unit is missing");
  constexpr std::array<std::pair<std::string_view, double>, 9> kUnits{{{"B", 1}, {"KB", 1e3}, {"MB", 1e6},
      {"GB", 1e9}, {"TB", 1e12}, {"KiB", 0x1p10}, {"MiB", 0x1p20}, {"GiB", 0x1p30}, {"TiB", 0x1p40}}};
  for (const auto& [name, scale] : kUnits) {
    if (unit == name && value * scale >= 1 && value * scale <= kMaxMemoryBytes) {
      return static_cast<std::int64_t>(value * scale);
    }
  }
  throw bad("");
}

/// Largest global batch (batch x gpus): the zoo's largest batch size.
constexpr std::int64_t kMaxGlobalBatch = std::int64_t{1} << 20;

/// Largest --frontier-bound: the search keeps up to this many points per
/// table entry, so its memory and time grow with it (docs/plan.md): gpt2-xl
/// on 65536 GPUs takes 0.6 s at 32, 12 s at 1024 (2-core dev machine).
constexpr std::int64_t kMaxFrontierBound = 1024;

/// Validates the numeric flags before anything is built.
void check_numbers(const PlanOptions& o) {
  if (o.gpus < 1 || o.gpus > (1 << 16) || (o.gpus & (o.gpus - 1)) != 0) {
    throw ConfigError(fmt::format("--gpus: expected a power of two in 1..65536, got {}", o.gpus));
  }
  if (o.batch < 1 || o.batch > kMaxGlobalBatch) {
    throw ConfigError(fmt::format("--batch: expected samples per GPU in 1..{}, got {}", kMaxGlobalBatch, o.batch));
  }
  if (std::int64_t{o.batch} * o.gpus > kMaxGlobalBatch) {
    throw ConfigError(fmt::format("--batch {} x --gpus {}: the global batch {} is past the largest, {}", o.batch, o.gpus,
                                  std::int64_t{o.batch} * o.gpus, kMaxGlobalBatch));
  }
  if (o.frontier_bound < 2 || o.frontier_bound > kMaxFrontierBound) {
    throw ConfigError(fmt::format("--frontier-bound: expected 2..{} points, got {}", kMaxFrontierBound, o.frontier_bound));
  }
  if (o.memory_limit && o.memory_limit->empty()) {
    throw ConfigError("--memory-limit: expected a size with a unit such as 40GiB or 80GB, got ''");
  }
}

zoo::ModelGraph build(const PlanOptions& o, int batch, zoo::Precision precision) {
  return zoo::build_model(o.model, {batch, o.image_size, o.seq_len, o.aux_heads, zoo::precision_bytes(precision)});
}

/// The cost settings; with --trace the roofline's efficiencies are fitted to
/// it. `timing` says which roofline, for the report.
CostSettings cost_settings(const PlanOptions& o, const zoo::GpuSpec& gpu, std::string& timing) {
  CostSettings settings;
  settings.devices = o.gpus;
  settings.precision = zoo::parse_precision(o.precision);
  gpu.peak_tflops(settings.precision);  // refuse an unsupported precision before building
  settings.roofline = zoo::RooflineSettings::defaults_for(gpu);
  settings.optimizer = parse_optimizer(o.optimizer);
  settings.allow_replication = o.allow_replication;
  timing = fmt::format("the roofline of {} at its default efficiencies", gpu.name);
  if (!o.trace.empty()) {
    const Trace measured = load_trace(o.trace);
    const zoo::ModelGraph graph = build(o, measured.batch_size, settings.precision);
    settings.roofline = zoo::calibrate(measured, graph, gpu, settings.precision, settings.roofline, {}).after;
    timing = fmt::format("the roofline of {} with efficiencies fitted to {}", gpu.name, o.trace);
  }
  return settings;
}

void plan_command(const PlanOptions& o) {
  const ReportFormat format = parse_report_format(o.format);
  check_numbers(o);
  const std::optional<std::int64_t> limit = o.memory_limit ? std::optional(parse_size(*o.memory_limit)) : std::nullopt;
  const plan::Cluster cluster = o.cluster.empty() ? default_cluster() : load_cluster(o.cluster);
  const zoo::GpuSpec& gpu = zoo::find_gpu(o.gpu);
  std::string timing;
  const CostSettings settings = cost_settings(o, gpu, timing);
  const zoo::ModelGraph graph = build(o, o.batch * o.gpus, settings.precision);
  const std::unique_ptr<Collective> collective = cluster.make_collective();
  const CostModel model(graph, gpu, *collective, settings);
  SearchOptions search;
  search.frontier_bound = static_cast<std::size_t>(o.frontier_bound);
  const SearchResult result = search_frontier(model, search);
  const std::string where = fmt::format("{} ({}, {} GPUs per node)", cluster.source, cluster.collective,
                                        cluster.settings.gpus_per_node);
  const PlanReport report{&model, &result, std::string(gpu.name), where, timing, limit};
  switch (format) {
    case ReportFormat::csv: return emit(format_plan_csv(report), o.output);
    case ReportFormat::json: return emit(format_plan_json(report), o.output);
    case ReportFormat::table: return emit(format_plan_table(report), o.output);
  }
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* command = app.add_subcommand("plan", "frontier of parallelization strategies: iteration time vs memory per GPU");
  command->add_option("--model", o->model, "zoo model (see `mgsim zoo list`)")->required();
  command->add_option("--gpus", o->gpus, "devices, a power of two")->required();
  command->add_option("--batch", o->batch, "samples per GPU; the global batch is batch x gpus")->capture_default_str();
  command->add_option("--image-size", o->image_size, "vision models: input height = width (default: the model's)")
      ->check(CLI::Range(1, 1 << 20));
  command->add_option("--seq-len", o->seq_len, "text models: tokens per sample (default: the model's)")
      ->check(CLI::Range(1, 1 << 20));
  command->add_flag("--aux-heads", o->aux_heads, "add GoogLeNet / Inception-v3 auxiliary heads, BERT pre-training heads");
  command->add_option("--trace", o->trace, "measured trace of the model: fit the roofline's efficiencies to it (as `mgsim zoo calibrate`)")
      ->transform(shipped_data());
  command->add_option("--gpu", o->gpu, "GPU catalogue entry for the roofline")->capture_default_str();
  command->add_option("--precision", o->precision, "fp32, tf32, fp16 or bf16")->capture_default_str();
  command->add_option("--optimizer", o->optimizer, "sgd, momentum or adam")->capture_default_str();
  command->add_option("--cluster", o->cluster, "cluster file: collective, gpus_per_node, network (default: see docs/plan.md)")
      ->transform(shipped_data());
  command->add_option("--memory-limit", o->memory_limit, "memory per GPU, e.g. 40GiB or 80GB: show the fastest plan that fits");
  command->add_option("--frontier-bound", o->frontier_bound, "most points per frontier table entry")->capture_default_str();
  command->add_flag("--allow-replication", o->allow_replication, "also try operators computed redundantly (split product below gpus)");
  command->add_option("-f,--format", o->format, "table, csv or json")->capture_default_str();
  command->add_option("-o,--output", o->output, "file to write instead of stdout (-: stdout)");
  add_examples(command, {"mgsim plan --model bert-large --gpus 16 --memory-limit 40GiB",
                         "mgsim plan --model gpt2-xl --gpus 64 --batch 3 --cluster configs/cluster-h100-ndr.json --format csv -o plan.csv"});
  command->callback([o] { plan_command(*o); });
}

}  // namespace mgsim::cli
