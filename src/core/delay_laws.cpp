// The delay laws and their table (docs/variability.md). Each law turns
// outputs of the one Random into a delay in seconds, cut at kMaxDelay and
// rounded once to the nanosecond. U below is 1 - uniform(), in (0, 1], so
// that its logarithm is finite; exponentials come from the ziggurat.

#include <array>
#include <cmath>
#include <numbers>
#include <span>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/registry_lookup.hpp"
#include "mgsim/variability.hpp"
#include "exponential_ziggurat.hpp"

namespace mgsim {
namespace {

/// `seconds` (>= 0, possibly infinite) as a delay: at most kMaxDelay, else
/// to_ns(seconds) (the same nanosecond, without the C library's llround).
SimTime delay_of(double seconds) {
  return seconds >= to_seconds(kMaxDelay) ? kMaxDelay : round_nonnegative(seconds * 1e9);
}

double open_uniform(Random& random) { return 1.0 - random.uniform(); }

/// A law whose one draw is `Law::one`, called directly (inlined) in draw_all's loop.
template <class Law>
class LawOf : public DelayLaw {
 public:
  SimTime draw(Random& random, SimTime nominal) const final { return law().one(random, nominal); }
  void draw_all(Random& random, std::span<const SimTime> nominal, std::span<SimTime> delays) const final {
    Random local = random;  // a copy the delays' stores cannot alias: its state stays in registers
    for (std::size_t i = 0; i < nominal.size(); ++i) delays[i] = law().one(local, nominal[i]);
    random = local;
  }

 private:
  const Law& law() const { return static_cast<const Law&>(*this); }
};

/// shift + Exp(mean): shift + mean E, E standard exponential (ziggurat).
/// The plain exponential law has shift 0.
class ShiftedExponential : public LawOf<ShiftedExponential> {
 public:
  ShiftedExponential(double shift_s, double mean_s) : shift_s_(shift_s), mean_s_(mean_s) {}
  SimTime one(Random& random, SimTime) const {
    return delay_of(shift_s_ + mean_s_ * standard_exponential(random));
  }

 private:
  double shift_s_;
  double mean_s_;
};

/// median exp(sigma Z), Z standard normal by Box-Muller: sqrt(-2 ln U1) cos(2 pi u2).
class LogNormal : public LawOf<LogNormal> {
 public:
  LogNormal(double median_s, double sigma) : median_s_(median_s), sigma_(sigma) {}
  SimTime one(Random& random, SimTime) const {
    const double radius = std::sqrt(-2.0 * std::log(open_uniform(random)));
    const double z = radius * std::cos(2.0 * std::numbers::pi * random.uniform());
    return delay_of(median_s_ * std::exp(sigma_ * z));
  }

 private:
  double median_s_;
  double sigma_;
};

/// Pareto type I: scale U^(-1/shape), at least `scale`.
class Pareto : public LawOf<Pareto> {
 public:
  Pareto(double scale_s, double shape) : scale_s_(scale_s), shape_(shape) {}
  SimTime one(Random& random, SimTime) const {
    const double tail = std::pow(open_uniform(random), -1.0 / shape_);  // may be infinite for a tiny shape
    return scale_s_ == 0.0 ? 0 : delay_of(scale_s_ * tail);
  }

 private:
  double scale_s_;
  double shape_;
};

/// With probability p (uniform() < p) the unit takes (1 + slowdown) x its
/// nominal time: a delay of slowdown x nominal; otherwise none.
class BernoulliSlowdown : public LawOf<BernoulliSlowdown> {
 public:
  BernoulliSlowdown(double probability, double slowdown) : probability_(probability), slowdown_(slowdown) {}
  SimTime one(Random& random, SimTime nominal) const {
    if (!(random.uniform() < probability_)) return 0;
    const double delay = slowdown_ * static_cast<double>(nominal);
    return delay >= static_cast<double>(kMaxDelay) ? kMaxDelay : round_nonnegative(delay);
  }

