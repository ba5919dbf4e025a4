// `mgsim plan`: the Pareto frontier of parallelization strategies (iteration
// time vs memory per device) of a zoo model, or of a user's measured trace, on
// a cluster, and with a memory limit the fastest plan that fits (docs/plan.md).

#include <cctype>
#include <array>
#include <charconv>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "mgsim/error.hpp"
#include "mgsim/counted.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/plan/cluster.hpp"
#include "mgsim/plan/plan_report.hpp"
#include "mgsim/plan/trace_graph.hpp"
#include "mgsim/plan/zero_search.hpp"
#include "mgsim/zoo/calibration.hpp"
#include "mgsim/zoo/models.hpp"

namespace mgsim::cli {
namespace {

using namespace mgsim::plan;

/// Default --max-work: candidate plans offered the frontiers, 12-25 M a
/// second on a 2-core machine (docs/performance.md). Every zoo model plans at
/// 65,536 GPUs within it (ResNet-152 the most, 5.3e8, 25 s); with
/// --allow-replication ResNet-50 passes it at 64 GPUs (red team: 512 ran past 120 s).
constexpr double kDefaultPlanWork = 6e8;

struct PlanOptions {
  std::string model;
  int gpus = 0;
  std::optional<int> batch;  ///< default: 8 for a zoo model, the trace's batch for a trace alone
  std::optional<int> image_size;
  std::optional<int> seq_len;
  bool aux_heads = false;
  std::string trace;
  std::optional<std::string> activation_bytes;
  std::string gpu = "h100";
  std::optional<std::string> precision;  ///< default: bf16 for a zoo model, the trace's element size for a trace alone
  std::string optimizer = "adam";
  std::string zero = "auto";
  std::string cluster;
  std::optional<std::string> memory_limit;
  std::int64_t frontier_bound = static_cast<std::int64_t>(SearchOptions{}.frontier_bound);
  bool allow_replication = false;
  double max_work = kDefaultPlanWork;
  std::string format = "table";
  std::string output;
};

/// A largest size an option takes: bytes, and as its message writes them.
struct SizeLimit {
  double bytes;
  std::string_view name;
};

/// Largest --memory-limit: 1 PiB per GPU, far past any device.
constexpr SizeLimit kMaxMemory{0x1p50, "1 PiB"};

/// Largest --activation-bytes, per sample: 1 TiB, so that the global batch's
/// activations (at most 2^20 samples) stay far inside 64-bit byte counts.
constexpr SizeLimit kMaxActivation{0x1p40, "1 TiB"};

/// "40GiB", "80GB", "512MiB", "1e9B": bytes, at least one and at most
/// `limit`. The unit is required (B, KB, MB, GB, TB, PB: powers of 1000;
/// KiB .. PiB: of 1024): a bare "0.5" or "40" is refused, never read as bytes.
/// `flag` names the option in the error.
std::int64_t parse_size(const std::string& text, std::string_view flag, SizeLimit limit) {
  const auto bad = [&](std::string_view why) {
    return ConfigError(fmt::format("{}: expected a size with a unit such as 40GiB or 80GB (1 byte .. "
                                   "{}){}, got '{}'", flag, limit.name, why, text));
  };
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || !std::isfinite(value) || value <= 0) throw bad("");
  const std::string unit(end, text.data() + text.size());
  if (unit.empty()) throw bad(": the unit is missing");
  constexpr std::array<std::pair<std::string_view, double>, 11> kUnits{{{"B", 1}, {"KB", 1e3}, {"MB", 1e6},
      {"GB", 1e9}, {"TB", 1e12}, {"PB", 1e15}, {"KiB", 0x1p10}, {"MiB", 0x1p20}, {"GiB", 0x1p30}, {"TiB", 0x1p40},
      {"PiB", 0x1p50}}};
  for (const auto& [name, scale] : kUnits) {
    if (unit == name && value * scale >= 1 && value * scale <= limit.bytes) {
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
void check_numbers(const PlanOptions& o, int batch) {
  if (o.gpus < 1 || o.gpus > (1 << 16) || (o.gpus & (o.gpus - 1)) != 0) {
    throw ConfigError(fmt::format("--gpus: expected a power of two in 1..65536, got {}", o.gpus));
  }
  if (batch < 1 || batch > kMaxGlobalBatch) {
    throw ConfigError(fmt::format("--batch: expected samples per GPU in 1..{}, got {}", kMaxGlobalBatch, batch));
  }
  if (std::int64_t{batch} * o.gpus > kMaxGlobalBatch) {
    throw ConfigError(fmt::format("--batch {} x --gpus {}: the global batch {} is past the largest, {}", batch, o.gpus,
                                  std::int64_t{batch} * o.gpus, kMaxGlobalBatch));
  }
  if (o.frontier_bound < 2 || o.frontier_bound > kMaxFrontierBound) {
    throw ConfigError(fmt::format("--frontier-bound: expected 2..{} points, got {}", kMaxFrontierBound, o.frontier_bound));
  }
  if (o.memory_limit && o.memory_limit->empty()) {
    throw ConfigError("--memory-limit: expected a size with a unit such as 40GiB or 80GB, got ''");
  }
}

/// --zero: every stage (auto) or one.
std::vector<int> zero_stages(const std::string& text) {
  if (text == "auto") return std::vector<int>(std::begin(kAllZeroStages), std::end(kAllZeroStages));
  if (text.size() == 1 && text[0] >= '0' && text[0] <= '0' + kMaxZeroStage) return {text[0] - '0'};
  throw ConfigError(fmt::format("--zero: expected auto (search stages 0..{0}) or a ZeRO stage 0..{0} "
                                "(3: parameters sharded too, as FSDP's full shard), got '{1}'", kMaxZeroStage, text));
}

zoo::ModelGraph build(const PlanOptions& o, int batch, zoo::Precision precision) {
  return zoo::build_model(o.model, {batch, o.image_size.value_or(0), o.seq_len.value_or(0), o.aux_heads,
                                    zoo::precision_bytes(precision)});
}

/// Refuses the flags that describe a zoo model in a plan of a trace alone,
/// and --memory-limit without the activations a trace does not record.
void check_trace_plan(const PlanOptions& o, const CLI::App& command) {
  for (const char* flag : {"--image-size", "--seq-len", "--aux-heads", "--gpu"}) {
    if (command.count(flag) > 0) {
      throw ConfigError(fmt::format("{} describes a zoo model: a plan of --trace alone times the trace's own layers "
                                    "(add --model to plan a zoo model calibrated to the trace)", flag));
    }
  }
  if (o.memory_limit && !o.activation_bytes) {
    throw ConfigError("--memory-limit with --trace alone needs --activation-bytes: the memory of the activations "
                      "stored per sample, which a trace does not record");
  }
}

/// The cost settings; with --trace the roofline's efficiencies are fitted to
/// it. `timing` says which roofline, for the report.
CostSettings cost_settings(const PlanOptions& o, const zoo::GpuSpec& gpu, std::string& timing) {
  CostSettings settings;
  settings.devices = o.gpus;
  settings.precision = zoo::parse_precision(o.precision.value_or("bf16"));
  try {  // refuse an unsupported precision before building
    gpu.peak_tflops(settings.precision);
  } catch (const ConfigError& error) {  // red team: the default bf16 on a K80 did not say how to choose another
    if (o.precision) throw;
    throw ConfigError(fmt::format("--precision not given, so bf16: {}: give --precision", error.what()));
  }
  settings.roofline = zoo::RooflineSettings::defaults_for(gpu);
  settings.optimizer = parse_optimizer(o.optimizer);
  settings.allow_replication = o.allow_replication;
  timing = fmt::format("the roofline of {} at its default efficiencies", gpu.name);
  if (!o.trace.empty()) {
    const Trace measured = load_trace(o.trace);
    const zoo::ModelGraph graph = build(o, measured.batch_size, settings.precision);
    try {
      settings.roofline = zoo::calibrate(measured, graph, gpu, settings.precision, settings.roofline, {}).after;
    } catch (const ConfigError& error) {  // which trace (red team: a layer named twice named no file)
      throw ConfigError(fmt::format("--trace {}: {}", o.trace, error.what()));
    }
    timing = fmt::format("the roofline of {} with efficiencies fitted to {}", gpu.name, o.trace);
  }
  settings.optimizer_bytes_per_s = zoo::optimizer_bytes_per_s(gpu, settings.roofline);  // as `mgsim zoo trace` writes it
  return settings;
}

/// What the search runs on: a zoo model's graph (timed by the roofline) or a
/// trace's (timed by the trace), with the report's description of the timing.
struct Problem {
  zoo::ModelGraph graph;
  CostSettings settings;
  std::string gpu;
  std::string timing;
};

Problem zoo_problem(const PlanOptions& o, int batch, const zoo::GpuSpec& gpu) {
  std::string timing;
  CostSettings settings = cost_settings(o, gpu, timing);
  zoo::ModelGraph graph = build(o, batch * o.gpus, settings.precision);
  return {std::move(graph), std::move(settings), std::string(gpu.name), std::move(timing)};
}

Problem trace_problem(const PlanOptions& o, const Trace& trace, int batch) {
  CostSettings settings;
  settings.devices = o.gpus;
  // fp32 for 4-byte gradients, bf16 for 2; trace_graph refuses a layer of another size.
  const bool half = !trace.layers.empty() && trace.layers.front().dtype_bytes == 2;
  settings.precision = zoo::parse_precision(o.precision.value_or(half ? "bf16" : "fp32"));
  settings.optimizer = parse_optimizer(o.optimizer);
  settings.optimizer_bytes_per_s = trace.optimizer_bytes_per_s;  // the trace's step, if it times one
  settings.allow_replication = o.allow_replication;
  const std::int64_t activations =
      o.activation_bytes ? parse_size(*o.activation_bytes, "--activation-bytes", kMaxActivation) : 0;
  TraceGraph traced =
      trace_graph(trace, o.trace, batch * o.gpus, zoo::precision_bytes(settings.precision), activations);
  settings.measured_s = std::move(traced.measured_s);
  std::string timing = fmt::format(
      "{}'s layer times (batch {}; the forward shared in proportion to the backward; linear in the batch); "
      "a trace has no shapes, so every layer is split along the batch only; activations {}",
      o.trace, trace.batch_size,
      o.activation_bytes ? fmt::format("{} per sample", *o.activation_bytes) : std::string("not counted"));
  return {std::move(traced.graph), std::move(settings), "the trace's GPU", std::move(timing)};
}

void plan_command(const PlanOptions& o, const CLI::App& command) {
  const ReportFormat format = parse_report_format(o.format);
  // Its folder there before a search of seconds (red team: refused after 15.6 s); checked against the inputs
  // when written, once they are read (a check here would take the output for no input: the trace overwritten).
  if (!o.output.empty() && o.output != kStdout) output_target(o.output);
  if (o.model.empty() && o.trace.empty()) {
    throw ConfigError("expected --model (a zoo model, see `mgsim zoo list`) or --trace (a measured trace to plan)");
  }
  if (!o.model.empty() && o.activation_bytes) {
    throw ConfigError("--activation-bytes is for a plan of --trace alone: a zoo model's activations are its own");
  }
  const std::optional<Trace> trace = o.model.empty() ? std::optional(load_trace(o.trace)) : std::nullopt;
  const int batch = o.batch.value_or(trace ? trace->batch_size : 8);
  check_numbers(o, batch);
  if (trace) check_trace_plan(o, command);
  const std::optional<std::int64_t> limit =
      o.memory_limit ? std::optional(parse_size(*o.memory_limit, "--memory-limit", kMaxMemory)) : std::nullopt;
  const std::vector<int> stages = zero_stages(o.zero);
  const plan::Cluster cluster = o.cluster.empty() ? default_cluster() : load_cluster(o.cluster);
  Problem problem = trace ? trace_problem(o, *trace, batch) : zoo_problem(o, batch, zoo::find_gpu(o.gpu));
  const std::unique_ptr<Collective> collective = cluster.make_collective(o.gpus);
  // A trace's layers are timed by the trace: the GPU entry only checks the roofline settings, unused.
  SearchOptions options;
  options.frontier_bound = static_cast<std::size_t>(o.frontier_bound);
  options.max_candidates = o.max_work;
  const std::string where = fmt::format("{} ({}, {} per node)", cluster.source,
                                        CollectiveSpec{cluster.collective, cluster.settings.params}.label(),
                                        counted(cluster.settings.gpus_per_node, "GPU"));
  problem.settings.cluster = where;  // a message past an hour says on which cluster
  const StagedSearch search = search_zero_stages(problem.graph, zoo::find_gpu(trace ? "h100" : o.gpu), *collective,
                                                 problem.settings, stages, options);
  const PlanReport report{&search, problem.gpu, where, problem.timing, limit};
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
  command->add_option("--model", o->model, "zoo model (see `mgsim zoo list`); without it, --trace is planned")
      ->check(zoo_model_name());
  command->add_option("--gpus", o->gpus, "devices, a power of two")->required()->check(whole_in(1, 1 << 16));
  command->add_option("--batch", o->batch, "samples per GPU; the global batch is batch x gpus (default: 8, or the trace's)")
      ->check(whole_in(1, kMaxGlobalBatch));
  command->add_option("--image-size", o->image_size, "vision models: input height = width (default: the model's)")
      ->check(whole_in(1, 1 << 20));
  command->add_option("--seq-len", o->seq_len, "text models: tokens per sample (default: the model's)")
      ->check(whole_in(1, 1 << 20));
  command->add_flag("--aux-heads", o->aux_heads, "add GoogLeNet / Inception-v3 auxiliary heads, BERT pre-training heads");
  command->add_option("--trace", o->trace, "measured trace: alone, plan it (its layers split along the batch); with "
                                           "--model, fit the model's roofline to it (as `mgsim zoo calibrate`)")
      ->transform(shipped_data());
  command->add_option("--activation-bytes", o->activation_bytes,
                      "--trace alone: activations stored per sample, e.g. 120MiB (a trace does not record them)");
  command->add_option("--gpu", o->gpu, "GPU catalogue entry for the roofline")->capture_default_str()->check(zoo_gpu_name());
  command->add_option("--precision", o->precision, "fp32, tf32, fp16 or bf16 (default: bf16, or the trace's element size)")
      ->check(zoo_precision_name());
  command->add_option("--optimizer", o->optimizer, "sgd, momentum or adam")
      ->capture_default_str()
      ->check(one_of("optimizer", {"sgd", "momentum", "adam"}));
  command->add_option("--zero", o->zero, "ZeRO stage of the data-parallel replicas: auto (search 0..3) or 0, 1, 2, 3")
      ->capture_default_str();
  command->add_option("--cluster", o->cluster, "cluster file: collective, gpus_per_node, network (default: see docs/plan.md)")
      ->transform(shipped_data());
  command->add_option("--memory-limit", o->memory_limit, "memory per GPU, e.g. 40GiB or 80GB: show the fastest plan that fits");
  command->add_option("--frontier-bound", o->frontier_bound, "most points per frontier table entry")->capture_default_str();
  command->add_flag("--allow-replication", o->allow_replication, "also try operators computed redundantly (split product below gpus)");
  command->add_option("--max-work", o->max_work, "most candidate plans to offer the search's frontiers (checked as it searches)")
      ->capture_default_str()
      ->check(finite_in(1, 1e15, true));
  command->add_option("-f,--format", o->format, "table, csv or json")->capture_default_str();
  command->add_option("-o,--output", o->output, "file to write instead of stdout (-: stdout)")
      ->check(output_name());
  add_examples(command, {"mgsim plan --model bert-large --gpus 16 --memory-limit 40GiB",
                         "mgsim plan --model gpt2-xl --gpus 64 --batch 3 --memory-limit 40GiB --zero 3",
                         "mgsim plan --trace traces/googlenet-k80.json --gpus 8 --activation-bytes 100MiB --memory-limit 12GiB",
                         "mgsim plan --model gpt2-xl --gpus 64 --batch 3 --cluster configs/cluster-h100-ndr.json --format csv -o plan.csv"});
  command->callback([o, command] { plan_command(*o, *command); });
}

}  // namespace mgsim::cli
