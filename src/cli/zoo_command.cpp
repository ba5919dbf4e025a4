// `mgsim zoo`: the model zoo and GPU catalogue. `list` shows them, `show`
// prints one model's operators, `trace` writes a roofline-synthetic trace,
// `calibrate` fits a GPU entry's efficiencies to a measured trace.

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "commands.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/zoo/calibration.hpp"
#include "mgsim/zoo/models.hpp"
#include "mgsim/zoo/synthetic.hpp"

namespace mgsim::cli {
namespace {

using namespace mgsim::zoo;

/// What every zoo subcommand needs to build a model.
struct ModelArgs {
  std::string model;
  int batch = 32;
  int image_size = 0;
  int seq_len = 0;
  bool aux_heads = false;
  std::string precision = "fp32";
};

/// Roofline settings; a negative efficiency means "the GPU entry's default".
struct RooflineArgs {
  std::string gpu;
  std::string gpu_spec;  ///< a GPU spec file instead of a catalogue entry
  double compute_efficiency = -1;
  double memory_efficiency = -1;
  double backward_factor = 2.0;
  double op_overhead_us = 0.0;
  double launch_us = 0.0;  ///< `trace` only
  bool launch_given = false;    ///< --launch-us was given (even as 0)
  bool overhead_given = false;  ///< --op-overhead-us was given (even as 0)
  std::string optimizer = "adam";  ///< whose step the trace times; "none": no step
};

void add_model_options(CLI::App* command, ModelArgs& a) {
  command->add_option("--image-size", a.image_size, "vision models: input height = width (default: the model's)")
      ->check(whole_in(1, 1 << 20));
  command->add_option("--seq-len", a.seq_len, "text models: tokens (LSTM: time steps) per sample (default: the model's)")
      ->check(whole_in(1, 1 << 20));
  command->add_flag("--aux-heads", a.aux_heads, "add GoogLeNet / Inception-v3 auxiliary heads, BERT pre-training heads");
  command->add_option("--precision", a.precision, "fp32, tf32, fp16 or bf16")
      ->capture_default_str()
      ->check(zoo_precision_name());
}

void add_roofline_options(CLI::App* command, RooflineArgs& r) {
  CLI::Option* gpu = command->add_option("--gpu", r.gpu, "GPU catalogue entry (see `mgsim zoo list`)")
                         ->check(zoo_gpu_name());
  CLI::Option* spec = command->add_option("--gpu-spec", r.gpu_spec, "GPU spec file for a card the catalogue lacks "
                                          "(docs/models.md#gpu-spec-files)")
                          ->check(name_text("a GPU spec file"));
  gpu->excludes(spec);
  command->add_option("--compute-efficiency", r.compute_efficiency, "fraction of peak FLOP/s (default: the GPU entry's)")
      ->check(finite_in(kMinEfficiency, kMaxEfficiency, true));
  command->add_option("--memory-efficiency", r.memory_efficiency, "fraction of peak bandwidth (default: the GPU entry's)")
      ->check(finite_in(kMinEfficiency, kMaxEfficiency, true));
  command->add_option("--backward-factor", r.backward_factor, "backward time / forward time per operator")
      ->capture_default_str()
      ->check(finite_in(0, 100, true));
  command->add_option("--op-overhead-us", r.op_overhead_us, "fixed microseconds per operator and pass")
      ->each([&r](const std::string&) { r.overhead_given = true; })
      ->capture_default_str()
      ->check(finite_in(0, 1e6, true));
}

void add_optimizer_option(CLI::App* command, RooflineArgs& r) {
  command->add_option("--optimizer", r.optimizer,
                      "sgd, momentum or adam: the optimizer step the trace times on the GPU (a run times its "
                      "config's optimizer at the trace's bandwidth); none: no step (a parameter server updates)")
      ->capture_default_str()
      ->check(one_of("optimizer", {"none", "sgd", "momentum", "adam"}));
}

/// A second measured iteration at a smaller batch: {batch, step time in
/// seconds}, {0, 0} when not given, and the per-pass term it fits.
struct SecondFigure {
  std::pair<int, double> at{0, 0.0};
  bool given = false;
  std::string fits = "launch";
};

void add_per_pass_options(CLI::App* command, RooflineArgs& r, SecondFigure& second) {
  command->add_option("--launch-us", r.launch_us,
                      "host microseconds to launch one operator pass: the GPU runs none before its launch (eager "
                      "frameworks at small batches); 0: it never waits")
      ->capture_default_str()
      ->check(finite_in(0, 1e6, true))
      ->each([&r](const std::string&) { r.launch_given = true; });
  CLI::Option* figure = command->add_option("--second-figure", second.at,
                      "BATCH SECONDS: a measured 1-GPU iteration at a smaller batch; with --throughput or "
                      "--step-time it fits the term of --fit-per-pass")
      ->type_name("INT FLOAT")
      ->check(whole_in(1, 1 << 20).application_index(0))
      ->check(finite_in(0, 1e6, false).application_index(1))
      ->each([&second](const std::string&) { second.given = true; });
  command->add_option("--fit-per-pass", second.fits,
                      "the per-pass term --second-figure fits: launch (--launch-us: eager frameworks) or overhead "
                      "(--op-overhead-us: CUDA graphs, compiled models)")
      ->capture_default_str()
      ->check(one_of("per-pass term", {"launch", "overhead"}))
      ->needs(figure);
}

void add_measured_options(CLI::App* command, MeasuredCompute& m) {
  CLI::Option* throughput = command->add_option("--throughput", m.throughput_samples_per_s,
                                                "scale the trace to this measured 1-GPU throughput, samples/s")
                                ->check(finite_in(0, 1e12, false));
  CLI::Option* step = command->add_option("--step-time", m.step_time_s,
                                          "scale the trace to this measured 1-GPU iteration (forward + backward), s")
                          ->check(finite_in(0, kMaxStepSeconds, false));
  CLI::Option* by = command->add_option("--measured-by", m.measured_by,
                                        "who measured the figure and where (paper table, repository file and commit)")
                        ->check(name_text("the source of the figure (who measured it, where)", kMaxProseBytes));
  throughput->excludes(step);
  throughput->needs(by);
  step->needs(by);
}

ModelGraph build(const ModelArgs& a, int batch) {
  return build_model(a.model, {batch, a.image_size, a.seq_len, a.aux_heads, precision_bytes(parse_precision(a.precision))});
}

/// The GPU of --gpu or --gpu-spec (exactly one), refused unless it has a peak at `precision`.
GpuSpec gpu_of(const RooflineArgs& r, Precision precision) {
  if (r.gpu.empty() == r.gpu_spec.empty()) throw ConfigError("give a GPU: --gpu NAME or --gpu-spec FILE");
  GpuSpec gpu = r.gpu.empty() ? load_gpu_spec(r.gpu_spec) : find_gpu(r.gpu);
  if (!r.gpu_spec.empty() && gpu.matrix_tflops[static_cast<std::size_t>(precision)] <= 0) {
    throw ConfigError(fmt::format("{}: matrix_tflops.{}: missing, and --precision {} needs it", r.gpu_spec,
                                  precision_name(precision), precision_name(precision)));
  }
  gpu.peak_tflops(precision);  // the catalogue's message for a catalogue GPU
  return gpu;
}

RooflineSettings settings_of(const RooflineArgs& r, const GpuSpec& gpu) {
  RooflineSettings s = RooflineSettings::defaults_for(gpu);
  if (r.compute_efficiency >= 0) s.compute_efficiency = r.compute_efficiency;
  if (r.memory_efficiency >= 0) s.memory_efficiency = r.memory_efficiency;
  s.backward_factor = r.backward_factor;
  s.op_overhead_s = r.op_overhead_us * 1e-6 + 0.0;  // + 0.0: a -0 given becomes 0
  s.launch_s = r.launch_us * 1e-6 + 0.0;
  if (r.optimizer != "none") s.optimizer_step = parse_optimizer(r.optimizer);
  s.check();
  return s;
}

void list_zoo() {
  fmt::print("models (parameters, tensors, forward GFLOPs per sample at the default input size):\n");
  for (const ModelInfo& info : model_registry()) {
    const ModelGraph g = build_model(info.name, {1, 0, 0, false, 4});
    fmt::print("  {:<15} {:>13} {:>5} {:>9.2f}  {} [{} {}] ({})\n", info.name, g.param_count(), g.tensor_count(),
               static_cast<double>(g.forward_flops()) * 1e-9, info.description,
               info.input == ModelInput::image ? "image" : "sequence", info.default_size, info.reference);
  }
  fmt::print("gpus (dense TFLOP/s fp32 / tf32 / fp16 / bf16, GB/s):\n");
  for (const GpuSpec& gpu : gpu_catalogue()) {
    const auto peak = [&](Precision p) {
      const double v = gpu.matrix_tflops[static_cast<std::size_t>(p)];
      return v > 0 ? fmt::format("{:g}", v) : std::string("-");
    };
    fmt::print("  {:<9} {:>6} / {:>6} / {:>6} / {:>6}  {:>6g}  {}\n", gpu.name, peak(Precision::fp32),
               peak(Precision::tf32), peak(Precision::fp16), peak(Precision::bf16), gpu.memory_gb_per_s, gpu.description);
  }
}

void show(const ModelArgs& a) {
  const ModelGraph g = build(a, a.batch);
  fmt::print("{:<52} {:<10} {:>20} {:>9} {:>12} {:>12}\n", "operator", "kind", "output", "params", "MFLOPs", "MB moved");
  for (OpId v = 0; v < g.op_count(); ++v) {
    const Operator& op = g.op(v);
    fmt::print("{:<52} {:<10} {:>20} {:>9} {:>12.2f} {:>12.3f}\n", op.name, op_kind_name(op.kind),
               format_shape(op.output_shape), op.param_count(), static_cast<double>(op.flops) * 1e-6,
               static_cast<double>(op.bytes_read + op.bytes_written) * 1e-6);
  }
  fmt::print("\n{}: {} operators, {} parameters in {} tensors, {} gradient-producing layers, {:.3f} GFLOPs forward "
             "(batch {})\n",
             g.model(), g.op_count(), g.param_count(), g.tensor_count(), gradient_layers(g).size(),
             static_cast<double>(g.forward_flops()) * 1e-9, g.batch_size());
}

void trace(const ModelArgs& a, const RooflineArgs& r, const MeasuredCompute& measured, int measured_batch,
           const SecondFigure& second, const std::string& output) {
  const std::pair<int, double>& bound = second.at;
  const PerPass term = second.fits == "overhead" ? PerPass::overhead : PerPass::launch;
  const Precision precision = parse_precision(a.precision);
  const GpuSpec gpu = gpu_of(r, precision);  // before building
  const RooflineSettings settings = settings_of(r, gpu);
  SyntheticTrace t = synthesize_trace(build(a, a.batch), gpu, precision, settings);
  const bool scaled = measured.throughput_samples_per_s != 0 || measured.step_time_s != 0 || !measured.measured_by.empty();
  if (measured_batch != 0 && !scaled) throw ConfigError("--measured-batch needs --throughput or --step-time");
  if (measured_batch == 0) measured_batch = a.batch;
  if (second.given) {
    if (!scaled) throw ConfigError("--second-figure needs the larger batch's figure: --throughput or --step-time");
    if (bound.first >= measured_batch) {  // each value's own range is checked as it is read
      throw ConfigError(fmt::format("--second-figure: the batch must be in [1, {}) (below the measured batch), got {}",
                                    measured_batch, bound.first));
    }
    if (term == PerPass::launch && r.launch_given) {
      throw ConfigError("--second-figure fits the launch time: leave out --launch-us (or give --fit-per-pass overhead)");
    }
    if (term == PerPass::overhead && r.overhead_given) {
      throw ConfigError("--second-figure fits the overhead: leave out --op-overhead-us (or give --fit-per-pass launch)");
    }
  }
  if (scaled) {  // scaled at the measured batch, then `t` timed like it
    SyntheticTrace at_figure =
        measured_batch == a.batch ? t : synthesize_trace(build(a, measured_batch), gpu, precision, settings);
    if (!second.given) {
      scale_to_measured(at_figure, measured);
    } else {
      fit_per_pass_and_scale(at_figure, measured, synthesize_trace(build(a, bound.first), gpu, precision, settings),
                             bound.second, term);
    }
    scale_like(t, at_figure);
  }
  t.provenance["aux_heads"] = a.aux_heads;
  if (a.image_size > 0) t.provenance["image_size"] = a.image_size;
  if (a.seq_len > 0) t.provenance["seq_len"] = a.seq_len;
  t.provenance["command"] = command_line();
  for (const Layer& layer : t.trace.layers) {  // before the reader's check, which cannot say why
    const double slowest = std::max(layer.backward_time_s, layer.forward_time_s);
    if (!(slowest <= kMaxStepSeconds)) {
      throw ConfigError(fmt::format("the trace of {} at batch {} (not written): layer {} would take {:g} s, expected "
                                    "at most {:g} s a layer: give a smaller batch, a faster GPU or higher efficiencies (--gpu, "
                                    "--gpu-spec, --compute-efficiency, --memory-efficiency)",
                                    a.model, a.batch, printable(layer.name), slowest, kMaxStepSeconds));
    }
  }
  // Never write a trace mgsim would refuse to read (a forward past an hour, a total past a year), and say which
  // (red team: "the file to write").
  emit(format_trace_json(t.trace, t.provenance, fmt::format("the trace of {} at batch {} (not written)", a.model, a.batch)),
       output);
}

void calibrate_trace(ModelArgs a, const RooflineArgs& r, const std::string& trace_file, const CalibrationOptions& options) {
  const Trace measured = load_trace(trace_file);
  if (a.model.empty()) {  // red team: "unknown model 'RESNET50'" named neither the trace nor what to do
    a.model = measured.model;
    try {
      static_cast<void>(find_model(a.model));
    } catch (const Error& error) {
      throw ConfigError(fmt::format("{}: model: {}: give --model the zoo model it ran", trace_file, error.what()));
    }
  }
  const Precision precision = parse_precision(a.precision);
  const GpuSpec gpu = gpu_of(r, precision);
  const ModelGraph graph = build(a, measured.batch_size);
  const CalibrationResult result = [&] {
    try {
      return calibrate(measured, graph, gpu, precision, settings_of(r, gpu), options);
    } catch (const ConfigError& error) {  // which trace (red team: a layer named twice named no file)
      throw ConfigError(fmt::format("{}: {}", trace_file, error.what()));
    }
  }();
  fmt::print("{}", format_calibration(result));
  // The whole command that makes the fitted roofline of this model (red team: --backward-factor, which the fit
  // holds for, was left out).
  const RooflineSettings& s = result.after;
  std::string command = fmt::format("mgsim zoo trace --model {} --batch {} --precision {} {}", shell_word(a.model),
                                    measured.batch_size, a.precision,
                                    r.gpu.empty() ? "--gpu-spec " + shell_word(r.gpu_spec) : "--gpu " + r.gpu);
  if (a.image_size > 0) command += fmt::format(" --image-size {}", a.image_size);
  if (a.seq_len > 0) command += fmt::format(" --seq-len {}", a.seq_len);
  if (a.aux_heads) command += " --aux-heads";
  command += fmt::format(" --compute-efficiency {:.6g} --memory-efficiency {:.6g}", s.compute_efficiency,
                         s.memory_efficiency);
  if (s.backward_factor != 2.0) command += fmt::format(" --backward-factor {:.6g}", s.backward_factor);
  if (s.op_overhead_s > 0) command += fmt::format(" --op-overhead-us {:.6g}", s.op_overhead_s * 1e6);
  fmt::print("\nto use the fit: {}\n", command);
  if (options.owner_only) {  // red team: its trace times the followers too, 420 ms where the fit showed 168
    fmt::print("note: --owner-only compared each layer with its owning operator alone; zoo trace times a layer with "
               "its followers, so its trace is longer than the fit's 'after' column\n");
  }
}

void add_trace_command(CLI::App* zoo) {
  struct Options {
    ModelArgs model;
    RooflineArgs roofline;
    MeasuredCompute measured;
    int measured_batch = 0;
    SecondFigure second;
    std::string output;
  };
  auto o = std::make_shared<Options>();
  CLI::App* command = zoo->add_subcommand("trace", "write a roofline-synthetic trace of a model on a GPU");
  command->add_option("--model", o->model.model, "model name (see `mgsim zoo list`)")
      ->required()
      ->check(zoo_model_name());
  command->add_option("--batch", o->model.batch, "samples per GPU")->capture_default_str()->check(whole_in(1, 1 << 20));
  add_model_options(command, o->model);
  add_roofline_options(command, o->roofline);
  add_optimizer_option(command, o->roofline);
  add_per_pass_options(command, o->roofline, o->second);
  add_measured_options(command, o->measured);
  command->add_option("--measured-batch", o->measured_batch,
                      "the batch --throughput or --step-time was measured at (default: --batch): the trace at --batch "
                      "gets the GPU scale (and launch time) fitted there")
      ->check(whole_in(1, 1 << 20));
  command->add_option("-o,--output", o->output, "file to write instead of stdout (-: stdout)")
      ->check(output_name());
  add_examples(command, {"mgsim zoo trace --model resnet50 --gpu h100 --precision bf16 --batch 64 -o resnet50-h100.json",
                         "mgsim zoo trace --model resnet50 --gpu v100 --batch 256 --precision fp16 --throughput 1270 "
                         "--measured-by 'NVIDIA DeepLearningExamples TF RN50 README, DGX-1 1 GPU AMP'"});
  command->callback(
      [o] { trace(o->model, o->roofline, o->measured, o->measured_batch, o->second, o->output); });
}

void add_calibrate_command(CLI::App* zoo) {
  struct Options {
    ModelArgs model;
    RooflineArgs roofline;
    std::string trace;
    CalibrationOptions options;
  };
  auto o = std::make_shared<Options>();
  CLI::App* command = zoo->add_subcommand("calibrate", "fit a GPU entry's efficiencies to a measured trace");
  command->add_option("--trace", o->trace, "measured trace (docs/trace-format.md)")->required()->transform(shipped_data());
  command->add_option("--model", o->model.model, "zoo model to compare with (default: the trace's model name)")
      ->check(zoo_model_name());
  add_model_options(command, o->model);
  add_roofline_options(command, o->roofline);
  command->add_flag("--fit-overhead", o->options.fit_overhead, "also fit a fixed time per operator");
  command->add_flag("--owner-only", o->options.owner_only,
                    "compare each measured layer with its own operator only (profilers that time one layer's backward call)");
  add_examples(command, {"mgsim zoo calibrate --trace traces/googlenet-k80.json --model googlenet-bvlc --aux-heads --gpu k80 --owner-only"});
  command->callback([o] { calibrate_trace(o->model, o->roofline, o->trace, o->options); });
}

}  // namespace

void add_zoo_command(CLI::App& app) {
  CLI::App* zoo = app.add_subcommand("zoo", "model zoo and GPU catalogue: list, show, synthetic traces, calibration");
  zoo->require_subcommand(1);
  add_examples(zoo, {"mgsim zoo list",
                     "mgsim zoo trace --model resnet50 --gpu h100 --batch 64 -o resnet50-h100.json"});
  CLI::App* list_command = zoo->add_subcommand("list", "list the zoo's models and GPUs");
  list_command->callback(list_zoo);
  add_examples(list_command, {"mgsim zoo list"});
  auto show_args = std::make_shared<ModelArgs>();
  CLI::App* show_command = zoo->add_subcommand("show", "print a model's operators with shapes, FLOPs and bytes");
  show_command->add_option("--model", show_args->model, "model name")->required()->check(zoo_model_name());
  show_command->add_option("--batch", show_args->batch, "samples")->capture_default_str()->check(whole_in(1, 1 << 20));
  add_model_options(show_command, *show_args);
  add_examples(show_command, {"mgsim zoo show --model resnet50 --batch 64"});
  show_command->callback([show_args] { show(*show_args); });
  add_trace_command(zoo);
  add_calibrate_command(zoo);
}

}  // namespace mgsim::cli
