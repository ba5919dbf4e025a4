#include "mgsim/app/calibrate.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <nlopt.hpp>

#include "mgsim/counted.hpp"
#include "mgsim/io/json_text.hpp"
#include "mgsim/io/config_parts.hpp"
#include "mgsim/io/json_reader.hpp"
#include "measurements.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/error.hpp"
#include "mgsim/app/run_grid.hpp"
#include "mgsim/app/sweep_runner.hpp"
#include "mgsim/io/scenario.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/iteration.hpp"
#include "mgsim/relative_error.hpp"

namespace mgsim {
namespace {

/// "schedules.2.cycle_time_ms" (or "schedules[2].cycle_time_ms", as error
/// messages write an index) -> {"schedules", "2", "cycle_time_ms"}, in `document`:
/// a key of one of its objects that holds dots or brackets (a PyTorch layer
/// name under layer_density, "features.0") is taken whole, the longest such
/// key first; past what the document holds, every dot separates two keys
/// and a bracketed number is an index.
/// `key` as an index into a list: digits without a leading zero ("0" aside),
/// as a JSON pointer writes one (red team: "01" was read as 1 by one step, refused by the next).
std::optional<std::size_t> list_index(std::string_view key) {
  const bool digits = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || (key.size() > 1 && key.front() == '0')) return std::nullopt;
  std::size_t index = 0;
  const auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), index);
  if (error != std::errc()) return std::nullopt;  // past any list
  return index;
}

/// The length of the index "[digits]" at the start of `rest`, where one is,
/// followed by the end, a dot or another bracket; 0 where none is.
std::size_t index_length(std::string_view rest) {
  if (!rest.starts_with('[')) return 0;
  const std::size_t close = rest.find(']');
  if (close == std::string_view::npos || !list_index(rest.substr(1, close - 1))) return 0;
  const bool ends = close + 1 == rest.size() || rest[close + 1] == '.' || rest[close + 1] == '[';
  return ends ? close + 1 : 0;
}

std::vector<std::string> keys_of(const nlohmann::json& document, const std::string& path) {
  std::vector<std::string> keys;
  const nlohmann::json* node = &document;
  for (std::size_t at = 0;;) {
    const std::string_view rest = std::string_view(path).substr(at);
    const std::size_t index = at > 0 ? index_length(rest) : 0;  // "[2]" after a key
    std::size_t size = 0;  // of the key: up to a dot or an index, else the longest key of the node there
    while (index == 0 && size < rest.size() && rest[size] != '.' && (size == 0 || index_length(rest.substr(size)) == 0)) {
      ++size;
    }
    std::string_view key = index > 0 ? rest.substr(1, index - 2) : rest.substr(0, size);
    std::size_t used = index > 0 ? index : size;
    if (index == 0 && node != nullptr && node->is_object()) {  // each key compared once: linear in the path (red team)
      for (const auto& [name, value] : node->items()) {
        const bool whole = rest.starts_with(name) && (name.size() == rest.size() || rest[name.size()] == '.' ||
                                                      index_length(rest.substr(name.size())) > 0);
        if (whole && name.size() > used) key = rest.substr(0, used = name.size());
      }
    }
    keys.emplace_back(key);
    const nlohmann::json* next = nullptr;
    if (node != nullptr && node->is_object() && node->contains(key)) next = &node->at(std::string(key));
    const std::optional<std::size_t> element = list_index(key);
    if (node != nullptr && node->is_array() && element && *element < node->size()) next = &node->at(*element);
    node = next;
    at += used;
    if (at >= path.size()) break;
    if (path[at] == '.') ++at;  // an index "[" starts the next key as it is
  }
  return keys;
}

nlohmann::json::json_pointer pointer_of(const nlohmann::json& document, const std::string& path) {
  nlohmann::json::json_pointer pointer;
  for (const std::string& key : keys_of(document, path)) pointer /= key;  // escapes "~" and "/": "a/b" is one key
  return pointer;
}

/// `value` with every whole number written as an integer: 8.0 and 8 are one value (red team: a trace copy
/// writing batch_size 8.0 counted as another trace).
nlohmann::json canonical(nlohmann::json value) {
  if (value.is_number_float()) {
    const double x = value.get<double>();
    if (std::floor(x) == x && std::abs(x) < 0x1p62) return static_cast<std::int64_t>(x);
  }
  if (value.is_structured()) {
    for (auto& element : value) element = canonical(std::move(element));
  }
  return value;
}

