#pragma once
// Pieces of a run config that other configs (sweeps, advice) read the same
// way: a network, a schedule entry. Internal to src/io.

#include <nlohmann/json.hpp>

#include "json_reader.hpp"
#include "mgsim/collective.hpp"
#include "mgsim/io/run_config.hpp"

namespace mgsim {

/// One link {alpha_us, beta_s_per_byte, gamma_s_per_byte}.
Link read_link(JsonReader in);

/// Either one flat link {alpha_us, beta_s_per_byte, gamma_s_per_byte} or two
/// levels {"intra": {...}, "inter": {...}}. Keys already asked for on `in`
/// (e.g. a label) are accepted.
Network read_network(JsonReader in);

/// A schedule name, or {"name": ..., <parameter>: <number>}, validated by
/// building the schedule.
ScheduleSpec read_schedule(const nlohmann::json& value, const JsonWhere& where);

}  // namespace mgsim
