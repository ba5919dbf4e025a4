#pragma once
// Reading measurement rows (calibrate, validate). Internal to src/app.

#include <filesystem>
#include <fmt/format.h>
#include <string>
#include <string_view>
#include <nlohmann/json.hpp>
#include <vector>

#include "mgsim/io/json_reader.hpp"
#include "mgsim/app/calibrate.hpp"

namespace mgsim {

/// Reads measurement rows `[{"trace"?, "gpus", "schedule", one of
/// "iteration_time_s" | "throughput_samples_per_s" | "comm_time_s",
/// "source"?}, ...]` found at `where`. A schedule given by name alone takes
/// the base config's entry of that name when it has one (with its
/// parameters, so that fitting them moves the measurement; the row's label
/// is that entry's), the config found at `config_where`. Traces are
/// relative to `folder`. Throws ConfigError naming file and key.
std::vector<Measurement> read_measurements(const nlohmann::json& rows, const JsonWhere& where,
                                           const std::filesystem::path& folder, const nlohmann::json& base_config,
                                           const JsonWhere& config_where, const std::filesystem::path& base_trace);

/// How reports name the run of a schedule on a collective: "<schedule> <collective>".
inline std::string run_label(std::string_view schedule, std::string_view collective) {
  return fmt::format("{} {}", schedule, collective);
}

}  // namespace mgsim