/// Whether `document` has a value at `pointer` (an array index past any
/// number, "99999999999999999999", is none).
bool holds(const nlohmann::json& document, const nlohmann::json::json_pointer& pointer) {
  try {
    return document.contains(pointer);
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

/// "X is a list of N entries: expected an index 0..N-1, got 'KEY'".
std::string not_an_index(std::string_view named, const nlohmann::json& list, std::string_view key) {
  return fmt::format("{} is a list of {}: expected an index{}, got '{}'", named,
                     counted(std::ssize(list), "entry", "entries"),
                     list.empty() ? "" : fmt::format(" 0..{}", list.size() - 1), printable(key));
}

/// Why `document`, read at `at`, holds nothing at `keys` (as keys_of splits
/// a path): the first key missing and what is there instead, for a message.
std::string why_missing(const nlohmann::json& document, const std::vector<std::string>& keys, JsonWhere at) {
  const nlohmann::json* node = &document;
  for (const std::string& key : keys) {
    const std::string here = at.path.empty() ? "the top level" : at.path;
    if (node->is_object()) {
      if (node->contains(key)) {
        node = &node->at(key);
        at = at.key(key);
        continue;
      }
      const std::size_t open = key.find('[');  // red team: gpus[-1] and gpus[01] were keys the top level lacks
      if (open != std::string::npos && open > 0 && key.back() == ']' && node->contains(key.substr(0, open))) {
        const nlohmann::json& inside = node->at(key.substr(0, open));
        const std::string named = at.key(key.substr(0, open)).path;
        const std::string_view index = std::string_view(key).substr(open + 1, key.size() - open - 2);
        if (inside.is_array()) return not_an_index(named, inside, index);
        return fmt::format("{} is not a list: it has no entry [{}]", named, printable(index));
      }
      if (list_index(key)) return fmt::format("{} is not a list: it has no entry [{}], nor a key '{}'", here, key, key);
      const bool odd = key.empty() || key.find_first_of("[]") != std::string::npos;
      return fmt::format("{} has no key '{}'{}", here, printable(key),
                         odd ? " (a path is keys joined by dots, a list's entry [i]: schedules[0].cycle_time_ms)" : "");
    }
    if (!node->is_array()) {
      return fmt::format("{} is {}, with nothing under it", here, node->is_string() ? "text" : node->dump());
    }
    const std::optional<std::size_t> element = list_index(key);
    if (!element || *element >= node->size()) return not_an_index(here, *node, key);
    node = &node->at(*element);
    at = at.index(*element);
  }
  return "no such key";
}

/// `path` (as keys_of splits it in `document`) below `at`, as messages name
/// keys: schedules[0].cycle_time_ms, however it was written.
JsonWhere where_of(JsonWhere at, const nlohmann::json& document, const std::string& path) {
  const nlohmann::json* node = &document;
  for (const std::string& key : keys_of(document, path)) {
    const std::optional<std::size_t> element = node != nullptr && node->is_array() ? list_index(key) : std::nullopt;
    if (element) {
      at = at.index(*element);
      node = *element < node->size() ? &node->at(*element) : nullptr;
    } else {
      at = at.key(key);
      node = node != nullptr && node->is_object() && node->contains(key) ? &node->at(key) : nullptr;
    }
  }
  return at;
}

/// Refuses a --choose key that is not a text value of `document` (read from
/// `file`) nor a new key of one of its objects (an array index past its
/// end, a key below a number or a text), and a new key given a number
/// `value`, which the config would take as text.
void check_text_key(const nlohmann::json& document, const std::string& path, const std::string& value,
                    const std::filesystem::path& file) {
  const nlohmann::json::json_pointer pointer = pointer_of(document, path);
  const JsonWhere where{file.string(), path, InputKind::config};
  constexpr std::string_view kWanted = "a text value that --choose can set (such as collective or message_unit)";
  std::string lower = path;  // red team: "Trace" was told to be trace, then trace refused
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto names = [&](std::string_view key) {
    return lower == key || (lower.starts_with(key) && (lower[key.size()] == '.' || lower[key.size()] == '['));
  };
  if (names("trace") || names("curves")) {  // red team: --choose trace=... ran; curves[0] was an unknown key
    throw ConfigError(fmt::format("{}: expected a key of the model, got a measured input: each measurement names "
                                  "the trace it ran (and curves are measured times), so --choose cannot pick one by "
                                  "how well it fits",
                                  path));
  }
  if (holds(document, pointer)) {
    const nlohmann::json& given = document.at(pointer);
    if (given.is_object() && given.contains("name") && given["name"].is_string()) {  // red team: told to choose it
      where.fail(fmt::format("expected {}, got an object whose text is at {}.name: choose that (its other keys are "
                             "its parameters, which every candidate must take)", kWanted, path));
    }
    if (!given.is_string()) where.expected(kWanted, given);
    return;
  }
  const nlohmann::json::json_pointer parent = pointer.parent_pointer();
  if (!holds(document, parent) || !document.at(parent).is_object()) {
    where.fail(fmt::format("expected {}, got no such key: {}", kWanted, why_missing(document, keys_of(document, path), {})));
  }
  if (nlohmann::json::parse(value, nullptr, false).is_number()) {  // red team: gpus_per_node=1 was read as "1"
    where.fail(fmt::format("expected {}, got the number {}: compare numbers with a sweep, or fit one with --fit",
                           kWanted, value));
  }
}

/// The scenario a calibration predicts with: one trace, node size, collective and network.
Scenario base_scenario(const nlohmann::json& document, const std::filesystem::path& file, std::string_view at) {
  Scenario scenario = read_scenario(document, file, at);
  require_one_of_each(scenario, "mgsim calibrate");
  return scenario;
}

/// The index of the base config's schedule entry named `name`, or -1.
int config_schedule_index(const nlohmann::json& config, const std::string& name, const JsonWhere& where) {
  if (!config.contains("schedules") || !config["schedules"].is_array()) return -1;
  const nlohmann::json& schedules = config["schedules"];
  std::vector<std::size_t> named;  // entries of that name with parameters
  for (std::size_t i = 0; i < schedules.size(); ++i) {
    const nlohmann::json& entry = schedules[i];
    if (entry == name) return static_cast<int>(i);  // the very entry: the schedule at its defaults
    if (entry.is_object() && entry.value("name", "") == name) named.push_back(i);
  }
  const auto differs = [&](std::size_t i) { return schedules[i] != schedules[named.front()]; };
  if (std::any_of(named.begin(), named.end(), differs)) {  // the same entry twice is one schedule
    where.fail(fmt::format("'{}' names {} different entries of the config's schedules ({}): give the row the entry it ran "
                           "(an object with its parameters)",
                           printable(name), named.size(), fmt::join(named, ", ")));
  }
  if (named.empty()) return -1;
  for (const auto& [key, value] : schedules[named.front()].items()) {
    if (value.is_array() && value.size() > 1) {  // a list makes several runs (sweeps.md): which one the row ran is not said
      where.fail(fmt::format("'{}' names the config's schedules[{}], whose {} lists several values, one run each: give "
                             "the row the entry it ran (an object with its parameters)",
                             printable(name), named.front(), printable(key)));
    }
  }
  return static_cast<int>(named.front());
}

}  // namespace

std::string row_label(const Measurement& m) {
  return m.collective ? run_label(m.schedule_label, m.collective->label()) : m.schedule_label;
}

MeasuredRun run_of(const Measurement& m, const std::string& config_collective) {
  return {m.trace_content, m.gpus, run_label(m.schedule_label, m.collective ? m.collective->label() : config_collective),
          m.metric == MeasuredMetric::comm_time};
}

/// Marks the schedule label of each row whose run a fitted key moves apart
/// from a row that writes the same values out: the config's schedule entry
/// it names (`schedules.N.*`, marked by the parameter), the config's
/// collective when it has none of its own (`collective.*`). Such a row is
/// another run than one giving the start value inline (red team: refused as
/// its repeat), and its label does not show the value it runs. The keys in
/// order, whatever the order of "fit" and the entry's index (a copy of a case
/// reads alike).
std::string choice_label(const std::vector<std::pair<std::string, std::string>>& setting) {
  std::vector<std::string> values;
  for (const auto& [key, value] : setting) values.push_back(fmt::format("{}={}", printable(key), printable(value)));
  return fmt::format("{}", fmt::join(values, " "));
}

std::string dotted_path(const nlohmann::json& document, const std::string& path) {
  return fmt::format("{}", fmt::join(keys_of(document, path), "."));
}

void mark_fitted(std::vector<Measurement>& rows, const std::vector<std::string>& paths) {
  for (Measurement& m : rows) {
    std::vector<std::string> keys;
    const std::string entry = fmt::format("schedules.{}.", m.config_schedule);
    for (const std::string& path : paths) {
      if (m.config_schedule >= 0 && path.starts_with(entry)) keys.push_back(path.substr(entry.size()));
      if (!m.collective && path.starts_with("collective.")) keys.push_back(path);
    }
    std::sort(keys.begin(), keys.end());
    if (!keys.empty()) m.schedule_label += fmt::format(" [fitted {}]", fmt::join(keys, ","));
  }
}

std::string_view metric_key(MeasuredMetric metric) {
  switch (metric) {
    case MeasuredMetric::throughput:
      return "throughput_samples_per_s";
    case MeasuredMetric::comm_time:
      return "comm_time_s";
    case MeasuredMetric::iteration_time:
      break;
  }
  return "iteration_time_s";
}

std::vector<Measurement> read_measurements(const nlohmann::json& rows, const JsonWhere& where,
                                           const std::filesystem::path& folder, const nlohmann::json& base_config,
                                           const JsonWhere& config_where, const std::filesystem::path& base_trace) {
  if (!rows.is_array()) where.expected("an array of measurements", rows);
  std::vector<Measurement> measurements;
  std::map<int, std::string> config_labels;  // each config entry read once, whatever number of rows name it
  std::map<std::filesystem::path, std::string> contents;  // each trace read once
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const JsonWhere at = where.index(i);
    JsonReader in(rows[i], at);
    Measurement m;
    m.trace = in.has("trace") ? read_file_name(in.required("trace"), at.key("trace"), folder, true) : base_trace;
    if (m.trace == "-") {  // each held-out fit reads the traces again
      if (in.has("trace")) at.key("trace").fail("standard input can be read once: expected a trace file");
      at.fail("its trace is the config's \"trace\", standard input, which can be read once: give the config a trace "
              "file");
    }
    if (!contents.contains(m.trace)) {
      const JsonWhere trace_where = in.has("trace") ? at.key("trace") : config_where.key("trace");
      // Its content, not its bytes: a copy written with other spacing, key order or number spelling (0.10,
      // 1e-1) is the same trace (red team: a re-serialized copy counted as another run).
      const std::string text = trace_where.reading_file(InputKind::trace, [&] {
        nlohmann::json trace =
            parse_json_text(read_input_file(m.trace, InputKind::trace), m.trace.string(), InputKind::trace);
        if (trace.is_object()) trace.erase("provenance");  // where it came from runs nothing (red team)
        return canonical(trace).dump();
      });
      contents[m.trace] = fmt::format("{:016x}/{}", std::hash<std::string>{}(text), text.size());
    }
    m.trace_content = contents.at(m.trace);
    m.gpus = static_cast<int>(in.integer("gpus", 1, kMaxGpus));
    if (in.has("source")) m.source = in.text("source", kMaxProseBytes);  // free text: a citation
    const nlohmann::json& schedule = in.required("schedule");
    m.config_schedule =
        schedule.is_string() ? config_schedule_index(base_config, schedule.get<std::string>(), at.key("schedule")) : -1;
    m.schedule = schedule;
    std::vector<std::filesystem::path> inputs;
    if (m.config_schedule >= 0 && !config_labels.contains(m.config_schedule)) {
      const auto entry = static_cast<std::size_t>(m.config_schedule);
      const std::filesystem::path config_folder = std::filesystem::path(config_where.file).parent_path();
      config_labels[m.config_schedule] =
          read_schedule(base_config["schedules"][entry], config_where.key("schedules").index(entry), config_folder, inputs)
              .label();
    }
    m.schedule_label = m.config_schedule >= 0 ? config_labels.at(m.config_schedule)
                                              : read_schedule(schedule, at.key("schedule"), folder, inputs).label();
    if (in.has("collective")) m.collective = read_collective(in.required("collective"), at.key("collective"));
    int given = 0;
    for (const MeasuredMetric metric :
         {MeasuredMetric::iteration_time, MeasuredMetric::throughput, MeasuredMetric::comm_time}) {
      if (!in.has(metric_key(metric))) continue;
      ++given;
      m.metric = metric;
      const bool rate = metric == MeasuredMetric::throughput;
      m.value = in.number(metric_key(metric), rate ? kMinMeasuredRate : kMinMeasuredSeconds, true,
                          rate ? kMaxMeasuredRate : kMaxComputeSeconds);
    }
    if (given != 1) {
      at.fail("expected exactly one of iteration_time_s, throughput_samples_per_s and comm_time_s");
    }
    if (m.metric == MeasuredMetric::comm_time && m.gpus == 1) {
      at.key("comm_time_s").fail("one GPU communicates nothing: expected a communication time of 2 GPUs or more");
    }
    in.reject_unknown();
    measurements.push_back(std::move(m));
  }
  return measurements;
}

