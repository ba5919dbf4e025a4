#pragma once
// Pieces of a config that several configs read the same way: a network, a
// schedule entry, the overlap settings. Shared by the scenario reader
// (scenario.cpp), the measurements of calibrate and the planner's cluster files (src/plan).

#include <filesystem>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "mgsim/io/json_reader.hpp"
#include "mgsim/collective.hpp"
#include "mgsim/rate_model.hpp"
#include "mgsim/schedule_spec.hpp"
#include "mgsim/variability.hpp"

namespace mgsim {

/// One link {alpha_us, beta_s_per_byte, gamma_s_per_byte}.
Link read_link(JsonReader in);

/// {"compute_slowdown": x, "comm_slowdown": y}, both >= 0, each 0 when absent.
Overlap read_overlap(JsonReader in);

/// Either one flat link {alpha_us, beta_s_per_byte, gamma_s_per_byte} or two
/// levels {"intra": {...}, "inter": {...}}, either with an optional
/// "fabric_s_per_byte". Keys already asked for on `in` (e.g. a label) are accepted.
Network read_network(JsonReader in);

/// Refuses `network`, read from `entry` at `where`, where `collective` cannot
/// run it (CollectiveInfo::check_network), naming the key at fault
/// (`gamma_s_per_byte`, or that of its level).
void check_network_for(const CollectiveInfo& collective, const Network& network, const nlohmann::json& entry,
                       const JsonWhere& where);

/// A number parameter of one run's entry (a measurement row's schedule or
/// collective) and where it is: the value, or the element of a list of one
/// (as a config's list of one makes one run); a list of several is refused.
std::pair<const nlohmann::json*, JsonWhere> one_run_value(const nlohmann::json& parameter, const JsonWhere& where);

/// One collective entry without arrays: a name, or {"name": ..., <parameter>:
/// <number>}, each parameter checked against its range (defined in scenario.cpp).
CollectiveSpec read_collective(const nlohmann::json& value, const JsonWhere& where);

/// A schedule name, or {"name": ..., <parameter>: <number>, "layer_density":
/// {<layer>: <density>}, "selection_curve": <file>}, validated by building the
/// schedule; a standalone builder's text parameters are strings (a boolean
/// reads as "true" or "false") and a `topology` naming a file loads that
/// graph. Files are resolved against `folder`; each file read is appended to `inputs`.
ScheduleSpec read_schedule(const nlohmann::json& value, const JsonWhere& where, const std::filesystem::path& folder,
                           std::vector<std::filesystem::path>& inputs);

/// The numeric parameter `key` of the schedule or standalone builder `name`;
/// none where `name` names neither or it takes no such number.
const ParamSpec* find_schedule_param(std::string_view name, std::string_view key);

/// The number `value` found at `where`, in the range `param` takes
/// (read_schedule reads each so; a sweep's list checks each element so).
double read_schedule_param(const ParamSpec& param, const nlohmann::json& value, const JsonWhere& where);

/// Fails at `where` when `spec` is a standalone builder that cannot run on
/// one of `gpus` (k of nbsgd above it, a graph of another size).
void check_builder_gpus(const ScheduleSpec& spec, const std::vector<int>& gpus, const JsonWhere& where);

/// Fails at `where`.variability.per when a standalone builder is asked for
/// delays per layer: they draw one delay per mini-batch or round.
void check_builder_delays(const std::vector<ScheduleSpec>& specs, const Variability& variability,
                          const JsonWhere& where);

/// What a config gets when it names no schedules: every dense schedule
/// (sparse and sharded ones are asked for by name).
std::vector<ScheduleSpec> default_schedules();

/// The config's optional "message_unit": "tensor" (the default) or "layer".
MessageUnit read_message_unit(JsonReader& top);

/// The "variability" object (docs/variability.md): {"law": name, <law
/// parameter>: number, ..., "per": "iteration" | "layer", "seed": integer,
/// "stragglers": {"ranks": [...], "speed": s}}, every key optional. Straggler
/// ranks must be below `gpus`, the config's smallest GPU count.
Variability read_variability(JsonReader in, int gpus);

/// The config's optional "iterations": 1..kMaxIterations, default kDefaultIterations.
int read_iterations(JsonReader& top);

/// Fails at `where` when `spec` is a run among `taken`; else adds it there.
/// A run is its label with each file it reads (a graph, a selection curve,
/// resolved against `folder`) known by its identity, not its spelling.
void check_unique_label(const ScheduleSpec& spec, const std::filesystem::path& folder,
                        std::unordered_set<std::string>& taken, const JsonWhere& where);

}  // namespace mgsim
