#include "mgsim/iteration.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include <fmt/format.h>

#include "data_parallel_builder.hpp"
#include "mgsim/error.hpp"
#include "mgsim/registry_lookup.hpp"

namespace mgsim {
namespace {

/// Latest start of an iteration: 2^62 ns (146 years), so that one more
/// iteration (at most a year of compute plus an hour per delay) stays in int64.
constexpr SimTime kMaxRunTime = SimTime{1} << 62;

}  // namespace

std::span<const BuilderInfo> builder_registry() {
  static const std::array<BuilderInfo, 1> table{{
      {"data-parallel",
       "synchronous data parallelism: the schedule's plan replayed on every speed class, "
       "every iteration after the previous one's last message",
       {},
       [](const BuildContext& context, const ParamValues&) -> std::unique_ptr<IterationBuilder> {
         return std::make_unique<DataParallelBuilder>(context);
       }},
  }};
  return table;
}

const BuilderInfo& find_builder(std::string_view name) {
  return find_by_name<ConfigError>(builder_registry(), name, "iteration builder");
}

IterationStats iteration_stats(std::span<const IterationTiming> iterations) {
  IterationStats stats;
  if (iterations.empty()) return stats;
  std::vector<SimTime> durations;
  durations.reserve(iterations.size());
  for (const IterationTiming& timing : iterations) durations.push_back(timing.duration());
  std::sort(durations.begin(), durations.end());
  const auto n = static_cast<SimTime>(durations.size());
  SimTime sum = 0;
  for (SimTime d : durations) sum += d;
  SimTime waited = 0;  // at most the sum of the durations
  for (const IterationTiming& timing : iterations) waited += timing.wait;
  // Nearest rank: the smallest value with at least q of the sample at or below it.
  const auto rank = [&](int percent) { return durations[static_cast<std::size_t>((n * percent + 99) / 100 - 1)]; };
  stats.iterations = static_cast<int>(n);
  stats.total = iterations.back().end;
  stats.mean = (sum + n / 2) / n;
  stats.p50 = rank(50);
  stats.p99 = rank(99);
  stats.min = durations.front();
  stats.max = durations.back();
  stats.wait = (waited + n / 2) / n;
  return stats;
}

SimulationResult simulate(IterationBuilder& builder, std::uint64_t seed, int iterations) {
  if (iterations < 1) throw std::invalid_argument("simulate: needs at least one iteration");
  Random random(seed);
  Engine engine;
  SimulationResult result;
  result.iterations.reserve(static_cast<std::size_t>(iterations));
  SimTime start = 0;
  for (int i = 0; i < iterations; ++i) {
    if (start > kMaxRunTime) {
      throw ConfigError(fmt::format("{} iterations pass {} years of simulated time; ask for fewer", iterations,
                                    to_seconds(kMaxRunTime) / (365.0 * 24 * 3600)));
    }
    builder.build(engine, random, start);
    engine.run();
    result.iterations.push_back(builder.collect(engine));
    start = result.iterations.back().end;
  }
  result.stats = iteration_stats(result.iterations);
  return result;
}

}  // namespace mgsim
