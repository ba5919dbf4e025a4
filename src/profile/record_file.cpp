// The record file of the CUPTI injection library (docs/profiling.md):
//   # mgsim-cupti-records 2              (version 1: no kernel names)
//   I <key> <value>                                     facts (device names, driver, CUDA)
//   A <correlation> <device> <stream> <start> <end> <what> [<kernel name>]   GPU work
//   L <correlation> <thread> <start>                    an API call
//   M <thread> <time> <name>                            an NVTX mark
// Fields are tab-separated, times integer ns.

#include <fmt/format.h>

#include <charconv>
#include <sstream>

#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/profile/records.hpp"

namespace mgsim::profile {
namespace {

constexpr std::string_view kHeader = "# mgsim-cupti-records ";

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t from = 0;
  while (true) {
    const std::size_t tab = line.find('\t', from);
    fields.push_back(line.substr(from, tab == std::string_view::npos ? std::string_view::npos : tab - from));
    if (tab == std::string_view::npos) return fields;
    from = tab + 1;
  }
}

template <typename T>
bool parse_int(std::string_view text, T& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

/// Parses one record line into `records`; returns false when it is malformed.
bool parse_line(std::string_view line, RecordSet& records) {
  const std::vector<std::string_view> f = split_tabs(line);
  if (f[0] == "A" && (f.size() == 7 || f.size() == 8)) {
    GpuActivity a;
    a.collective = f.size() == 8 && f[6] == "K" && is_collective_kernel(f[7]);
    return parse_int(f[1], a.correlation) && parse_int(f[2], a.device) && parse_int(f[3], a.stream) &&
           parse_int(f[4], a.start_ns) && parse_int(f[5], a.end_ns) && a.end_ns >= a.start_ns &&
           (records.activities.push_back(a), true);
  }
  if (f[0] == "L" && f.size() == 4) {
    LaunchCall c;
    return parse_int(f[1], c.correlation) && parse_int(f[2], c.thread) && parse_int(f[3], c.start_ns) &&
           (records.launches.push_back(c), true);
  }
  if (f[0] == "M" && f.size() == 4) {
    std::uint64_t thread = 0;
    std::int64_t time = 0;
    if (!parse_int(f[1], thread) || !parse_int(f[2], time)) return false;
    if (std::optional<Marker> marker = parse_marker_name(std::string(f[3]))) {
      marker->thread = thread;
      marker->time_ns = time;
      records.markers.push_back(*marker);
    }
    return true;
  }
  if (f[0] == "I" && f.size() == 3) {
    records.info[std::string(f[1])] = std::string(f[2]);
    return true;
  }
  return false;
}

}  // namespace

bool is_collective_kernel(std::string_view name) {
  if (name.starts_with("_Z")) {  // a mangled name: _Z<length><name>...
    name.remove_prefix(2);
    while (!name.empty() && name.front() >= '0' && name.front() <= '9') name.remove_prefix(1);
  }
  return name.starts_with("nccl");
}

std::optional<Marker> parse_marker_name(const std::string& name) {
  if (constexpr std::string_view comm = "mgsim:comm:"; name.starts_with(comm)) {
    Marker marker;
    marker.kind = MarkerKind::comm_launch;
    if (!parse_int(std::string_view(name).substr(comm.size()), marker.bytes) || marker.bytes <= 0) return std::nullopt;
    return marker;
  }
  static constexpr std::pair<std::string_view, MarkerKind> kPrefixes[] = {
      {"mgsim:iter:begin:", MarkerKind::iteration_begin},
      {"mgsim:iter:backward:", MarkerKind::backward_begin},
      {"mgsim:iter:end:", MarkerKind::iteration_end},
      {"mgsim:grad:", MarkerKind::grad_ready},
      {"mgsim:fwd:", MarkerKind::forward_done},
  };
  for (const auto& [prefix, kind] : kPrefixes) {
    if (!name.starts_with(prefix)) continue;
    Marker marker;
    marker.kind = kind;
    if (!parse_int(std::string_view(name).substr(prefix.size()), marker.index) || marker.index < 0) return std::nullopt;
    return marker;
  }
  return std::nullopt;
}

RecordSet read_record_file(std::istream& in, const std::string& source) {
  std::string line;
  if (!std::getline(in, line) || (line != fmt::format("{}1", kHeader) && line != fmt::format("{}2", kHeader))) {
    throw TraceError(fmt::format("{}: line 1: expected \"{}1\" or \"{}2\", got \"{}\"", source, kHeader, kHeader,
                                 line.substr(0, 120)));
  }
  RecordSet records;
  for (int number = 2; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    if (!parse_line(line, records)) {
      throw TraceError(fmt::format("{}: line {}: malformed record \"{}\"", source, number, line.substr(0, 120)));
    }
  }
  return records;
}

RecordSet read_record_file(const std::filesystem::path& file) {
  std::istringstream in(read_input_file(file, InputKind::trace));
  return read_record_file(in, file.string());
}

}  // namespace mgsim::profile
