// `mgsim import nccl-tests|osu|kineto|chakra FILE [-o OUT]`: other tools' outputs as
// mgsim curve and trace files (docs/profiling.md), written to OUT or stdout.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "commands.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/counted.hpp"
#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/profile/import_files.hpp"
#include "mgsim/zoo/models.hpp"

namespace mgsim::cli {
namespace {

struct ImportOptions {
  std::string input;
  std::string output;
  int gpus = 0;
  bool in_place = false;
  std::string collective = "all_reduce";
  std::string data_type;
  std::string reduction;
  std::string model;
  int batch_size = 0;
  int skip_steps = 0;
  std::string zoo_model;
  std::string param_sizes;
  std::string optimizer = "adam";
};

/// Whether the output goes to a file (then a summary line goes to stdout).
bool writes_file(const ImportOptions& options) { return !options.output.empty() && options.output != kStdout; }

void write_curve(const profile::ImportedCurve& curve, const ImportOptions& options, std::string_view tool) {
  nlohmann::json provenance = curve.provenance;
  provenance["imported_by"] = command_line();
  emit(format_curve_json(curve.points, provenance, curve.collective), options.output);
  if (!writes_file(options)) return;
  fmt::print("wrote {}: {} curve, {} for {} ({})\n", printable(options.output), curve_collective_name(curve.collective),
             counted(std::ssize(curve.points), "size"), counted(curve.points.empty() ? 0 : curve.points.front().gpus, "GPU"),
             tool);
}

/// --collective: nccl-tests' name of a collective (all_reduce, all_gather,
/// reduce_scatter, with or without "_perf").
CurveCollective nccl_tests_collective(std::string name) {
  if (name.ends_with("_perf")) name.resize(name.size() - 5);
  if (name == "all_reduce") return CurveCollective::allreduce;
  if (name == "all_gather") return CurveCollective::allgather;
  if (name == "reduce_scatter") return CurveCollective::reducescatter;
  throw ConfigError(fmt::format("--collective: expected all_reduce, all_gather or reduce_scatter (the curves mgsim "
                                "reads), got '{}'",
                                name));
}

void import_nccl_tests(const ImportOptions& options) {
  profile::NcclTestsOptions parse;
  parse.columns = options.in_place ? profile::NcclTestsColumns::in_place : profile::NcclTestsColumns::out_of_place;
  parse.collective = nccl_tests_collective(options.collective);
  parse.gpus = options.gpus;
  parse.data_type = options.data_type;
  parse.reduction = options.reduction;
  write_curve(profile::import_nccl_tests_file(options.input, parse), options, "nccl-tests");
}

void import_osu(const ImportOptions& options) {
  write_curve(profile::import_osu_file(options.input, {options.gpus}), options, "osu");
}

/// forward + backward (+ the optimizer step, when the trace times it) against
/// the measured step (ProfilerStep#), the rest as the run config's
/// per-iteration host overhead, with a warning past 10%.
void print_step_check(const profile::ImportedTrace& imported, double backward, std::FILE* out) {
  const double optimizer = imported.trace.optimizer_bytes_per_s > 0 ? imported.optimizer_step_s.value_or(0) : 0;
  if (optimizer > 0) {
    fmt::print(out, "optimizer step (Optimizer.step#, median) {:.3f} ms: trace key \"optimizer_bytes_per_s\": {:.6g} "
                    "(run config \"optimizer\" as given to --optimizer)\n",
               optimizer * 1e3, imported.trace.optimizer_bytes_per_s);
  }
  if (!imported.step_time_s) return;
  const double modelled = imported.trace.forward_time_s + backward + optimizer;
  const double step = *imported.step_time_s;
  fmt::print(out, "forward + backward{} {:.3f} ms, measured step (ProfilerStep#, median) {:.3f} ms\n",
             optimizer > 0 ? " + optimizer step" : "", modelled * 1e3, step * 1e3);
  if (step > modelled && step - modelled <= kMaxIterationOverhead) {
    fmt::print(out, "the rest of the step, {:.3f} ms, is host time per iteration: run config key "
                    "\"iteration_overhead_s\": {:.6g}\n", (step - modelled) * 1e3, step - modelled);
  }
  if (step - modelled > 0.1 * step) {
    std::fprintf(stderr,
                 "mgsim: warning: the trace's compute is %.0f%% shorter than the measured step: the rest of the step "
                 "(data loading, an optimizer step it does not time, communication after the backward) is not in "
                 "the trace\n",
                 (step - modelled) / step * 100);
  } else if (modelled - step > 0.1 * step) {
    std::fprintf(stderr,
                 "mgsim: warning: the trace's compute is %.0f%% longer than the measured step: the GPU work a step "
                 "launched outlasts the step (a CPU that ran ahead of the GPU, or a damaged trace); a run takes the "
                 "compute, not the step\n",
                 (modelled - step) / step * 100);
  }
}

/// The trace file of `imported`, read from `input`: the command that imported it in its provenance.
std::string kineto_text(const profile::ImportedTrace& imported, const std::string& input) {
  nlohmann::json provenance = imported.provenance;
  provenance["imported_by"] = command_line();
  provenance["imported_from"] = input;  // the file read: one rank's, where the command names a folder
  return format_trace_json(imported.trace, provenance);
}

/// What import says of a trace once written to `output`: its warnings, its times, the step check.
void report_kineto(const profile::ImportedTrace& imported, const std::string& output) {
  for (const std::string& warning : imported.warnings) std::fprintf(stderr, "mgsim: warning: %s\n", warning.c_str());
  const double backward = backward_time_s(imported.trace);
  if (output.empty() || output == kStdout) return print_step_check(imported, backward, stderr);
  fmt::print("wrote {}: {}, forward {:.3f} ms, backward {:.3f} ms\n", printable(output),
             counted(std::ssize(imported.trace.layers), "layer"), imported.trace.forward_time_s * 1e3, backward * 1e3);
  print_step_check(imported, backward, stdout);
}

/// A folder of per-rank traces: one trace per rank in the output folder, and
/// the spread of their backward times.
void import_kineto_ranks(const ImportOptions& options, const profile::KinetoOptions& parse) {
  if (!writes_file(options)) throw ConfigError(fmt::format("{} is a folder of traces: -o names the folder to write", options.input));
  const std::vector<profile::RankTrace> ranks = profile::import_kineto_folder(options.input, parse);
  const auto rank_file = [&](std::int64_t rank) {
    return (std::filesystem::path(options.output) / fmt::format("rank-{}.json", rank)).string();
  };
  const auto out = [&](const profile::RankTrace& r) { return rank_file(r.rank); };
  if (FileIdentity::of(options.output) == FileIdentity::of(options.input)) {
    throw OutputError(fmt::format("-o {}: is the folder of traces read: write the per-rank traces to another one",
                                  options.output));
  }
  std::error_code error;
  if (std::filesystem::exists(options.output, error) && !std::filesystem::is_directory(options.output, error)) {
    throw OutputError(fmt::format("-o {}: expected a folder for the per-rank traces, got a file", options.output));
  }
  std::filesystem::create_directories(options.output, error);
  if (error) throw OutputError(fmt::format("-o {}: cannot create the folder: {}", options.output, error.message()));
  StagedFiles staged;  // every rank's trace or none (red team: a full disk left some ranks written)
  for (const profile::RankTrace& r : ranks) staged.add(out(r), kineto_text(r.imported, r.file.string()));
  staged.commit();
  std::vector<double> backward;
  for (const profile::RankTrace& r : ranks) {
    report_kineto(r.imported, out(r));
    backward.push_back(backward_time_s(r.imported.trace));
  }
  warn_left_ranks(rank_file, std::ssize(ranks), "import of more ranks, not from this one");
  const auto [low, high] = std::minmax_element(backward.begin(), backward.end());
  fmt::print("{}: backward from {:.3f} ms (rank {}) to {:.3f} ms (rank {}), spread {:.1f}% of the fastest\n",
             counted(std::ssize(ranks), "rank"), *low * 1e3, ranks[static_cast<std::size_t>(low - backward.begin())].rank, *high * 1e3,
             ranks[static_cast<std::size_t>(high - backward.begin())].rank, (*high - *low) / *low * 100);
}

void import_kineto(const ImportOptions& options) {
  profile::KinetoOptions parse{options.model, options.batch_size, options.skip_steps, {}, {}, 0,
                              parse_optimizer(options.optimizer)};
  if (!options.zoo_model.empty() && !options.param_sizes.empty()) {
    throw ConfigError("--zoo and --param-sizes both give the parameter sizes: give one");
  }
  if (options.input == "-" && options.param_sizes == "-") {
    throw ConfigError("the trace and --param-sizes are both standard input, which can be read once: give one as a file");
  }
  if (!options.zoo_model.empty()) {
    const zoo::ModelGraph model = zoo::build_model(options.zoo_model, {});
    parse.param_elements = model.tensor_sizes();
    parse.param_source = fmt::format("zoo model {}", options.zoo_model);
    for (std::size_t op = 0; op < model.op_count(); ++op) parse.param_layers += model.op(op).params.empty() ? 0 : 1;
  } else if (!options.param_sizes.empty()) {
    parse.param_elements = profile::read_param_sizes(options.param_sizes);
    parse.param_source = options.param_sizes;
  }
  if (std::filesystem::is_directory(options.input)) return import_kineto_ranks(options, parse);
  const profile::ImportedTrace imported = profile::import_kineto_file(options.input, parse);
  emit(kineto_text(imported, options.input), options.output);  // an error first, never after warnings
  report_kineto(imported, options.output);
}

CLI::App* add_source(CLI::App& parent, const char* name, const char* what, ImportOptions& options) {
  CLI::App* command = parent.add_subcommand(name, what);
  command->add_option("file", options.input, "the tool's output")->required()->check(input_name());
  command->add_option("-o,--output", options.output, "the mgsim file to write (default or -: stdout)")
      ->check(output_name());
  return command;
}

}  // namespace

void add_import_command(CLI::App& app) {
  auto options = std::make_shared<ImportOptions>();
  CLI::App* command = app.add_subcommand("import", "convert nccl-tests, OSU, PyTorch profiler or Chakra ET output to mgsim files");
  command->require_subcommand(1);
  add_examples(command, {"mgsim import nccl-tests all_reduce_perf.txt -o curve.json",
                         "mgsim import kineto trace.json --model resnet50 --batch 64 -o resnet50.json"});

  CLI::App* nccl = add_source(*command, "nccl-tests",
                               "nccl-tests output (all_reduce_perf, all_gather_perf, reduce_scatter_perf) -> curve",
                               *options);
  nccl->add_flag("--in-place", options->in_place, "use the in-place columns (default: out-of-place)");
  nccl->add_option("--collective", options->collective,
                   "the section of the log to import: all_reduce, all_gather or reduce_scatter")
      ->capture_default_str();
  nccl->add_option("--gpus", options->gpus, "ranks (default: NCCL's nranks, the '# Rank' lines, the header)")
      ->check(whole_in(2, 1 << 20));
  nccl->add_option("--type", options->data_type, "keep only rows of this data type (e.g. float)")
      ->check(name_text("a data type"));
  nccl->add_option("--redop", options->reduction, "keep only rows of this reduction (e.g. sum)")
      ->check(name_text("a reduction"));
  add_examples(nccl, {"mgsim import nccl-tests all_reduce_perf.txt -o curve.json",
                      "mgsim import nccl-tests all_reduce_perf.txt --in-place --type float -o - | mgsim fit -"});
  nccl->callback([options] { import_nccl_tests(*options); });

  CLI::App* osu =
      add_source(*command, "osu", "OSU osu_allreduce, osu_allgather or osu_reduce_scatter output -> curve", *options);
  osu->add_option("--gpus", options->gpus, "ranks (required unless rows carry an 'N,' prefix)")
      ->check(whole_in(2, 1 << 20));
  add_examples(osu, {"mgsim import osu osu_allreduce.txt --gpus 8 -o osu-8.json"});
  osu->callback([options] { import_osu(*options); });

  CLI::App* kineto =
      add_source(*command, "kineto", "PyTorch profiler Chrome trace (.json or .json.gz) -> trace", *options);
  kineto->add_option("--model", options->model, "model name for the trace")->required()->check(name_text("a model name"));
  kineto->add_option("--batch", options->batch_size, "samples per GPU per iteration")
      ->required()
      ->check(whole_in(1, 1 << 30));
  kineto->add_option("--skip-steps", options->skip_steps, "ProfilerStep windows to drop first (warm-up)")
      ->check(whole_in(0, 1 << 20));
  kineto->add_option("--zoo", options->zoo_model,
                     "a trace without record_shapes: take the parameter sizes from this zoo model")
      ->check(zoo_model_name());
  kineto->add_option("--param-sizes", options->param_sizes,
                     "a trace without record_shapes: a file of parameter element counts, one tensor per line in "
                     "state_dict order")
      ->check(name_text("a file"));
  kineto->add_option("--optimizer", options->optimizer,
                     "sgd, momentum or adam: the optimizer whose bytes turn a measured Optimizer.step into the "
                     "trace's optimizer_bytes_per_s (a run config naming the same one times the step as measured)")
      ->capture_default_str()
      ->check(one_of("optimizer", {"sgd", "momentum", "adam"}));
  add_examples(kineto, {"mgsim import kineto trace.json --model resnet50 --batch 64 --skip-steps 1 -o resnet50.json"});
  kineto->callback([options] { import_kineto(*options); });

  add_import_chakra(*command);
}

}  // namespace mgsim::cli
