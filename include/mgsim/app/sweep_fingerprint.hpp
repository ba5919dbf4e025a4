#pragma once
// What makes a resumed sweep safe: a fingerprint of everything its rows
// depend on, derived, never listed: the config in canonical form (every key,
// keys sorted, numbers exact), the bytes of every file it read (traces,
// curves, selection curves, graphs) and the shard, kept next to the CSV
// in "<csv>.fingerprint". `--resume` keeps the finished rows only when the
// fingerprint of the file matches the sweep being run: a row computed with
// another network value or trace is never kept.

#include <filesystem>
#include <string>

#include "mgsim/app/run_grid.hpp"
#include "mgsim/app/sweep_runner.hpp"

namespace mgsim {

/// 16 hex digits: a 64-bit FNV-1a hash of the scenario's canonical config,
/// the contents of its inputs and the shard; then " shard i/n" when sharded,
/// so that a resume with another --shard says so.
std::string sweep_fingerprint(const RunGrid& grid, const SweepShard& shard);

/// "<csv>.fingerprint", the sidecar of a sweep's CSV.
std::filesystem::path fingerprint_file(const std::filesystem::path& csv);

/// Throws OutputError unless `csv` is missing, empty, or has a sidecar holding `fingerprint`.
void check_fingerprint(const std::filesystem::path& csv, const std::string& fingerprint);

/// Writes the sidecar of `csv` (atomically).
void write_fingerprint(const std::filesystem::path& csv, const std::string& fingerprint);

}  // namespace mgsim