namespace {

/// The collective a measurement runs: its own (when the config gives what
/// that model needs: a network, or measured curves), else the config's.
std::vector<CollectiveSpec> collectives_of(const Scenario& scenario, const Measurement& m) {
  if (!m.collective) return scenario.collectives;
  const bool curve = find_collective(m.collective->name).needs_curve;
  if (curve ? scenario.curve.empty() : scenario.networks.empty()) {
    throw ConfigError(fmt::format("collective '{}' needs {}, which the config does not give", m.collective->label(),
                                  curve ? "measured curves" : "a network"));
  }
  for (const NamedNetwork& entry : scenario.networks) {  // red team: found only when the run was priced
    try {
      find_collective(m.collective->name).check_network(entry.network);
    } catch (const Error& e) {
      const std::string named = scenario.networks.size() > 1 ? fmt::format(" '{}'", printable(entry.label)) : "";
      throw ConfigError(fmt::format("the config's network{}: {}", named, e.what()));
    }
  }
  return {*m.collective};
}

std::vector<Measurement> load_measurements(const std::filesystem::path& file, const nlohmann::json& base_config,
                                           const JsonWhere& config_where, const std::filesystem::path& base_trace) {
  const nlohmann::json document = parse_json_file(file, InputKind::config);
  JsonReader top(document, {file.string(), "", InputKind::config});
  const JsonWhere where = top.where().key("measurements");
  std::vector<Measurement> measurements = read_measurements(top.required("measurements"), where, file.parent_path(),
                                                            base_config, config_where, base_trace);
  top.reject_unknown();
  return measurements;
}

}  // namespace

void WorkBudget::spend(double steps) {
  const std::lock_guard lock(mutex_);
  if (!refused_ && spent_ + steps <= max_steps_) {
    spent_ += steps;
    return;
  }
  if (!refused_) refused_ = steps;
  fail();
}

double WorkBudget::spent() const {
  const std::lock_guard lock(mutex_);
  return spent_;
}

double WorkBudget::left() const {
  const std::lock_guard lock(mutex_);
  return std::max(0.0, max_steps_ - spent_);
}

void WorkBudget::check() const {
  const std::lock_guard lock(mutex_);
  if (refused_) fail();
}

void WorkBudget::project(double before, double mean, std::size_t count, std::size_t done, std::string_view what) {
  const std::lock_guard lock(mutex_);
  const double total = before + mean * static_cast<double>(count);
  if (total <= max_steps_) return;
  const double more = std::max(0.0, total - spent_);
  refused_ = more;
  const auto left = static_cast<std::int64_t>(count - done);  // red team: "its 1 remaining --choose candidates take"
  throw WorkError(fmt::format("the calibration has simulated about {:.2g} steps and its {} {} about {:.2g} more "
                              "(projected from the {} done), past --max-work {:.2g}: give a larger --max-work, or "
                              "fewer measurements, --fit values or --choose candidates",
                              spent_, counted(left, fmt::format("remaining {}", what)), left == 1 ? "takes" : "take",
                              more, done, max_steps_));
}

void WorkBudget::fail() const {
  throw WorkError(fmt::format("the calibration has simulated about {:.2g} steps and its next prediction takes {:.2g}, "
                              "past --max-work {:.2g} (every fit together, the held-out ones and each --choose "
                              "candidate included): give a larger --max-work, or fewer measurements, GPUs, "
                              "iterations or layers",
                              spent_, *refused_, max_steps_));
}

