#pragma once
// The importers (importers.hpp) applied to files: opening, and for Kineto
// parsing the JSON. Errors name the file.

#include <filesystem>

#include "mgsim/profile/importers.hpp"

namespace mgsim::profile {

ImportedCurve import_nccl_tests_file(const std::filesystem::path& file, const NcclTestsOptions& options);
ImportedCurve import_osu_file(const std::filesystem::path& file, const OsuOptions& options);
ImportedTrace import_kineto_file(const std::filesystem::path& file, const KinetoOptions& options);

}  // namespace mgsim::profile
