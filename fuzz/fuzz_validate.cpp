// libFuzzer target, structure-aware: a whole validation case (`mgsim
// validate`, docs/fidelity.md), mutated with the dictionary of config keys
// and values: its sources, config, fit paths and measured rows (the reader
// calibrate shares), calibrated and predicted end to end on a tiny two-layer
// trace, which replaces the trace of the config and of every row. A case
// past 64 GPUs, 2 fit paths, 8 rows or with variability (many iterations per
// prediction) is skipped, so no input can hang.
#include <nlohmann/json.hpp>

#include "fuzz_input.hpp"
#include "mgsim/app/validate.hpp"

namespace {

constexpr int kMostGpus = 64;
constexpr std::size_t kMostPaths = 2;
constexpr std::size_t kMostRows = 8;

/// Whether `value` holds a GPU count past kMostGpus (a number or an array of numbers).
bool too_many_gpus(const nlohmann::json& value) {
  if (value.is_number()) return !(value.get<double>() <= kMostGpus);
  if (!value.is_array()) return false;
  for (const nlohmann::json& count : value) {
    if (too_many_gpus(count)) return true;
  }
  return false;
}

/// The case with the tiny trace everywhere, or nothing when it is too big to time quickly.
std::optional<nlohmann::json> small_case(nlohmann::json document, const std::string& trace) {
  if (!document.is_object()) return std::nullopt;
  nlohmann::json& config = document["config"];
  if (!config.is_object() || config.contains("variability") || too_many_gpus(config.value("gpus", nlohmann::json()))) {
    return std::nullopt;
  }
  config["trace"] = trace;
  if (document.contains("fit") && document["fit"].is_array() && document["fit"].size() > kMostPaths) return std::nullopt;
  std::size_t rows = 0;
  for (const char* key : {"calibrate", "predict"}) {
    if (!document.contains(key) || !document[key].is_array()) continue;
    for (nlohmann::json& row : document[key]) {
      if (!row.is_object() || ++rows > kMostRows || too_many_gpus(row.value("gpus", nlohmann::json()))) {
        return std::nullopt;
      }
      row["trace"] = trace;
    }
  }
  return document;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nlohmann::json document;
  try {  // mgsim's parser, with its limits
    document = mgsim::parse_json_text(std::string(mgsim::fuzz::as_text(data, size)), "fuzz", mgsim::InputKind::config);
  } catch (const mgsim::Error&) {
    return 0;
  }
  if (mgsim::fuzz::deeper_than(document, 64)) return 0;
  const std::optional<nlohmann::json> small = small_case(std::move(document), mgsim::fuzz::tiny_trace());
  if (!small) return 0;
  const std::string text = small->dump();
  const auto file = mgsim::fuzz::scratch_folder() / "case.json";
  std::ofstream(file) << text;
  return mgsim::fuzz::refuse_or_accept([&] {
    (void)mgsim::format_validation(mgsim::validate(file), mgsim::ReportFormat::json);
  });
}
