#pragma once
// The importers (importers.hpp) applied to files: opening, and for Kineto
// decompressing (.json.gz) and parsing the JSON. Errors name the file.

#include <cstdint>
#include <filesystem>
#include <vector>

#include "mgsim/profile/importers.hpp"

namespace mgsim::profile {

ImportedCurve import_nccl_tests_file(const std::filesystem::path& file, const NcclTestsOptions& options);
ImportedCurve import_osu_file(const std::filesystem::path& file, const OsuOptions& options);
ImportedTrace import_kineto_file(const std::filesystem::path& file, const KinetoOptions& options);

/// One rank's trace of a folder of per-rank traces.
struct RankTrace {
  int rank = 0;
  std::filesystem::path file;
  ImportedTrace imported;
};

/// An HTA-style folder of per-rank traces: every *.json and *.json.gz file in
/// it (not below), each imported on its own, ordered by the rank its
/// "distributedInfo" names (file name order for files without one). Throws
/// TraceError naming the file; an empty folder or a rank given twice is an error.
std::vector<RankTrace> import_kineto_folder(const std::filesystem::path& folder, const KinetoOptions& options);

/// A parameter size list: one tensor per line in forward (state_dict) order,
/// its element count last on the line ("layer1.0.conv1.weight 4096" or
/// "4096"), '#' starting a comment. Throws TraceError naming the file and line.
std::vector<std::int64_t> read_param_sizes(const std::filesystem::path& file);

}  // namespace mgsim::profile
