#include "metric_columns.hpp"

#include <array>
#include <string>

#include <fmt/format.h>

namespace mgsim {
namespace {

constexpr std::array kColumns{
    MetricColumn{"gpus", "GPU count P", [](const RunMetrics& m) { return MetricValue{std::int64_t{m.gpus}}; }, "{}",
                 {"gpus", 6, "{:>6}"}},
    MetricColumn{"iteration_time_s", "predicted iteration time t_iter(P), seconds",
                 [](const RunMetrics& m) { return MetricValue{m.iteration_time_s()}; }, "{:.9f}",
                 {"iter (ms)", 10, "{:>10.3f}", 1e3}},
    MetricColumn{"throughput_samples_per_s",
                 "samples per iteration / t_iter(P), samples per second (P * batch / t_iter(P) when synchronous)",
                 [](const RunMetrics& m) { return MetricValue{m.throughput()}; }, "{:.6g}",
                 {"samples/s", 10, "{:>10.1f}"}},
    MetricColumn{"speedup", "P * scaling_efficiency: P * t_iter(1) / t_iter(P) when synchronous on GPUs of speed 1",
                 [](const RunMetrics& m) { return MetricValue{m.speedup()}; }, "{:.6g}", {"speedup", 8, "{:>8.2f}"}},
    MetricColumn{"scaling_efficiency",
                 "throughput / (sum of GPU speeds * batch / t_iter(1)), t_iter(1) = forward + backward: "
                 "t_iter(1) / t_iter(P) when synchronous on GPUs of speed 1 (the table shows it in percent)",
                 [](const RunMetrics& m) { return MetricValue{m.scaling_efficiency()}; }, "{:.6g}",
                 {"efficiency", 10, "{:>9.1f}%", 100}},
    MetricColumn{"compute_s", "forward + backward + top-k selection (the slowest GPU), seconds",
                 [](const RunMetrics& m) { return MetricValue{m.compute_s()}; }, "{:.9f}",
                 {"compute (ms)", 12, "{:>12.3f}", 1e3}},
    MetricColumn{"exposed_comm_s", "communication not hidden by compute: t_iter - compute, seconds",
                 [](const RunMetrics& m) { return MetricValue{m.exposed_comm_s()}; }, "{:.9f}",
                 {"exposed (ms)", 12, "{:>12.3f}", 1e3}},
    MetricColumn{"comm_s", "sum of all message durations, each as long as it ran, seconds",
                 [](const RunMetrics& m) { return MetricValue{m.comm_s()}; }, "{:.9f}", {}},
    MetricColumn{"selection_s", "top-k selection compute (sparse schedules; 0 for dense), seconds",
                 [](const RunMetrics& m) { return MetricValue{m.selection_s()}; }, "{:.9f}",
                 {"select (ms)", 11, "{:>11.3f}", 1e3}},
    MetricColumn{"messages", "collectives per iteration",
                 [](const RunMetrics& m) { return MetricValue{std::int64_t{m.messages}}; }, "{}",
                 {"messages", 8, "{:>8}"}},
    MetricColumn{"bytes",
                 "gradient bytes communicated per GPU per iteration (the dense equivalent; parameter all-gathers "
                 "not counted)",
                 [](const RunMetrics& m) { return MetricValue{m.bytes}; }, "{}", {}},
    MetricColumn{"sent_bytes",
                 "bytes each GPU contributes: `bytes` for dense schedules, k values + k indices for sparse ones, "
                 "plus 1/P of each parameter all-gather for sharded ones (the table shows MB)",
                 [](const RunMetrics& m) { return MetricValue{m.sent_bytes}; }, "{}",
                 {"sent (MB)", 9, "{:>9.3f}", 1e-6}},
    MetricColumn{"mean_iteration_time_s",
                 "mean iteration time over the config's iterations, seconds (iteration_time_s without variability)",
                 [](const RunMetrics& m) { return MetricValue{to_seconds(m.mean_iteration)}; }, "{:.9f}",
                 {"mean (ms)", 9, "{:>9.3f}", 1e3, true}},
    MetricColumn{"p50_iteration_time_s", "median (nearest-rank) iteration time, seconds",
                 [](const RunMetrics& m) { return MetricValue{to_seconds(m.p50_iteration)}; }, "{:.9f}", {}},
    MetricColumn{"p99_iteration_time_s", "99th percentile (nearest-rank) iteration time, seconds",
                 [](const RunMetrics& m) { return MetricValue{to_seconds(m.p99_iteration)}; }, "{:.9f}",
                 {"p99 (ms)", 9, "{:>9.3f}", 1e3, true}},
    MetricColumn{"mean_throughput_samples_per_s", "samples per iteration / mean iteration time, samples per second",
                 [](const RunMetrics& m) { return MetricValue{m.mean_throughput()}; }, "{:.6g}", {}},
    MetricColumn{"wait_s",
                 "mean time a GPU, its compute done, waits for the slowest GPU's compute per iteration, seconds",
                 [](const RunMetrics& m) { return MetricValue{to_seconds(m.wait)}; }, "{:.9f}",
                 {"wait (ms)", 9, "{:>9.3f}", 1e3}},
    MetricColumn{"effective_batch_mean", "samples whose gradients an iteration applies, mean over iterations",
                 [](const RunMetrics& m) { return MetricValue{m.samples}; }, "{:.6g}", {}},
    MetricColumn{"effective_batch_min", "fewest samples applied in one iteration",
                 [](const RunMetrics& m) { return MetricValue{m.samples_min}; }, "{:.6g}", {}},
    MetricColumn{"effective_batch_max", "most samples applied in one iteration",
                 [](const RunMetrics& m) { return MetricValue{m.samples_max}; }, "{:.6g}", {}},
    MetricColumn{"idle_s", "GPU-seconds per iteration spent waiting, neither computing nor communicating",
                 [](const RunMetrics& m) { return MetricValue{m.idle_s()}; }, "{:.9f}", {}},
    MetricColumn{"wasted_s", "GPU-seconds per iteration of compute discarded",
                 [](const RunMetrics& m) { return MetricValue{m.wasted_s()}; }, "{:.9f}", {}},
    MetricColumn{"model_state_bytes",
                 "model states on the GPU holding the most: parameters, gradients and optimizer state (fp32 "
                 "master weights included) at the config's optimizer and the schedule's ZeRO stage; activations "
                 "not counted (the table shows GB)",
                 [](const RunMetrics& m) { return MetricValue{m.model_state_bytes}; }, "{}",
                 {"states (GB)", 11, "{:>11.3f}", 1e-9}},
};

}  // namespace

std::span<const MetricColumn> metric_columns() { return kColumns; }

double metric_real(const MetricValue& value) {
  return std::visit([](auto v) { return static_cast<double>(v); }, value);
}

std::string format_metric(std::string_view format, const MetricValue& value, double scale) {
  if (scale != 1.0) return fmt::format(fmt::runtime(format), metric_real(value) * scale);
  return std::visit([&](auto v) { return fmt::format(fmt::runtime(format), v); }, value);
}

}  // namespace mgsim