Calibration Calibration::from_files(const std::filesystem::path& config, const std::filesystem::path& measurements,
                                    std::vector<std::string> fit_paths,
                                    const std::vector<std::pair<std::string, std::string>>& setting,
                                    std::shared_ptr<WorkBudget> budget) {
  // Read once ("-" is standard input), parsed twice: checked, and in key order for the fitted copy.
  std::string text = read_input_file(config, InputKind::config);
  nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(text, nullptr, false);
  nlohmann::json document = parse_json_text(std::move(text), config.string(), InputKind::config);
  for (std::string& path : fit_paths) path = dotted_path(document, path);
  std::vector<nlohmann::json::json_pointer> chosen_keys;
  for (const auto& [path, value] : setting) {  // red team: schedules[2] and schedules.2 were two keys
    const nlohmann::json::json_pointer pointer = pointer_of(document, path);
    if (std::find(chosen_keys.begin(), chosen_keys.end(), pointer) != chosen_keys.end()) {
      throw ConfigError(fmt::format("--choose: {} given twice: give its values once ({}=a,b,...)", printable(path),
                                    printable(path)));
    }
    chosen_keys.push_back(pointer);
  }
  if (!setting.empty()) base_scenario(document, config, "");  // the config's own errors, told as its own
  const nlohmann::json as_written = setting.empty() ? nlohmann::json() : document;
  for (const auto& [path, value] : setting) {
    try {
      check_text_key(document, path, value, config);
    } catch (const Error& e) {  // red team: a number's key was refused without saying --choose
      throw ConfigError(fmt::format("--choose {}={}: {}", printable(path), printable(value), e.what()));
    }
    const nlohmann::json::json_pointer pointer = pointer_of(document, path);
    document[pointer] = value;
    ordered[nlohmann::ordered_json::json_pointer(pointer.to_string())] = value;
  }
  const std::filesystem::path base_trace = [&] {
    try {
      return base_scenario(document, config, "").traces.front();
    } catch (const Error& e) {  // red team: a --choose value the config reader refuses was the file's fault
      if (setting.empty()) throw;
      for (std::size_t i = 0; i < setting.size(); ++i) {  // the one value at fault, where one is (red team)
        nlohmann::json alone = as_written;
        alone[pointer_of(alone, setting[i].first)] = setting[i].second;
        try {
          base_scenario(alone, config, "");
        } catch (const Error& fault) {
          throw ConfigError(fmt::format("--choose {}: {}", choice_label({setting[i]}), fault.what()));
        }
      }
      throw ConfigError(fmt::format("--choose {}: {}", choice_label(setting), e.what()));
    }
  }();
  std::vector<Measurement> rows =
      load_measurements(measurements, document, {config.string(), "", InputKind::config}, base_trace);
  mark_fitted(rows, fit_paths);  // red team: a row of the fitted entry and one of its start value, once "again"
  return Calibration(config, std::move(ordered), "", measurements, "measurements", std::move(rows),
                     std::move(fit_paths), "", std::move(budget));
}

JsonWhere Calibration::config_where(std::string_view key) const {
  return JsonWhere{config_file_.string(), config_at_, InputKind::config}.key(key);
}

JsonWhere Calibration::fit_where(std::size_t i) const {
  if (fit_key_.empty()) return path_where(i);
  return JsonWhere{config_file_.string(), "", InputKind::config}.key(fit_key_).index(i);  // red team: named --fit
}

JsonWhere Calibration::path_where(std::size_t i) const {
  return where_of({config_file_.string(), config_at_, InputKind::config}, base_, paths_[i]);
}

std::string Calibration::fit_named(std::size_t i, std::string_view here) const {
  return fit_key_.empty() ? std::string(here) : path_where(i).path;
}

std::string Calibration::fit_option() const { return fit_key_.empty() ? "--fit" : fit_key_; }

Calibration::Calibration(const std::filesystem::path& config_file, nlohmann::ordered_json config,
                         std::string config_at, const std::filesystem::path& rows_file, std::string rows_key,
                         std::vector<Measurement> measurements, std::vector<std::string> fit_paths,
                         std::string fit_key, std::shared_ptr<WorkBudget> budget)
    : config_file_(config_file),
      config_at_(std::move(config_at)),
      measurements_file_(rows_file),
      rows_key_(std::move(rows_key)),
      fit_key_(std::move(fit_key)),
      ordered_base_(std::move(config)),
      base_(ordered_base_),
      paths_(std::move(fit_paths)),
      measurements_(std::move(measurements)),
      budget_(budget ? std::move(budget) : std::make_shared<WorkBudget>(kDefaultMaxWork)) {
  const Scenario base = base_scenario(base_, config_file_, config_at_);
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    const std::string& path = paths_[i];
    const JsonWhere where = fit_where(i);
    if (path.empty()) {
      throw ConfigError(fmt::format("{}: expected dotted paths to fit such as network.alpha_us, got an empty one",
                                    config_file_.string()));
    }
    const auto before = paths_.begin() + static_cast<std::ptrdiff_t>(i);
    if (const auto earlier = std::find(paths_.begin(), before, path); earlier != before) {
      where.fail(fit_key_.empty() ? std::string("given twice among the values to fit")
                                  : fmt::format("{} given twice among the values to fit, as {}[{}]",
                                                fit_named(i, ""), fit_key_, earlier - paths_.begin()));
    }
    const auto pointer = pointer_of(base_, path);
    if (!holds(base_, pointer)) {
      const std::vector<std::string> keys = keys_of(base_, path);
      const bool addable = holds(base_, pointer.parent_pointer()) && base_.at(pointer.parent_pointer()).is_object() &&
                           !list_index(keys.back()) && !keys.back().empty() &&
                           keys.back().find_first_of("[]") == std::string::npos;
      const std::string why = why_missing(base_, keys, {config_file_.string(), config_at_, InputKind::config});
      where.fail(fmt::format("expected a number at {}, got no such key: {}{}", fit_named(i, "this --fit path"), why,
                             addable ? ": give it in the config, with the value to start from (0 for a term that is off)"
                                     : ""));
    }
    const nlohmann::json& value = base_.at(pointer);
    if (!value.is_number() || value.get<double>() < 0) where.expected(fmt::format("a number >= 0 at {}", fit_named(i, "this --fit path")), value);
    const auto refused = std::floor(value.get<double>()) == value.get<double>() ? fraction_refusal(path) : std::nullopt;
    if (refused) {  // red team: a gamma 0 that nccl pins was said to take whole numbers only
      where.fail(fmt::format("expected a value the fit can move at {}, got {}: {}", fit_named(i, "this --fit path"),
                             value.dump(), *refused));
    }
    initial_.push_back(value.get<double>());
  }
  if (measurements_.size() < paths_.size()) {
    JsonWhere{measurements_file_.string(), rows_key_, InputKind::config}.fail(fmt::format(
        "expected at least {} (one per {} path), got {}", counted(std::ssize(paths_), "measurement"), fit_option(),
        measurements_.size()));
  }
  // The config's trace, read whether or not a row runs it (no row runs standard input: read_measurements).
  if (base.trace_labels.front() != "-") {
    base.where("trace").reading_file(InputKind::trace, [&] { workloads_.get(base.traces.front()); });
    const RunGrid whole(base, workloads_);  // the config checked as `run` checks it, schedules no row runs too
  }
  for (std::size_t i = 0; i < measurements_.size(); ++i) {
    try {
      workloads_.get(measurements_[i].trace);
    } catch (const Error& error) {
      JsonWhere{measurements_file_.string(), fmt::format("{}[{}]", rows_key_, i), InputKind::config}.fail(
          fmt::format("its trace: {}", error.what()));
    }
  }
  if (!paths_.empty()) refuse_repeated_runs(base.collectives.front().label());
  for (std::size_t i = 0; i < measurements_.size(); ++i) {
    try {
      initial_prediction_.push_back(predict_one(base_, base, measurements_[i]));
    } catch (const WorkError&) {
      throw;
    } catch (const Error& error) {
      JsonWhere{measurements_file_.string(), fmt::format("{}[{}]", rows_key_, i), InputKind::config}.fail(
          fmt::format("the config cannot run {} GPUs with schedule '{}': {}", measurements_[i].gpus,
                      row_label(measurements_[i]), error.what()));
    }
  }
  choose_scales(initial_prediction_);
  check_dependence(initial_prediction_);
  for (std::size_t i = 0; i < paths_.size(); ++i) bounds_.push_back(find_bounds(i));
}

