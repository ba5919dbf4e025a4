#pragma once
// What makes a resumed sweep safe: a fingerprint of everything its rows
// depend on (every trace's contents, networks, collectives, curves, GPU
// counts, schedules with their parameters, the shard), kept next to the CSV
// in "<csv>.fingerprint". `--resume` keeps the finished rows only when the
// fingerprint of the file matches the sweep being run: a row computed with
// another network value or trace is never kept.

#include <filesystem>
#include <string>

#include "mgsim/app/sweep.hpp"
#include "mgsim/app/sweep_runner.hpp"

namespace mgsim {

/// 16 hex digits: a 64-bit FNV-1a hash of the grid's full configuration,
/// numbers written exactly (hexadecimal floating point).
std::string sweep_fingerprint(const Sweep& sweep, const SweepShard& shard);

/// "<csv>.fingerprint", the sidecar of a sweep's CSV.
std::filesystem::path fingerprint_file(const std::filesystem::path& csv);

/// Throws OutputError unless `csv` is missing, empty, or has a sidecar holding `fingerprint`.
void check_fingerprint(const std::filesystem::path& csv, const std::string& fingerprint);

/// Writes the sidecar of `csv` (atomically).
void write_fingerprint(const std::filesystem::path& csv, const std::string& fingerprint);

}  // namespace mgsim
