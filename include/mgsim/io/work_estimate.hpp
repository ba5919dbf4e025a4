#pragma once
// How much a run config asks the engine to do, estimated before running, so
// that a valid-looking config (2048 ranks x 10^6 iterations, gossip on 2^20
// ranks) is refused with the estimate instead of running for hours.

#include "mgsim/io/run_config.hpp"
#include "mgsim/simulation.hpp"

namespace mgsim {

/// Default budget of `mgsim run --max-work`: 2e8 steps, at most about 20 s
/// (measured on the 2-core CI machine: 27 M steps/s with variability, 15 to
/// 50 M for the gossip and non-blocking builders, from 2^16 to 2^18 ranks).
inline constexpr double kDefaultMaxWork = 2e8;

/// Steps a standalone builder (nbsgd, dpsgd, matcha) takes per rank and
/// iteration: ten times a random draw (what the measurements above give).
inline constexpr double kBuilderSteps = 10;

/// Steps per layer^3 of the exact `omgs` plan, one per GPU count: it is
/// cubic in the layers (2000 layers: 14 s on the CI machine, 1000: 1.8 s).
inline constexpr double kOmgsStepsPerCube = 0.1;

/// Steps of a config's runs, about: omgs's plans (kOmgsStepsPerCube), and
/// the runs simulated rank by rank: summed over the
/// GPU counts, ranks x iterations x, per schedule, kBuilderSteps for a
/// standalone builder, or the random draws of a rank (1, or layers + 1 with
/// per-layer delays) for a plan-based schedule under variability; a
/// plan-based run without variability is closed form (0).
double estimate_run_events(const RunConfig& config, const Workload& workload);

/// Throws ConfigError with the estimate and the flag that raises the budget
/// when estimate_run_events is past `max_events`.
void check_run_work(const RunConfig& config, const Workload& workload, double max_events);

}  // namespace mgsim
