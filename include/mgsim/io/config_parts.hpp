#pragma once
// Pieces of a config that several configs read the same way: a network, a
// schedule entry, the overlap settings. Shared by the run, sweep and advice
// configs (src/io) and the planner's cluster files (src/plan).

#include <filesystem>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "mgsim/io/json_reader.hpp"
#include "mgsim/collective.hpp"
#include "mgsim/rate_model.hpp"
#include "mgsim/io/run_config.hpp"

namespace mgsim {

/// One link {alpha_us, beta_s_per_byte, gamma_s_per_byte}.
Link read_link(JsonReader in);

/// {"compute_slowdown": x, "comm_slowdown": y}, both >= 0, each 0 when absent.
Overlap read_overlap(JsonReader in);

/// Either one flat link {alpha_us, beta_s_per_byte, gamma_s_per_byte} or two
/// levels {"intra": {...}, "inter": {...}}. Keys already asked for on `in`
/// (e.g. a label) are accepted.
Network read_network(JsonReader in);

/// A schedule name, or {"name": ..., <parameter>: <number>, "layer_density":
/// {<layer>: <density>}, "selection_curve": <file>}, validated by building the
/// schedule. The curve file is resolved against `folder`.
ScheduleSpec read_schedule(const nlohmann::json& value, const JsonWhere& where, const std::filesystem::path& folder);

/// What a config gets when it names no schedules: every dense schedule
/// (sparse ones are asked for by name).
std::vector<ScheduleSpec> default_schedules();

/// The config's optional "message_unit": "tensor" (the default) or "layer".
MessageUnit read_message_unit(JsonReader& top);

/// A run config already parsed from `file` (load_run_config without the read).
RunConfig read_run_config(const nlohmann::json& document, const std::filesystem::path& file);

/// Fails at `where` when `spec`'s label is among `taken`; else adds it there.
void check_unique_label(const ScheduleSpec& spec, std::unordered_set<std::string>& taken, const JsonWhere& where);

}  // namespace mgsim
