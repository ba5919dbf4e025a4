// `mgsim import nccl-tests|osu|kineto FILE [-o OUT]`: other tools' outputs as
// mgsim curve and trace files (docs/profiling.md), written to OUT or stdout.

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/profile/import_files.hpp"

namespace mgsim::cli {
namespace {

struct ImportOptions {
  std::string input;
  std::string output;
  int gpus = 0;
  bool in_place = false;
  std::string data_type;
  std::string reduction;
  std::string model;
  int batch_size = 0;
  int skip_steps = 0;
};

/// Whether the output goes to a file (then a summary line goes to stdout).
bool writes_file(const ImportOptions& options) { return !options.output.empty() && options.output != kStdout; }

void write_curve(const profile::ImportedCurve& curve, const ImportOptions& options, std::string_view tool) {
  nlohmann::json provenance = curve.provenance;
  provenance["imported_by"] = fmt::format("mgsim import {} {}", tool, options.input);
  emit(format_curve_json(curve.points, provenance), options.output, {options.input});
  if (!writes_file(options)) return;
  fmt::print("wrote {}: {} sizes for {} GPUs ({})\n", options.output, curve.points.size(),
             curve.points.empty() ? 0 : curve.points.front().gpus, tool);
}

void import_nccl_tests(const ImportOptions& options) {
  profile::NcclTestsOptions parse;
  parse.columns = options.in_place ? profile::NcclTestsColumns::in_place : profile::NcclTestsColumns::out_of_place;
  parse.gpus = options.gpus;
  parse.data_type = options.data_type;
  parse.reduction = options.reduction;
  write_curve(profile::import_nccl_tests_file(options.input, parse), options, "nccl-tests");
}

void import_osu(const ImportOptions& options) {
  write_curve(profile::import_osu_file(options.input, {options.gpus}), options, "osu");
}

void import_kineto(const ImportOptions& options) {
  const profile::ImportedTrace imported =
      profile::import_kineto_file(options.input, {options.model, options.batch_size, options.skip_steps});
  for (const std::string& warning : imported.warnings) std::fprintf(stderr, "mgsim: warning: %s\n", warning.c_str());
  nlohmann::json provenance = imported.provenance;
  provenance["imported_by"] = fmt::format("mgsim import kineto {}", options.input);
  emit(format_trace_json(imported.trace, provenance), options.output, {options.input});
  if (!writes_file(options)) return;
  double backward = 0;
  for (const Layer& layer : imported.trace.layers) backward += layer.backward_time_s;
  fmt::print("wrote {}: {} layers, forward {:.3f} ms, backward {:.3f} ms\n", options.output,
             imported.trace.layers.size(), imported.trace.forward_time_s * 1e3, backward * 1e3);
}

CLI::App* add_source(CLI::App& parent, const char* name, const char* what, ImportOptions& options) {
  CLI::App* command = parent.add_subcommand(name, what);
  command->add_option("file", options.input, "the tool's output")->required();
  command->add_option("-o,--output", options.output, "the mgsim file to write (default or -: stdout)");
  return command;
}

}  // namespace

void add_import_command(CLI::App& app) {
  auto options = std::make_shared<ImportOptions>();
  CLI::App* command = app.add_subcommand("import", "convert nccl-tests, OSU or PyTorch profiler output to mgsim files");
  command->require_subcommand(1);
  add_examples(command, {"mgsim import nccl-tests all_reduce_perf.txt -o curve.json",
                         "mgsim import kineto trace.json --model resnet50 --batch 64 -o resnet50.json"});

  CLI::App* nccl = add_source(*command, "nccl-tests", "nccl-tests all_reduce_perf output -> curve", *options);
  nccl->add_flag("--in-place", options->in_place, "use the in-place columns (default: out-of-place)");
  nccl->add_option("--gpus", options->gpus, "ranks (default: count the '# Rank' lines)")->check(CLI::Range(2, 1 << 20));
  nccl->add_option("--type", options->data_type, "keep only rows of this data type (e.g. float)");
  nccl->add_option("--redop", options->reduction, "keep only rows of this reduction (e.g. sum)");
  add_examples(nccl, {"mgsim import nccl-tests all_reduce_perf.txt -o curve.json",
                      "mgsim import nccl-tests all_reduce_perf.txt --in-place --type float -o - | mgsim fit -"});
  nccl->callback([options] { import_nccl_tests(*options); });

  CLI::App* osu = add_source(*command, "osu", "OSU osu_allreduce output -> curve", *options);
  osu->add_option("--gpus", options->gpus, "ranks (required unless rows carry an 'N,' prefix)")
      ->check(CLI::Range(2, 1 << 20));
  add_examples(osu, {"mgsim import osu osu_allreduce.txt --gpus 8 -o osu-8.json"});
  osu->callback([options] { import_osu(*options); });

  CLI::App* kineto = add_source(*command, "kineto", "PyTorch profiler Chrome trace (JSON) -> trace", *options);
  kineto->add_option("--model", options->model, "model name for the trace")->required();
  kineto->add_option("--batch", options->batch_size, "samples per GPU per iteration")
      ->required()
      ->check(CLI::Range(1, 1 << 30));
  kineto->add_option("--skip-steps", options->skip_steps, "ProfilerStep windows to drop first (warm-up)")
      ->check(CLI::Range(0, 1 << 20));
  add_examples(kineto, {"mgsim import kineto trace.json --model resnet50 --batch 64 --skip-steps 1 -o resnet50.json"});
  kineto->callback([options] { import_kineto(*options); });
}

}  // namespace mgsim::cli