void Calibration::refuse_repeated_runs(const std::string& config_collective) const {
  std::map<MeasuredRun, std::size_t> first;
  for (std::size_t i = 0; i < measurements_.size(); ++i) {
    const auto [earlier, added] = first.emplace(run_of(measurements_[i], config_collective), i);
    if (added) continue;
    JsonWhere{measurements_file_.string(), fmt::format("{}[{}]", rows_key_, i), InputKind::config}.fail(fmt::format(
        "the run of {}[{}] again (trace, GPUs, schedule, collective and what it times): held out, either would be "
        "predicted by a fit of its twin; give each measured run once (the mean of repeated measurements)",
        rows_key_, earlier->second));
  }
}

std::optional<std::string> Calibration::refusal(const std::string& path, double value) const {
  nlohmann::json document = base_;
  document[pointer_of(base_, path)] = value;
  try {
    const Scenario scenario = read_scenario(document, config_file_, config_at_);
    for (std::size_t i = 0; i < measurements_.size(); ++i) {  // red team: a row's nccl pinned gamma at 0 silently
      try {
        if (measurements_[i].collective) collectives_of(scenario, measurements_[i]);
      } catch (const Error& error) {
        return fmt::format("{}: {}[{}]: {}", measurements_file_.string(), rows_key_, i, error.what());
      }
    }
    return std::nullopt;
  } catch (const Error& error) {
    return error.what();
  }
}

std::optional<std::string> Calibration::fraction_refusal(const std::string& path) const {
  // A reader of whole numbers may take 4.0 for 4 but never 4.001 or 3.5;
  // one of these is in range for any key that takes fractions.
  const double value = base_.at(pointer_of(base_, path)).get<double>();
  if (refusal(path, value)) return std::nullopt;  // the start itself: said where its rows are priced
  if (value >= 0x1p52) {  // red team: 2^53 + 0.001 is 2^53, which a whole-number key takes
    return "at or past 2^52 no double near it holds a fraction: give a start below it";
  }
  std::optional<std::string> first;
  for (const double offset : {1e-3, -1e-3, 0.5, -0.5}) {
    if (value + offset < 0 || std::floor(value + offset) == value + offset) continue;  // rounded to a whole number
    std::optional<std::string> refused = refusal(path, value + offset);
    if (!refused) return std::nullopt;
    if (!first) first = fmt::format("{} cannot run here: {}", value + offset, *refused);
  }
  return first;
}

ValueBounds Calibration::find_bounds(std::size_t i) const {
  const auto accepted = [&](double value) { return accepts(paths_[i], value); };
  // Bisection in log space between an accepted value (the start, or for a
  // start of 0 its scale) and the extreme doubles: 64 halvings of ~709
  // leave the bound to a relative 4e-17.
  const double inside = initial_[i] > 0 ? initial_[i] : scale_[i];
  if (!accepted(inside)) return {initial_[i], initial_[i]};
  const auto edge = [&](double extreme) {
    double in = std::log(inside), out = std::log(extreme);
    for (int step = 0; step < 64; ++step) {
      const double mid = (in + out) / 2;
      (accepted(std::exp(mid)) ? in : out) = mid;
    }
    return std::exp(in);
  };
  ValueBounds bounds;
  bounds.lower = accepted(0.0) ? 0.0 : edge(std::numeric_limits<double>::min());
  bounds.upper = accepted(std::numeric_limits<double>::max()) ? std::numeric_limits<double>::infinity()
                                                                : edge(std::numeric_limits<double>::max());
  // exp(log(x)) may land a rounding off x: a start on its bound stays inside.
  bounds.lower = std::min(bounds.lower, inside);
  bounds.upper = std::max(bounds.upper, inside);
  return bounds;
}

nlohmann::json Calibration::with_values(std::span<const double> values) const {
  nlohmann::json document = base_;
  for (std::size_t i = 0; i < paths_.size(); ++i) document[pointer_of(base_, paths_[i])] = values[i];
  return document;
}

double Calibration::predict_one(const nlohmann::json& document, const Scenario& scenario,
                                const Measurement& m) const {
  const bool from_config = m.config_schedule >= 0;
  const nlohmann::json& entry =
      from_config ? document.at("schedules").at(static_cast<std::size_t>(m.config_schedule)) : m.schedule;
  const JsonWhere where{(from_config ? config_file_ : measurements_file_).string(), "schedule", InputKind::config};
  Scenario point = scenario;
  point.traces = {m.trace};
  point.trace_labels = {m.trace.string()};
  point.gpus = {m.gpus};
  point.gpus_origin = "gpus";
  point.collectives = collectives_of(scenario, m);
  point.schedules = {read_schedule(entry, where, std::filesystem::path(where.file).parent_path(), point.inputs)};
  point.schedules.front().unit = scenario.message_unit;
  const RunGrid grid(std::move(point), workloads_);
  const double steps = grid.estimate_steps(0);
  budget_->spend(steps);
  charged_ += steps;
  const RunMetrics metrics = grid.row(0).metrics;
  switch (m.metric) {
    case MeasuredMetric::throughput:
      return metrics.mean_throughput();
    case MeasuredMetric::comm_time:
      return metrics.comm_s();
    case MeasuredMetric::iteration_time:
      break;
  }
  return to_seconds(metrics.mean_iteration);
}

std::vector<double> Calibration::predict_document(const nlohmann::json& document) const {
  const Scenario scenario = base_scenario(document, config_file_, config_at_);
  std::vector<double> predicted;
  for (const Measurement& m : measurements_) predicted.push_back(predict_one(document, scenario, m));
  return predicted;
}

std::vector<double> Calibration::predict(std::span<const double> values) const {
  return predict_document(with_values(values));
}

std::optional<std::vector<double>> Calibration::predict_if_runs(std::span<const double> values) const {
  try {
    return predict(values);
  } catch (const WorkError&) {
    throw;
  } catch (const Error&) {
    return std::nullopt;
  }
}