 private:
  double probability_;
  double slowdown_;
};

constexpr double kMaxScaleSeconds = 3600.0;  // kMaxDelay: a larger scale only ever draws the cut

constexpr ParamSpec kExponentialParams[] = {
    {.name = "mean_s",
     .default_value = 0.01,
     .zero_allowed = true,
     .description = "mean delay 1/lambda, seconds",
     .max_value = kMaxScaleSeconds},
};
constexpr ParamSpec kShiftedExponentialParams[] = {
    {.name = "shift_s",
     .default_value = 0.0,
     .zero_allowed = true,
     .description = "the fixed part of every delay, seconds",
     .max_value = kMaxScaleSeconds},
    {.name = "mean_s",
     .default_value = 0.01,
     .zero_allowed = true,
     .description = "mean of the exponential part 1/lambda, seconds",
     .max_value = kMaxScaleSeconds},
};
constexpr ParamSpec kLogNormalParams[] = {
    {.name = "median_s",
     .default_value = 0.01,
     .zero_allowed = true,
     .description = "median delay e^mu, seconds",
     .max_value = kMaxScaleSeconds},
    {.name = "sigma",
     .default_value = 0.5,
     .zero_allowed = true,
     .description = "standard deviation of the delay's logarithm",
     .max_value = 10.0},
};
constexpr ParamSpec kParetoParams[] = {
    {.name = "scale_s",
     .default_value = 0.01,
     .zero_allowed = true,
     .description = "smallest delay x_m, seconds",
     .max_value = kMaxScaleSeconds},
    {.name = "shape",
     .default_value = 3.0,
     .zero_allowed = false,
     .description = "tail index alpha (mean finite above 1, variance above 2)",
     .max_value = 1000.0},
};
constexpr ParamSpec kBernoulliParams[] = {
    {.name = "probability",
     .default_value = 0.01,
     .zero_allowed = true,
     .description = "chance that a unit is slowed",
     .max_value = 1.0},
    {.name = "slowdown",
     .default_value = 1.0,
     .zero_allowed = true,
     .description = "a slowed unit takes (1 + slowdown) x its nominal time",
     .max_value = 1000.0},
};

constexpr std::array kLaws{
    LawInfo{"exponential", "Exp(lambda) delays: memoryless noise of mean 1/lambda", kExponentialParams,
            [](const ParamValues& given) -> std::unique_ptr<DelayLaw> {
              return std::make_unique<ShiftedExponential>(0.0, param_value(given, kExponentialParams, "mean_s"));
            }},
    LawInfo{"shifted-exponential", "a fixed delay plus Exp(lambda) noise", kShiftedExponentialParams,
            [](const ParamValues& given) -> std::unique_ptr<DelayLaw> {
              return std::make_unique<ShiftedExponential>(param_value(given, kShiftedExponentialParams, "shift_s"),
                                                          param_value(given, kShiftedExponentialParams, "mean_s"));
            }},
    LawInfo{"lognormal", "log-normal delays: e^(mu + sigma Z)", kLogNormalParams,
            [](const ParamValues& given) -> std::unique_ptr<DelayLaw> {
              return std::make_unique<LogNormal>(param_value(given, kLogNormalParams, "median_s"),
                                                 param_value(given, kLogNormalParams, "sigma"));
            }},
    LawInfo{"pareto", "Pareto (type I) delays: a heavy tail of rare long stalls", kParetoParams,
            [](const ParamValues& given) -> std::unique_ptr<DelayLaw> {
              return std::make_unique<Pareto>(param_value(given, kParetoParams, "scale_s"),
                                              param_value(given, kParetoParams, "shape"));
            }},
    LawInfo{"bernoulli", "Bernoulli slow-down: with probability p a unit runs (1 + slowdown) x longer",
            kBernoulliParams,
            [](const ParamValues& given) -> std::unique_ptr<DelayLaw> {
              return std::make_unique<BernoulliSlowdown>(param_value(given, kBernoulliParams, "probability"),
                                                         param_value(given, kBernoulliParams, "slowdown"));
            }},
};

}  // namespace

std::span<const LawInfo> law_registry() { return kLaws; }

const LawInfo& find_law(std::string_view name) { return find_by_name<ConfigError>(law_registry(), name, "law"); }

std::unique_ptr<DelayLaw> make_law(std::string_view name, const ParamValues& given) {
  const LawInfo& info = find_law(name);
  check_params(fmt::format("law '{}'", info.name), info.params, given);
  return info.make(given);
}

std::string_view to_string(DelayUnit unit) { return unit == DelayUnit::iteration ? "iteration" : "layer"; }

}  // namespace mgsim
