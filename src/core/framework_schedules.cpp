// The schedules of the frameworks users actually run: PyTorch DDP buckets and
// Horovod tensor fusion. Both work on tensors, not layers.

#include <algorithm>
#include <cmath>
#include <vector>

#include "mgsim/limits.hpp"
#include "schedules.hpp"

namespace mgsim {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

/// PyTorch DDP: tensors in backward order fill buckets; a bucket closes as
/// soon as its size reaches its cap (the tensor that crosses the cap stays in
/// it). The first bucket has its own cap. Buckets are all-reduced strictly in
/// order, each once all its gradients exist.
class Ddp : public Schedule {
 public:
  Ddp(std::int64_t first_cap, std::int64_t cap) : first_cap_(first_cap), cap_(cap) {}

  Plan plan(const CommProblem& problem) const override {
    Plan plan;
    int begin = 0;
    std::int64_t size = 0;
    for (int t = 0; t < problem.tensor_count(); ++t) {
      size += problem.layout->bytes[static_cast<std::size_t>(t)];
      if (size >= (plan.empty() ? first_cap_ : cap_)) {
        plan.push_back(make_message(problem, begin, t + 1));
        begin = t + 1;
        size = 0;
      }
    }
    if (begin < problem.tensor_count()) plan.push_back(make_message(problem, begin, problem.tensor_count()));
    return plan;
  }

 private:
  std::int64_t first_cap_;
  std::int64_t cap_;
};

/// Horovod: a background cycle wakes every `cycle` after the backward starts;
/// at each wake-up the tensors ready on every GPU (and not yet sent) are fused
/// in backward order into buffers of at most `threshold` bytes (a larger
/// tensor goes alone), each buffer one all-reduce that may start at the
/// wake-up. A fused buffer pays a copy in and a copy out.
class Horovod : public Schedule {
 public:
  Horovod(std::int64_t threshold, SimTime cycle, double copy_s_per_byte)
      : threshold_(threshold), cycle_(cycle), copy_s_per_byte_(copy_s_per_byte) {}

  Plan plan(const CommProblem& problem) const override {
    Plan plan;
    SimTime prefix_ready = 0;  // a tensor is taken only with every tensor before it
    int begin = 0;
    std::int64_t size = 0;
    SimTime buffer_tick = 0;
    for (int t = 0; t < problem.tensor_count(); ++t) {
      prefix_ready = std::max(prefix_ready, problem.ready[static_cast<std::size_t>(t)]);
      const SimTime tick = wake_up_at_or_after(prefix_ready);
      const std::int64_t bytes = problem.layout->bytes[static_cast<std::size_t>(t)];
      if (t > begin && (tick != buffer_tick || size + bytes > threshold_)) {
        plan.push_back(fused(problem, begin, t, buffer_tick));
        begin = t;
        size = 0;
      }
      buffer_tick = tick;
      size += bytes;
    }
    plan.push_back(fused(problem, begin, problem.tensor_count(), buffer_tick));
    return plan;
  }

 private:
  /// The first wake-up at or after `time` (>= 0, from the backward start).
  SimTime wake_up_at_or_after(SimTime time) const { return (time + cycle_ - 1) / cycle_ * cycle_; }

  Message fused(const CommProblem& problem, int begin, int end, SimTime tick) const {
    const SimTime copies =
        end - begin > 1 ? step_ns(2.0 * static_cast<double>(problem.bytes_of(begin, end)) * copy_s_per_byte_,
                                  [] { return std::string("horovod: copying a fused buffer"); })
                        : 0;
    return make_message(problem, begin, end, tick, copies);
  }

  std::int64_t threshold_;
  SimTime cycle_;
  double copy_s_per_byte_;
};

std::int64_t mib_to_bytes(double mib) { return std::llround(mib * kMiB); }

}  // namespace

std::unique_ptr<Schedule> make_ddp(const ParamValues& given, const SparseOptions&) {
  const auto& specs = find_schedule("ddp").params;
  return std::make_unique<Ddp>(mib_to_bytes(param_value(given, specs, "first_bucket_cap_mb")),
                               mib_to_bytes(param_value(given, specs, "bucket_cap_mb")));
}

std::unique_ptr<Schedule> make_horovod(const ParamValues& given, const SparseOptions&) {
  const auto& specs = find_schedule("horovod").params;
  const SimTime cycle = std::max<SimTime>(1, to_ns(param_value(given, specs, "cycle_time_ms") * 1e-3));
  return std::make_unique<Horovod>(mib_to_bytes(param_value(given, specs, "fusion_threshold_mb")), cycle,
                                   param_value(given, specs, "copy_s_per_byte"));
}

}  // namespace mgsim
