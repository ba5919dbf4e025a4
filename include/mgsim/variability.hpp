#pragma once
// Variability: random compute delays and persistent stragglers
// (docs/variability.md). A DelayLaw draws one delay for one unit of compute
// (a rank's mini-batch, or one layer of it) from the one Random source of a
// simulation; laws come from one table {name, description, parameters,
// factory}, like schedules and collectives, and `mgsim list` shows it.
// `Variability` is what a config asks for, as plain values; iteration
// builders (iteration.hpp) build the law and apply it to every rank's own
// compute stream. Nothing here keeps state between draws, so the draws, in
// the documented order, are all that fixes a run's numbers.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mgsim/random.hpp"
#include "mgsim/schedule.hpp"
#include "mgsim/time.hpp"

namespace mgsim {

/// A random delay added to a unit of compute.
class DelayLaw {
 public:
  virtual ~DelayLaw() = default;
  /// One delay in nanoseconds, in [0, kMaxDelay], for a unit whose nominal
  /// duration is `nominal` (only slow-down laws read it). How many outputs
  /// of `random` a call takes is the law's (docs/variability.md).
  virtual SimTime draw(Random& random, SimTime nominal) const = 0;
  /// `delays[i]` for a unit of nominal duration `nominal[i]`, i = 0, 1, ...:
  /// the same as draw() called for each in turn, in one loop.
  virtual void draw_all(Random& random, std::span<const SimTime> nominal, std::span<SimTime> delays) const = 0;
};

/// Largest single delay (kMaxStepSeconds, one hour): heavy tails are cut here
/// so that every simulated time stays inside int64 nanoseconds.
inline constexpr SimTime kMaxDelay = SimTime{3600} * 1'000'000'000;

struct LawInfo {
  std::string_view name;
  std::string_view description;
  std::span<const ParamSpec> params;
  std::unique_ptr<DelayLaw> (*make)(const ParamValues& given);
};

/// Every delay law, in the order `mgsim list` shows them.
std::span<const LawInfo> law_registry();

/// Looks a law up by name; throws ConfigError listing the valid names.
const LawInfo& find_law(std::string_view name);

/// Validates the parameters (names and ranges) against the law and builds
/// it. Throws ConfigError naming the law and the parameter.
std::unique_ptr<DelayLaw> make_law(std::string_view name, const ParamValues& given);

/// What one draw delays: a rank's whole mini-batch (added to its forward
/// pass) or each layer (the forward pass, then each layer's backward).
enum class DelayUnit { iteration, layer };

/// "iteration" or "layer".
std::string_view to_string(DelayUnit unit);

/// Ranks that are slow in every iteration, unknown to the schedule's plan:
/// their compute takes the nominal time divided by `speed`.
struct Stragglers {
  std::vector<int> ranks;  ///< distinct, each below the GPU count
  double speed = 1.0;      ///< in [kMinSpeed, kMaxSpeed] (mgsim/limits.hpp)
};

/// The variability a config asks for. `law` empty: no random delays.
struct Variability {
  std::string law;
  ParamValues params;  ///< the law's, validated by make_law
  DelayUnit per = DelayUnit::iteration;
  std::uint64_t seed = 1;
  Stragglers stragglers;
  /// No delays and no stragglers: every iteration is the nominal one.
  bool none() const { return law.empty() && stragglers.ranks.empty(); }
};

/// Iterations simulated per run when a config names none.
inline constexpr int kDefaultIterations = 100;

}  // namespace mgsim
