#pragma once
// Importers of other tools' outputs (docs/profiling.md):
//  - nccl-tests text output -> curve: the all_reduce_perf section of a log
//    (or all_gather_perf / reduce_scatter_perf, each its own curve kind),
//    older and newer column sets, out-of-place or in-place columns, lines
//    tagged by mpirun or srun;
//  - OSU Micro-Benchmarks osu_allreduce / osu_allgather / osu_reduce_scatter
//    text output -> curve;
//  - PyTorch profiler (Kineto) Chrome trace JSON -> trace (per-layer
//    backward times from AccumulateGrad, kernels through correlation ids).
// Each reads one file's text, validates it, and throws CurveError or
// TraceError naming the file, the line (or event) and what was expected.

#include <istream>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mgsim/io/trace_io.hpp"
#include "mgsim/model_memory.hpp"
#include "mgsim/trace.hpp"

namespace mgsim::profile {

struct ImportedCurve {
  CurveCollective collective = CurveCollective::allreduce;
  std::vector<CurveSample> points;
  nlohmann::json provenance;
};

enum class NcclTestsColumns { out_of_place, in_place };

struct NcclTestsOptions {
  NcclTestsColumns columns = NcclTestsColumns::out_of_place;
  /// The section of the log to import ("# Collective test starting: <name>_perf").
  CurveCollective collective = CurveCollective::allreduce;
  int gpus = 0;           ///< ranks; 0 = NCCL's "nranks", else the device list, else the header
  std::string data_type;  ///< keep only rows of this type (e.g. "float"); empty = all
  std::string reduction;  ///< keep only rows of this redop (e.g. "sum"); empty = all
};

ImportedCurve import_nccl_tests(std::istream& text, const std::string& source, const NcclTestsOptions& options);

struct OsuOptions {
  int gpus = 0;  ///< ranks (OSU does not print them); 0 = take them from an "N," row prefix
};

ImportedCurve import_osu(std::istream& text, const std::string& source, const OsuOptions& options);

struct KinetoOptions {
  std::string model;   ///< model name for the trace (required)
  int batch_size = 0;  ///< samples per iteration (required: the trace does not hold it)
  int skip_steps = 0;  ///< ProfilerStep windows to drop first (warm-up)
  /// Elements of each parameter tensor in forward (state_dict) order, for a
  /// trace recorded without record_shapes: the k-th gradient to arrive gets
  /// the k-th tensor from the end. Empty: sizes come from "Input Dims".
  std::vector<std::int64_t> param_elements;
  std::string param_source;  ///< where param_elements came from, for messages
  /// Layers owning parameters in the model param_elements came from (0:
  /// unknown); the import warns when the trace's gradients fall into another
  /// number of layers.
  std::size_t param_layers = 0;
  /// The optimizer whose bytes per element turn a measured optimizer step
  /// ("Optimizer.step#X.step") into the trace's optimizer_bytes_per_s: a run
  /// whose config names the same optimizer times the step as measured.
  Optimizer optimizer = Optimizer::adam;
};

struct ImportedTrace {
  Trace trace;
  nlohmann::json provenance;
  std::vector<std::string> warnings;  ///< one line each, for the user
  /// Median length of the ProfilerStep#N windows imported (the measured
  /// step); nothing when the trace has no step annotations.
  std::optional<double> step_time_s;
  /// Median of the imported windows' optimizer steps ("Optimizer.step#X.step":
  /// the longer of its CPU span and the span of the GPU work it launched);
  /// nothing when the trace has none.
  std::optional<double> optimizer_step_s;
  /// Median over the ProfilerStep#N windows imported of the time the GPU was
  /// busy with the work launched inside the window (union of its kernels,
  /// copies and sets; collectives left out) over the window's length;
  /// nothing without step annotations. Below kLaunchBoundBusy the import
  /// warns: the run waited for its launches, and the profiler's cost per
  /// launch is in its times.
  std::optional<double> gpu_busy_fraction;
};

inline constexpr double kLaunchBoundBusy = 0.8;

ImportedTrace import_kineto(const nlohmann::json& document, const std::string& source, const KinetoOptions& options);

}  // namespace mgsim::profile