void Calibration::choose_scales(const std::vector<double>& base_prediction) {
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    scale_.push_back(initial_[i] > 0 ? initial_[i] : 1.0);
    bool refused = false;  // a smaller power of ten the config reader refused
    for (int exponent = static_cast<int>(std::log10(kSmallestScale)); exponent <= 6; ++exponent) {
      std::vector<double> values = initial_;
      values[i] = std::pow(10.0, exponent);
      const std::optional<std::vector<double>> runs = predict_if_runs(values);
      if (!runs) {
        refused = true;
        continue;
      }
      const std::vector<double>& predicted = *runs;
      double moved = 0.0;  // the largest relative move of a prediction
      for (std::size_t m = 0; m < predicted.size(); ++m) {
        moved = std::max(moved, std::abs(predicted[m] - base_prediction[m]) / base_prediction[m]);
      }
      if (moved < 1e-3) continue;
      if (initial_[i] == 0 && refused && moved > 0.5) {
        // A continuous value moves the predictions little at its first
        // accepted power of ten; this one turns something on at any value
        // above 0 (0: an input pipeline that never binds), so no search from 0 finds it.
        fit_where(i).fail(fmt::format(
            "0 turns {} off, and the smallest value the config takes ({:g}) moves a prediction by {:.0f}%: "
            "start the fit from a value near the answer (a measured one, or a guess) instead of 0",
            fit_named(i, "this value"), values[i], moved * 100));
      }
      // A start so small that 100 times it moves no prediction (1e-9 s of
      // host time where milliseconds matter) counts as 0: from it the search
      // would crawl. Otherwise the start is the unit (a cycle time's narrow
      // basins want a box on the start's scale).
      if (values[i] > kNegligibleStart * initial_[i]) scale_.back() = values[i];
      break;
    }
  }
}

void Calibration::check_dependence(const std::vector<double>& base_prediction) const {
  // Several factors, as a step-shaped response (a cycle time) is flat near its start.
  constexpr double kFactors[] = {1.5, 0.5, 4.0, 0.1, 16.0};
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    const double unit = scale_[i];
    const auto moves = [&](double factor) {
      std::vector<double> values = initial_;
      values[i] = factor * unit;
      const std::optional<std::vector<double>> predicted = predict_if_runs(values);
      return !predicted || *predicted != base_prediction;  // refused: the value matters, some measurement cannot run
    };
    if (std::none_of(std::begin(kFactors), std::end(kFactors), moves)) {
      fit_where(i).fail(fmt::format(
          "no measurement depends on {} (changing it from {} to {} .. {} times {} moves no prediction); add "
          "a measurement that does or leave it out of {}",
          fit_named(i, "this value"), initial_[i], kFactors[3], kFactors[4], unit, fit_option()));
    }
  }
}

namespace {

double squared_relative_error(const std::vector<double>& predicted, const std::vector<Measurement>& measured) {
  double sum = 0.0;
  for (std::size_t m = 0; m < measured.size(); ++m) {
    const double relative = relative_error(predicted[m], measured[m].value);
    sum += relative * relative;
  }
  return sum;
}

}  // namespace

namespace {

using Objective = std::function<double(const std::vector<double>&)>;

double call_objective(const std::vector<double>& x, std::vector<double>&, void* data) {
  return (*static_cast<const Objective*>(data))(x);
}

/// Evaluations of the global search per value.
constexpr int kDirectEvaluations = 150;
/// The global search reaches this many times a value's start (or its scale, for a start of 0).
constexpr double kDirectReach = 16.0;

/// NLopt DIRECT-L over the box: the best point it found.
std::vector<double> direct_search(const Objective& objective, const std::vector<double>& lower,
                                  const std::vector<double>& upper) {
  const auto n = static_cast<unsigned>(lower.size());
  nlopt::opt optimiser(nlopt::GN_DIRECT_L, n);
  optimiser.set_lower_bounds(lower);
  optimiser.set_upper_bounds(upper);
  optimiser.set_maxeval(kDirectEvaluations * static_cast<int>(n));
  optimiser.set_min_objective(call_objective, const_cast<Objective*>(&objective));
  std::vector<double> x(n);
  for (unsigned i = 0; i < n; ++i) x[i] = (lower[i] + upper[i]) / 2;
  double found = 0.0;
  try {
    optimiser.optimize(x, found);
  } catch (const nlopt::roundoff_limited&) {
    // x holds the best point reached
  }
  return x;
}

/// Evaluations of the multistart search per value.
constexpr int kMultistartEvaluations = 300;
/// Evaluations of each of its local searches.
constexpr int kMultistartLocalEvaluations = 400;

/// NLopt MLSL over the box: local Subplex searches from a low-discrepancy
/// sequence of starts (and `start`); the best point it found.
std::vector<double> multistart_search(const Objective& objective, std::vector<double> start,
                                      const std::vector<double>& lower, const std::vector<double>& upper) {
  const auto n = static_cast<unsigned>(lower.size());
  nlopt::srand(1);  // MLSL draws among its starts: the same fit on every run
  nlopt::opt local(nlopt::LN_SBPLX, n);
  local.set_initial_step(0.25);
  local.set_xtol_rel(1e-6);
  local.set_ftol_abs(1e-16);
  local.set_maxeval(kMultistartLocalEvaluations);
  nlopt::opt optimiser(nlopt::G_MLSL_LDS, n);
  optimiser.set_local_optimizer(local);
  optimiser.set_lower_bounds(lower);
  optimiser.set_upper_bounds(upper);
  optimiser.set_maxeval(kMultistartEvaluations * static_cast<int>(n));
  optimiser.set_min_objective(call_objective, const_cast<Objective*>(&objective));
  for (unsigned i = 0; i < n; ++i) start[i] = std::clamp(start[i], lower[i], upper[i]);
  double found = 0.0;
  try {
    optimiser.optimize(start, found);
  } catch (const nlopt::roundoff_limited&) {
    // start holds the best point reached
  }
  return start;
}

/// Subplex within [lower, upper] from `z`, restarted from its own answer
/// until that stops helping (it copes with the kinks of max() in the
/// iteration time; a restart escapes a collapsed simplex). `z` ends at the
/// best point; returns the objective there.
double polish(const Objective& objective, std::vector<double>& z, const std::vector<double>& lower,
              const std::vector<double>& upper) {
  double best = objective(z);
  for (int restart = 0; restart < 8; ++restart) {
    nlopt::opt optimiser(nlopt::LN_SBPLX, static_cast<unsigned>(z.size()));
    optimiser.set_lower_bounds(lower);
    optimiser.set_upper_bounds(upper);
    optimiser.set_initial_step(0.25);
    optimiser.set_xtol_rel(1e-9);
    optimiser.set_ftol_abs(1e-16);
    optimiser.set_maxeval(4000);
    optimiser.set_min_objective(call_objective, const_cast<Objective*>(&objective));
    double found = best;
    try {
      optimiser.optimize(z, found);
    } catch (const nlopt::roundoff_limited&) {
      // z holds the best point reached: good enough at this resolution
    }
    const bool helped = found < best * (1 - 1e-9);
    best = std::min(best, found);
    if (!helped) break;
  }
  return best;
}

/// Whether `z` sits on `lower` or `upper`, to 1e-4 of the value's start (or
/// of the bound, past it): Subplex stops short of a bound by about that much
/// (a slowdown fitted to 999.995 against its bound 1000).
bool on_bound(double z, double lower, double upper) {
  return z - lower <= 1e-4 * std::max(1.0, std::abs(lower)) || (std::isfinite(upper) && upper - z <= 1e-4 * upper);
}

/// Relative step of the sensitivities at the fit: wide enough that the steps
/// of a quantised response (Horovod cycles) do not pass for a trend.
constexpr double kSensitivityStep = 1e-2;
/// Two values trade off when their sensitivities are parallel to within
/// this cosine (an angle of about 0.8 degrees).
constexpr double kTradeOffCosine = 1 - 1e-4;

/// Per value: how a relative change of it moves each prediction, relative to
/// its measurement (central differences); empty for a value on a bound or
/// where a step leaves what the config reader accepts.
using Predictor = std::function<std::optional<std::vector<double>>(const std::vector<double>&)>;

std::vector<std::vector<double>> sensitivities(const Predictor& predict, const std::vector<double>& values,
                                               const std::vector<bool>& at_bound,
                                               const std::vector<Measurement>& measured) {
  std::vector<std::vector<double>> columns(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (at_bound[i] || values[i] == 0.0) continue;
    std::vector<double> up = values, down = values;
    up[i] *= 1 + kSensitivityStep;
    down[i] *= 1 - kSensitivityStep;
    const std::optional<std::vector<double>> above = predict(up), below = predict(down);
    if (!above || !below) continue;
    for (std::size_t m = 0; m < measured.size(); ++m) {
      columns[i].push_back(((*above)[m] - (*below)[m]) / (2 * kSensitivityStep * measured[m].value));
    }
  }
  return columns;
}

/// Per value, the first other value whose sensitivities are parallel to its own.
std::vector<std::optional<std::size_t>> trade_offs(const std::vector<std::vector<double>>& columns) {
  const auto dot = [](const std::vector<double>& a, const std::vector<double>& b) {
    double sum = 0.0;
    for (std::size_t m = 0; m < a.size(); ++m) sum += a[m] * b[m];
    return sum;
  };
  std::vector<std::optional<std::size_t>> with(columns.size());
  for (std::size_t i = 0; i < columns.size(); ++i) {
    for (std::size_t j = 0; j < columns.size() && !with[i]; ++j) {
      if (j == i || columns[i].empty() || columns[j].empty()) continue;
      const double norms = std::sqrt(dot(columns[i], columns[i]) * dot(columns[j], columns[j]));
      if (norms > 0 && std::abs(dot(columns[i], columns[j])) >= kTradeOffCosine * norms) with[i] = j;
    }
  }
  return with;
}

/// Another value fits as well: more than this far from the fit, relatively ...
constexpr double kDistinctValue = 0.1;
/// ... moving no prediction by more than this, relative to its measurement: 0.1%, below what measured
/// iteration times repeat to, so no measurement of that precision tells the two apart.
constexpr double kFitsAsWell = 1e-3;
/// Candidates checked per value, the farthest first: each costs a prediction of every row.
constexpr std::size_t kAlternativesChecked = 3;

/// Per value, the farthest point among `tried` (points in the optimiser's units
/// and their squared relative errors) distinct from `z` in that value whose
/// predictions (`predict_at`; none where a row cannot run) are each within
/// kFitsAsWell of `at_fit`'s: another minimum of a step-shaped response, or a
/// slope too shallow for any measurement to pin the value down. Only points
/// whose rms error is within kFitsAsWell of `fitted` can be (the triangle
/// inequality), so only those are predicted again.
std::vector<std::optional<std::vector<double>>> other_fits(
    const std::vector<std::pair<std::vector<double>, double>>& tried, const std::vector<double>& z, double fitted,
    const std::vector<double>& at_fit, const std::vector<Measurement>& measured,
    const std::function<std::optional<std::vector<double>>(const std::vector<double>&)>& predict_at) {
  const auto rms = [&](double squared) { return std::sqrt(squared / static_cast<double>(measured.size())); };
  std::vector<std::optional<std::vector<double>>> found(z.size());
  for (std::size_t i = 0; i < z.size(); ++i) {
    std::vector<std::pair<double, const std::vector<double>*>> candidates;  // how far apart, the point
    for (const auto& [point, squared] : tried) {
      const double apart = std::abs(point[i] - z[i]) / std::max(std::abs(z[i]), 1e-12);
      if (apart > kDistinctValue && rms(squared) <= rms(fitted) + kFitsAsWell) candidates.emplace_back(apart, &point);
    }
    std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t c = 0; c < std::min(candidates.size(), kAlternativesChecked) && !found[i]; ++c) {
      const std::optional<std::vector<double>> there = predict_at(*candidates[c].second);
      bool same = there.has_value();
      for (std::size_t m = 0; same && m < measured.size(); ++m) {
        same = std::abs((*there)[m] - at_fit[m]) <= kFitsAsWell * measured[m].value;
      }
      if (same) found[i] = *candidates[c].second;
    }
  }
  return found;
}

}  // namespace

