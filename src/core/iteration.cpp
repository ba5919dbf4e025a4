#include "mgsim/iteration.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "data_parallel_builder.hpp"
#include "gossip_builder.hpp"
#include "mgsim/counted.hpp"
#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/registry_lookup.hpp"
#include "nbsgd_builder.hpp"

namespace mgsim {
namespace {

/// Latest start of an iteration: 2^62 ns (146 years), so that one more
/// iteration (at most a year of compute plus an hour per delay) stays in int64.
constexpr SimTime kMaxRunTime = SimTime{1} << 62;

constexpr std::array kNbsgdParams{
    ParamSpec{.name = "minibatches",
              .default_value = 4.0,
              .zero_allowed = false,
              .description = "m: mini-batches each rank's batch is split into",
              .max_value = 1024.0,
              .whole = true},
    ParamSpec{.name = "k",
              .default_value = 1.0,
              .zero_allowed = false,
              .description = "with trigger kth: the round ends when the k-th rank has finished all m",
              .max_value = kMaxGpus,
              .whole = true},
    ParamSpec{.name = "deadline_s",
              .default_value = 0.0,
              .zero_allowed = false,
              .description = "with trigger deadline (and required by it): seconds from the round's start",
              .max_value = kMaxStepSeconds},
};
constexpr std::array<std::string_view, 3> kTriggers{"first", "kth", "deadline"};
constexpr std::array<std::string_view, 2> kStops{"boundary", "abort"};
constexpr std::array kNbsgdChoices{
    ChoiceSpec{"trigger", "first", kTriggers, "what ends a round: the first rank to finish all m, the k-th, a deadline"},
    ChoiceSpec{"stop", "boundary", kStops,
               "at the trigger every rank finishes its mini-batch in progress (boundary) or discards it (abort)"},
};

constexpr std::array kGossipParams{
    ParamSpec{.name = "budget",
              .default_value = 1.0,
              .zero_allowed = false,
              .description = "probability that each matching is active in a round (MATCHA's budget)",
              .max_value = 1.0},
};
/// The topologies built for any rank count; any other `topology` names a graph file.
struct NamedGraph {
  std::string_view name;
  Graph (*make)(int ranks);
};
constexpr std::array kNamedGraphs{NamedGraph{"ring", ring_graph}, NamedGraph{"torus", torus_graph}};
constexpr std::array kTopologies{kNamedGraphs[0].name, kNamedGraphs[1].name};
constexpr std::array<std::string_view, 2> kBooleans{"false", "true"};
constexpr std::array kGossipChoices{
    ChoiceSpec{.name = "topology",
               .default_value = "ring",
               .choices = kTopologies,
               .description = "the graph: ring, torus (2-D) or a graph file (docs/decentralized.md)",
               .file_allowed = true},
    ChoiceSpec{.name = "barrier",
               .default_value = "false",
               .choices = kBooleans,
               .description = "true: every round starts when the last rank has ended the previous"},
};

constexpr std::array<std::string_view, 2> kRankTimings{"folded", "streams"};
constexpr std::array kDataParallelChoices{
    ChoiceSpec{"ranks", "folded", kRankTimings,
               "with variability, each rank's timeline: folded exactly into one compute stream (without "
               "interference) or none (with), or one engine stream per rank (the reference, slower)"},
};

std::unique_ptr<IterationBuilder> make_data_parallel(const BuildContext& context, const BuilderParams& given) {
  check_builder_params(find_builder("data-parallel"), given, context.cluster.size());
  const bool fold = choice_value(given.choices, kDataParallelChoices, "ranks") == "folded";
  return std::make_unique<DataParallelBuilder>(context, fold);
}

std::unique_ptr<IterationBuilder> make_nbsgd(const BuildContext& context, const BuilderParams& given) {
  check_builder_params(find_builder("nbsgd"), given, context.cluster.size());
  NbsgdSettings settings;
  settings.minibatches = static_cast<int>(param_value(given.numbers, kNbsgdParams, "minibatches"));
  const std::string_view trigger = choice_value(given.choices, kNbsgdChoices, "trigger");
  settings.trigger = trigger == "deadline" ? NbsgdTrigger::deadline : NbsgdTrigger::kth;
  settings.k = trigger == "kth" ? static_cast<int>(param_value(given.numbers, kNbsgdParams, "k")) : 1;
  settings.deadline = to_ns(param_value(given.numbers, kNbsgdParams, "deadline_s"));
  settings.stop =
      choice_value(given.choices, kNbsgdChoices, "stop") == "abort" ? NbsgdStop::abort : NbsgdStop::boundary;
  return std::make_unique<NbsgdBuilder>(context, settings);
}

/// The graph `topology` names on `gpus` ranks.
Graph gossip_graph(const BuilderParams& given, int gpus) {
  const std::string_view topology = choice_value(given.choices, kGossipChoices, "topology");
  for (const NamedGraph& named : kNamedGraphs) {
    if (named.name == topology) return named.make(gpus);
  }
  return given.graph.value();
}

std::unique_ptr<IterationBuilder> make_gossip(const BuildContext& context, const BuilderParams& given,
                                              std::string_view name, double budget) {
  check_builder_params(find_builder(name), given, context.cluster.size());
  if (!context.network) {
    throw ConfigError(fmt::format("schedule '{}': needs a network (alpha, beta) for point-to-point exchanges", name));
  }
  const GossipSettings settings{budget, choice_value(given.choices, kGossipChoices, "barrier") == "true"};
  return std::make_unique<GossipBuilder>(context, gossip_graph(given, context.cluster.size()), settings);
}

std::unique_ptr<IterationBuilder> make_dpsgd(const BuildContext& context, const BuilderParams& given) {
  return make_gossip(context, given, "dpsgd", 1.0);
}

std::unique_ptr<IterationBuilder> make_matcha(const BuildContext& context, const BuilderParams& given) {
  return make_gossip(context, given, "matcha", param_value(given.numbers, kGossipParams, "budget"));
}

constexpr std::array kBuilders{
    BuilderInfo{.name = "data-parallel",
                .description = "synchronous data parallelism: the schedule's plan replayed on every speed class, "
                               "every iteration after the previous one's last message",
                .params = {},
                .choices = kDataParallelChoices,
                .standalone = false,
                .make = make_data_parallel},
    BuilderInfo{.name = "nbsgd",
                .description = "Non-blocking SGD: m mini-batches per rank, a trigger ends the round, one all-reduce "
                               "of the accumulated gradients (He and Dube)",
                .params = kNbsgdParams,
                .choices = kNbsgdChoices,
                .standalone = true,
                .make = make_nbsgd},
    BuilderInfo{.name = "dpsgd",
                .description = "D-PSGD: every round each rank exchanges its model with every neighbour, matching by "
                               "matching",
                .params = {},
                .choices = kGossipChoices,
                .standalone = true,
                .make = make_dpsgd,
                .needs_network = true},
    BuilderInfo{.name = "matcha",
                .description = "MATCHA: D-PSGD whose matchings are each active with probability budget per round "
                               "(shared seed)",
                .params = kGossipParams,
                .choices = kGossipChoices,
                .standalone = true,
                .make = make_matcha,
                .needs_network = true},
};

void check_choices(const BuilderInfo& info, const ChoiceValues& given) {
  for (const auto& [name, value] : given) {
    const auto spec = std::find_if(info.choices.begin(), info.choices.end(),
                                   [&key = name](const ChoiceSpec& c) { return c.name == key; });
    if (spec == info.choices.end()) {
      throw ConfigError(fmt::format("schedule '{}': unknown parameter '{}' or not a number", info.name, name));
    }
    if (spec->file_allowed || std::find(spec->choices.begin(), spec->choices.end(), value) != spec->choices.end()) {
      continue;
    }
    throw ConfigError(fmt::format("schedule '{}': parameter '{}' must be one of {}, got '{}'", info.name, name,
                                  fmt::join(spec->choices, ", "), value));
  }
}

}  // namespace

std::span<const BuilderInfo> builder_registry() { return kBuilders; }

std::string_view choice_value(const ChoiceValues& given, std::span<const ChoiceSpec> specs, std::string_view name) {
  const auto spec = std::find_if(specs.begin(), specs.end(), [&](const ChoiceSpec& c) { return c.name == name; });
  if (spec == specs.end()) return {};
  const auto found = given.find(name);
  return found == given.end() ? spec->default_value : std::string_view(found->second);
}

void check_builder_params(const BuilderInfo& info, const BuilderParams& given, int gpus) {
  check_params(fmt::format("schedule '{}'", info.name), info.params, given.numbers);
  check_choices(info, given.choices);
  const auto chosen = [&](std::string_view name) { return choice_value(given.choices, info.choices, name); };
  const std::string_view trigger = chosen("trigger");
  if (given.numbers.contains("k") && trigger != "kth") {
    throw ConfigError(fmt::format("schedule '{}': parameter 'k' needs trigger 'kth', not '{}'", info.name, trigger));
  }
  if (given.numbers.contains("deadline_s") != (trigger == "deadline")) {
    throw ConfigError(fmt::format("schedule '{}': trigger 'deadline' and parameter 'deadline_s' go together", info.name));
  }
  if (trigger == "deadline" && to_ns(param_value(given.numbers, kNbsgdParams, "deadline_s")) < 1) {
    // Red team: 1e-10 s was accepted and ran as a deadline of 0 ns, which is refused.
    throw ConfigError(fmt::format("schedule '{}': parameter 'deadline_s' = {:g} is under the engine's 1 ns tick: "
                                  "expected at least 1e-9",
                                  info.name, param_value(given.numbers, kNbsgdParams, "deadline_s")));
  }
  if (trigger == "kth" && param_value(given.numbers, kNbsgdParams, "k") > gpus) {
    throw ConfigError(fmt::format("schedule '{}': parameter 'k' = {} exceeds the {}", info.name,
                                  param_value(given.numbers, kNbsgdParams, "k"), counted(gpus, "GPU")));
  }
  const std::string_view topology = chosen("topology");
  const bool named = topology.empty() || std::find(kTopologies.begin(), kTopologies.end(), topology) != kTopologies.end();
  if (!named && !given.graph) {
    throw ConfigError(fmt::format("schedule '{}': topology '{}' has no graph loaded", info.name, topology));
  }
  if (!named && given.graph->vertices() != gpus) {
    throw ConfigError(fmt::format("schedule '{}': topology '{}' has {}, the run {}", info.name, topology,
                                  counted(given.graph->vertices(), "rank"), counted(gpus, "GPU")));
  }
}

ScheduleChoice find_schedule_or_builder(std::string_view name) {
  for (const ScheduleInfo& info : schedule_registry()) {
    if (info.name == name) return {&info, nullptr};
  }
  for (const BuilderInfo& info : builder_registry()) {
    if (info.standalone && info.name == name) return {nullptr, &info};
  }
  std::vector<std::string_view> names;
  for (const ScheduleInfo& info : schedule_registry()) names.push_back(info.name);
  for (const BuilderInfo& info : builder_registry()) {
    if (info.standalone) names.push_back(info.name);
  }
  throw ConfigError(unknown_name("schedule", name, names));
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
