// Raw output of mgsim-allreduce-bench (docs/profiling.md):
//   # key: value                      (device names, driver, CUDA, NCCL versions, command)
//   bytes<TAB>gpus<TAB>rep<TAB>seconds<TAB>kernel
#include "mgsim/profile/allreduce_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "mgsim/error.hpp"
#include "mgsim/median.hpp"
#include "mgsim/profile/layer_timing.hpp"
#include "text_lines.hpp"

namespace mgsim::profile {

BenchOutput read_bench_output(std::istream& in, const std::string& source) {
  BenchOutput output;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    const std::string_view view = trim(text);
    if (view.empty()) continue;
    if (view.front() == '#') {
      const std::size_t colon = view.find(':');
      if (colon != std::string_view::npos) {
        output.info[std::string(trim(view.substr(1, colon - 1)))] = std::string(trim(view.substr(colon + 1)));
      }
      continue;
    }
    const std::vector<std::string_view> words = split_words(view);
    BenchRepetition rep;
    const auto bytes = words.size() >= 4 ? to_int(words[0]) : std::nullopt;
    const auto gpus = words.size() >= 4 ? to_int(words[1]) : std::nullopt;
    const auto index = words.size() >= 4 ? to_int(words[2]) : std::nullopt;
    const auto seconds = words.size() >= 4 ? to_double(words[3]) : std::nullopt;
    if (!bytes || !gpus || !index || !seconds || *bytes < 1 || *gpus < 2 || !(*seconds > 0)) {
      throw CurveError(
          fmt::format("{}: line {}: expected \"bytes gpus repetition seconds [kernel]\" with bytes >= 1, "
                      "gpus >= 2, seconds > 0, got \"{}\"",
                      source, line, view));
    }
    rep.bytes = *bytes;
    rep.gpus = static_cast<int>(*gpus);
    rep.repetition = static_cast<int>(*index);
    rep.seconds = *seconds;
    if (words.size() >= 5) rep.kernel = std::string(words[4]);
    output.repetitions.push_back(rep);
  }
  if (output.repetitions.empty()) throw CurveError(fmt::format("{}: no timed repetitions", source));
  return output;
}

std::vector<CurveSample> summarize_bench(const BenchOutput& output) {
  std::map<std::pair<int, std::int64_t>, std::vector<double>> groups;
  for (const BenchRepetition& rep : output.repetitions) groups[{rep.gpus, rep.bytes}].push_back(rep.seconds);
  std::vector<CurveSample> points;
  for (const auto& [key, seconds] : groups) {
    const auto [low, high] = std::minmax_element(seconds.begin(), seconds.end());
    points.push_back({key.first, key.second, median(seconds), *high - *low});
  }
  return points;
}

}  // namespace mgsim::profile