std::string identifiability_note(const Calibration& calibration, const CalibrationResult& result, std::size_t i) {
  if (const auto other = result.trades_off_with[i]) {
    return fmt::format("not identifiable: trades off with {}", calibration.paths()[*other]);
  }
  if (result.flat[i]) return "not identifiable: no measurement moves when it changes by 1% here";
  if (result.edge[i]) return fmt::format("not identifiable: a measurement cannot run past it ({})", *result.edge[i]);
  if (!result.at_bound[i]) {
    if (!result.also_fits[i]) return "";
    return fmt::format("not identifiable: at {:g} every prediction is within 0.1% of this", *result.also_fits[i]);
  }
  const ValueBounds& bounds = calibration.bounds()[i];
  const bool low = std::abs(result.values[i] - bounds.lower) <= std::abs(result.values[i] - bounds.upper);
  return fmt::format("not identifiable: at its {} bound {:g}", low ? "lower" : "upper", low ? bounds.lower : bounds.upper);
}

CalibrationResult Calibration::fit() const {
  const std::size_t n = paths_.size();
  CalibrationResult result;
  std::vector<std::pair<std::vector<double>, double>> tried;  // every point the search tried, and its error
  const Objective objective = [&](const std::vector<double>& z) {
    ++result.evaluations;
    std::vector<double> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = z[i] * scale_[i];
    try {
      tried.emplace_back(z, squared_relative_error(predict(values), measurements_));
      return tried.back().second;
    } catch (const WorkError&) {
      throw nlopt::forced_stop();  // NLopt stops and rethrows it; fit() reports the budget
    } catch (const Error&) {
      return std::numeric_limits<double>::max();
    }
  };
  std::vector<double> z(n), lower(n), upper(n), box(n);
  bool open_box = n > 0;
  for (std::size_t i = 0; i < n; ++i) {
    z[i] = initial_[i] / scale_[i];
    lower[i] = bounds_[i].lower / scale_[i];
    upper[i] = bounds_[i].upper / scale_[i];
    box[i] = std::max(lower[i], std::min(upper[i], kDirectReach * std::max(z[i], 1.0)));
    open_box = open_box && box[i] > lower[i];
  }
  try {  // the objective stops NLopt (and itself) with forced_stop once the budget is spent
    if (n > 0) {
      // Two global searches, each polished, the better kept: on a step-shaped
      // response (a merge plan that changes with the values) each ends in
      // minima the other escapes. One value alone takes DIRECT's alone: it
      // divides a line finely within its budget.
      std::vector<double> divided = z;
      if (open_box) {
        std::vector<double> global = direct_search(objective, lower, box);
        if (objective(global) < objective(divided)) divided = std::move(global);
      }
      const double divided_end = polish(objective, divided, lower, upper);
      if (open_box && n > 1) {
        std::vector<double> sampled = multistart_search(objective, z, lower, box);
        if (polish(objective, sampled, lower, upper) < divided_end) divided = std::move(sampled);
      }
      z = std::move(divided);
    }
    const double fitted = objective(z);
    for (std::size_t i = 0; i < n; ++i) {
      result.values.push_back(z[i] * scale_[i]);
      // Near a bound in the optimiser's units, and no better off it: a start
      // far above a small answer puts the answer near 0 in those units.
      bool bound = on_bound(z[i], lower[i], upper[i]);
      if (bound) {
        std::vector<double> at = z;
        at[i] = z[i] - lower[i] <= upper[i] - z[i] ? lower[i] : upper[i];
        bound = objective(at) <= fitted * (1 + 1e-6) + 1e-15;
      }
      result.at_bound.push_back(bound);
    }
  } catch (const nlopt::forced_stop&) {
    budget_->check();
    throw;
  }
  result.predicted = predict(result.values);
  result.sum_squared_rel_error = squared_relative_error(result.predicted, measurements_);
  const auto columns = sensitivities([&](const std::vector<double>& v) { return predict_if_runs(v); }, result.values,
                                     result.at_bound, measurements_);
  result.trades_off_with = trade_offs(columns);
  for (std::size_t i = 0; i < n; ++i) {  // red team: pinned where a row's message passed an hour, with no note
    std::optional<std::string> edge;
    for (const double step : {1e-6, -1e-6}) {
      std::vector<double> past = result.values;
      past[i] = past[i] == 0.0 ? step * scale_[i] : past[i] * (1 + step);
      if (!edge && past[i] >= 0 && accepts(paths_[i], past[i])) edge = run_refusal(past);
    }
    result.edge.push_back(std::move(edge));
  }
  const auto predict_at = [&](const std::vector<double>& point) {  // in the optimiser's units
    std::vector<double> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = point[i] * scale_[i];
    return predict_if_runs(values);
  };
  const auto others = other_fits(tried, z, result.sum_squared_rel_error, result.predicted, measurements_, predict_at);
  for (std::size_t i = 0; i < n; ++i) {
    result.also_fits.push_back(others[i] ? std::optional<double>((*others[i])[i] * scale_[i]) : std::nullopt);
    result.flat.push_back(!columns[i].empty() &&
                          std::all_of(columns[i].begin(), columns[i].end(), [](double d) { return d == 0.0; }));
  }
  return result;
}

