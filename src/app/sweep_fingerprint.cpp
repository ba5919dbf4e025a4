#include "mgsim/app/sweep_fingerprint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <system_error>

#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/io/utf8.hpp"

namespace mgsim {
namespace {

constexpr std::string_view kMagic = "mgsim-sweep-fingerprint ";

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

}  // namespace

std::string sweep_fingerprint(const RunGrid& grid, const SweepShard& shard) {
  const Scenario& scenario = grid.scenario();
  std::string canon = fmt::format("shard {} {}\nconfig {}:{}\n", shard.index, shard.count, scenario.canonical.size(),
                                  scenario.canonical);
  for (const std::filesystem::path& input : scenario.inputs) {
    std::string bytes;
    if (input == "-") {  // standard input, read once: the trace as loaded (red team: any trace resumed any other)
      const auto t = std::find(scenario.traces.begin(), scenario.traces.end(), input) - scenario.traces.begin();
      // Hashed, never written: any provenance the writer takes (the trace's own runs nothing).
      bytes = format_trace_json(grid.workload(static_cast<std::size_t>(t)).trace, {{"kind", "measured"}});
    } else {
      bytes = read_input_file(input, InputKind::config);
    }
    canon += fmt::format("input {}:{}\n", bytes.size(), bytes);
  }
  const std::string hash = fmt::format("{:016x}", fnv1a(canon));
  return shard.count > 1 ? fmt::format("{} shard {}/{}", hash, shard.index, shard.count) : hash;
}

std::filesystem::path fingerprint_file(const std::filesystem::path& csv) { return csv.string() + ".fingerprint"; }

void check_fingerprint(const std::filesystem::path& csv, const std::string& fingerprint) {
  std::error_code error;
  if (std::filesystem::file_size(csv, error) == 0 || error) return;  // nothing to keep
  const std::filesystem::path sidecar = fingerprint_file(csv);
  std::string found;
  try {
    found = read_input_file(sidecar, InputKind::config);
  } catch (const Error&) {
    throw OutputError(fmt::format("{}: cannot resume: {} is missing or unreadable, so its rows cannot be checked "
                                  "against this sweep (remove the file or write elsewhere)",
                                  csv.string(), sidecar.string()));
  }
  const std::string expected = fmt::format("{}{}\n", kMagic, fingerprint);
  const auto shard_of = [](std::string_view line) {
    const std::size_t at = line.find(" shard ");
    return at == std::string_view::npos ? std::string("1/1") : std::string(line.substr(at + 7, line.find('\n') - at - 7));
  };
  if (found != expected && found.starts_with(kMagic) && shard_of(found) != shard_of(expected)) {
    throw OutputError(fmt::format("{}: cannot resume: its rows are shard {}'s, this sweep is shard {} (--shard "
                                  "differs): remove the file or write elsewhere",
                                  csv.string(), printable(shard_of(found), 40), shard_of(expected)));
  }
  if (found != expected) {
    throw OutputError(fmt::format("{}: cannot resume: its rows were computed from another configuration (a trace, "
                                  "network, curve or schedule parameter changed; {} differs): remove the file or "
                                  "write elsewhere",
                                  csv.string(), sidecar.string()));
  }
}

void write_fingerprint(const std::filesystem::path& csv, const std::string& fingerprint) {
  write_file_atomically(fingerprint_file(csv), fmt::format("{}{}\n", kMagic, fingerprint));
}

}  // namespace mgsim