std::optional<std::string> Calibration::run_refusal(const std::vector<double>& values) const {
  const nlohmann::json document = with_values(values);
  const Scenario scenario = base_scenario(document, config_file_, config_at_);
  for (std::size_t i = 0; i < measurements_.size(); ++i) {
    try {
      predict_one(document, scenario, measurements_[i]);
    } catch (const WorkError&) {
      throw;
    } catch (const Error& error) {
      return fmt::format("{}[{}]: {}", rows_key_, i, error.what());
    }
  }
  return std::nullopt;
}

std::vector<std::optional<double>> Calibration::leave_one_out(int threads) const {
  const std::size_t count = measurements_.size();
  std::vector<std::optional<double>> predicted(count);  // each slot written by one thread
  // Each fit runs on a budget of its own, of what is left when they start,
  // and is charged to the calibration's in index order once all are done:
  // what passes --max-work, and the message when it does not, are the same
  // on any thread count. Fit 0 runs first, alone, and the rest are
  // projected from it before any more starts.
  std::vector<double> cost(count, 0.0);
  std::vector<bool> over(count, false);  // past its own budget: the rest of the calibration's
  const auto held_out = [&](std::size_t i, double allowance) {
    std::vector<Measurement> others = measurements_;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
    std::optional<Calibration> without;  // what it charged counts, however it ends
    try {
      without.emplace(config_file_, ordered_base_, config_at_, measurements_file_, rows_key_, std::move(others), paths_,
                      fit_key_, std::make_shared<WorkBudget>(allowance));
      const CalibrationResult fit = without->fit();
      // Red team: two values the others tie stayed where the fit on every row split them, so the held-out
      // row was predicted by its own split (+0.00%).
      const auto tied = [](const std::optional<std::size_t>& with) { return with.has_value(); };
      if (std::none_of(fit.trades_off_with.begin(), fit.trades_off_with.end(), tied)) {
        const nlohmann::json document = with_values(fit.values);
        predicted[i] = without->predict_one(document, base_scenario(document, config_file_, config_at_), measurements_[i]);
      }
    } catch (const WorkError&) {
      over[i] = true;
    } catch (const ConfigError&) {
      // the others alone cannot fit every value: no prediction
    }
    if (without) cost[i] = without->charged_;
  };
  const auto charge = [&](std::size_t i) {
    budget_->spend(over[i] ? std::max(cost[i], budget_->left() + 1) : cost[i]);  // refused when over
  };
  if (count == 0) return predicted;
  const double before = budget_->spent();
  held_out(0, budget_->left());
  charge(0);
  budget_->project(before, cost[0], count, 1, "held-out fit");
  const double allowance = budget_->left();
  for_each_index(count - 1, threads, [&](std::size_t k) { held_out(k + 1, allowance); });
  for (std::size_t i = 1; i < count; ++i) charge(i);
  return predicted;
}

std::string Calibration::config_text(std::span<const double> values, const std::filesystem::path& output) const {
  nlohmann::ordered_json document = ordered_base_;
  for (std::size_t i = 0; i < paths_.size(); ++i) document[pointer_of(base_, paths_[i])] = values[i];
  const std::filesystem::path from = std::filesystem::absolute(config_file_).parent_path();
  // The folder of the file written: through a link, its target's (red team: the link's folder broke every path).
  const std::filesystem::path to = std::filesystem::absolute(output == "-" ? output : output_target(output)).parent_path();
  const auto moved = [&](nlohmann::ordered_json& path) {
    const std::filesystem::path given = path.get<std::string>();
    if (given.is_relative()) path = std::filesystem::relative(from / given, to).generic_string();
  };
  if (from != to) {
    if (document.at("trace").is_array()) {  // a list of one trace, as a sweep's
      for (nlohmann::ordered_json& trace : document["trace"]) moved(trace);
    } else {
      moved(document["trace"]);
    }
    if (document.contains("curves")) {
      for (nlohmann::ordered_json& curve : document["curves"]) moved(curve);
    }
    if (document.contains("schedules")) {
      for (nlohmann::ordered_json& entry : document["schedules"]) {
        if (!entry.is_object()) continue;
        if (entry.contains("selection_curve")) moved(entry["selection_curve"]);
        if (!entry.contains("name") || !entry["name"].is_string()) continue;
        const ScheduleChoice choice = find_schedule_or_builder(entry["name"].get<std::string>());
        if (choice.builder == nullptr) continue;
        for (const ChoiceSpec& spec : choice.builder->choices) {  // a graph file instead of a named topology
          if (!entry.contains(spec.name) || !entry[spec.name].is_string()) continue;
          if (spec.names_file(entry[spec.name].get<std::string>())) moved(entry[spec.name]);
        }
      }
    }
  }
  return json_text(document, 2) + "\n";
}

}  // namespace mgsim
