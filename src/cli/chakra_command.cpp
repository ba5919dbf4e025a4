// `mgsim export chakra` and `mgsim import chakra`: Chakra execution traces
// (docs/chakra.md) out of a config's plan and into an mgsim trace.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "mgsim/io/json_reader.hpp"
#include "mgsim/counted.hpp"
#include "mgsim/chakra/chakra.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/app/run_grid.hpp"
#include "mgsim/io/scenario.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/version.hpp"

namespace mgsim::cli {
namespace {

struct ExportOptions {
  std::string config;
  int gpus = 0;
  std::string schedule;
  std::string prefix;
  double max_work = kDefaultMaxWork;
};

/// The config's schedule named `name` (its label, or its name when one schedule has it).
const ScheduleSpec& find_schedule_named(const Scenario& config, const ExportOptions& options) {
  std::vector<std::string> labels;
  for (const ScheduleSpec& spec : config.schedules) {
    if (spec.label() == options.schedule) return spec;  // a label first: "ddp" is the entry at its defaults
    labels.push_back(spec.label());
  }
  const std::string known = fmt::format("{}", fmt::join(labels, ", "));
  const ScheduleSpec* found = nullptr;
  for (const ScheduleSpec& spec : config.schedules) {
    if (spec.name != options.schedule) continue;
    if (found) throw ConfigError(fmt::format("--schedule {}: the config has several; name one by its label ({})", options.schedule, known));
    found = &spec;
  }
  if (!found) {
    throw ConfigError(fmt::format("--schedule {}: not a schedule of {} (it has: {})", options.schedule, options.config, known));
  }
  return *found;
}

/// find_schedule_named, refusing an iteration builder (nbsgd, dpsgd, matcha: no plan of collectives).
const ScheduleSpec& pick_schedule(const Scenario& config, const ExportOptions& options) {
  const ScheduleSpec& spec = find_schedule_named(config, options);
  if (spec.builder()) {
    throw ConfigError(fmt::format("--schedule {}: an iteration builder has no plan of collectives to export", options.schedule));
  }
  return spec;
}

/// The plan of `spec` on `gpus` GPUs of `scenario`, as the one evaluator makes it, within `max_work` steps
/// as `run` estimates them (red team: an omgs plan of 30,000 layers ran past 100 s; run refused it at once).
Plan plan_for_export(Scenario scenario, const ScheduleSpec& spec, int gpus, double max_work, WorkloadCache& cache) {
  if (!scenario.speed_classes.empty()) {
    scenario.where("speed_classes").fail("the ranks of an export are identical: remove speed_classes from the config");
  }
  scenario.gpus = {gpus};
  scenario.gpus_origin = fmt::format("--gpus {}", gpus);
  scenario.schedules = {spec};
  const RunGrid grid(std::move(scenario), cache);
  // And its files: every rank's nodes written (red team: 256 ranks of a 100,000-layer plan wrote 9.6 GB in
  // 35.7 s at an estimated 1e5 steps; about 7 steps a node and rank at 10 M steps a second).
  constexpr double kStepsPerNodeAndRank = 10;
  const TensorLayout& layout = grid.workload(0).layout;
  const double nodes = static_cast<double>(layout.layer_count() + layout.tensor_count());
  check_work(grid.estimate_steps(0) + kStepsPerNodeAndRank * nodes * gpus, max_work);
  return grid.evaluate(0, true).iteration.value().plan;
}

std::string provenance_of(const std::filesystem::path& trace) {
  const auto document = nlohmann::ordered_json::parse(read_input_file(trace, InputKind::trace));
  return document.at("provenance").dump();
}

void export_chakra(const ExportOptions& options) {
  const Scenario config = load_scenario(options.config);
  require_one_of_each(config, "mgsim export chakra");
  const ScheduleSpec& spec = pick_schedule(config, options);
  WorkloadCache cache;
  const RunGrid whole(config, cache);  // the config checked as `run` checks it, schedules not exported too (red team)
  const Plan plan = plan_for_export(config, spec, options.gpus, options.max_work, cache);
  const Workload& workload = cache.get(config.traces.front());
  const chakra::ExportLabel label{
      fmt::format("mgsim {} export chakra -c {} --gpus {} --schedule {}", version(), options.config, options.gpus,
                  spec.label()),
      provenance_of(config.traces.front())};
  const std::string bytes = chakra::export_rank(workload, plan, label);
  const std::filesystem::path name = std::filesystem::path(options.prefix).filename();
  if (options.prefix == "-" || name.empty() || name == "." || name == "..") {  // red team: "-o ." wrote ..0.et
    throw OutputError(fmt::format("-o {}: expected a file prefix such as et/googlenet (it writes PREFIX.0.et ..; "
                                  "no standard output, no bare folder)",
                                  options.prefix));
  }
  std::vector<std::filesystem::path> files;
  for (int rank = 0; rank < options.gpus; ++rank) files.emplace_back(fmt::format("{}.{}.et", options.prefix, rank));
  const std::filesystem::path folder = std::filesystem::path(options.prefix).parent_path();
  // One file a rank: the disk must hold them all (red team: 4096 ranks of a 19 MB plan would write 79 GB),
  // asked of the folder, or the nearest one above that is there, before it is made.
  std::filesystem::path there = folder.empty() ? "." : folder;
  std::error_code error;
  while (!std::filesystem::exists(there, error) && there != ".") {
    there = there.has_parent_path() && there.parent_path() != there ? there.parent_path() : ".";
  }
  const std::filesystem::space_info room = std::filesystem::space(there, error);
  // Each file in whole 4 KiB blocks (red team: 29 files of 33 KB passed a 1 MiB disk, then filled it). The files
  // an export to the same prefix replaces give no room back: they go once every new file is written.
  constexpr double kBlock = 4096;
  const double total = std::ceil(static_cast<double>(bytes.size()) / kBlock) * kBlock * options.gpus;
  if (!error && total > static_cast<double>(room.available)) {
    throw OutputError(fmt::format("-o {}: {} files of {} bytes take {:.3g} GB, but the folder has {:.3g} GB free: "
                                  "export fewer GPUs, or write elsewhere",
                                  options.prefix, options.gpus, bytes.size(), total / 1e9,
                                  static_cast<double>(room.available) / 1e9));
  }
  error.clear();  // a folder whose free space cannot be asked is still written to
  // "-o et/googlenet" makes et/, folder by folder: those it made, and no other, go again if the write fails
  // (red team: left behind; "new/../old" must not take old with it).
  std::vector<std::filesystem::path> made;
  try {
    std::filesystem::path at;
    for (const std::filesystem::path& part : folder) {
      at /= part;
      if (std::filesystem::create_directory(at, error)) made.push_back(at);
      if (error) {
        const bool taken = error == std::errc::file_exists;  // a file, or a link to nothing, by that name
        throw OutputError(fmt::format("-o {}: cannot create the folder {}: {}", options.prefix, at.string(),
                                      taken ? "a file (or a link to nothing) has its name" : error.message()));
      }
    }
    StagedFiles staged;  // every rank's file or none (red team: a full disk left 15 of 64, beside older ones)
    for (const std::filesystem::path& file : files) staged.add(file, bytes);
    staged.commit();
  } catch (const OutputError&) {
    for (auto folder_made = made.rbegin(); folder_made != made.rend(); ++folder_made) {
      std::filesystem::remove(*folder_made, error);
    }
    throw;
  }
  fmt::print("wrote {}.{{0..{}}}.et: {} {} on {}, {}, {}, {} bytes each\n", printable(options.prefix), options.gpus - 1,
             workload.trace.model, spec.label(), counted(options.gpus, "GPU"),
             counted(std::ssize(workload.trace.layers), "layer"), counted(std::ssize(plan), "message"), bytes.size());
  // After the output, never before an error; one a term the config sets (red team: "overlap and variability"
  // for overlap alone, the optimizer step for a trace without one).
  const auto not_in_et = [](std::string_view what, std::string_view consequence) {
    fmt::print(stderr, "mgsim: warning: {} is not in a Chakra ET: {}\n", what, consequence);
  };
  constexpr std::string_view kRunAdds = "a replay leaves it out, mgsim run adds it";
  if (!config.overlap.ideal()) not_in_et("the config's overlap", "the files hold the nominal iteration");
  if (!config.variability.none()) not_in_et("the config's variability", "the files hold the nominal iteration");
  if (config.iteration_overhead_s > 0) not_in_et("the iteration's host time (iteration_overhead_s)", kRunAdds);
  if (workload.trace.optimizer_bytes_per_s > 0) not_in_et("the optimizer step (the trace's optimizer_bytes_per_s)", kRunAdds);
  warn_left_ranks([&](std::int64_t rank) { return fmt::format("{}.{}.et", options.prefix, rank); }, options.gpus,
                  fmt::format("export of more ranks, not from this one: an import of {} reads every rank file",
                              printable(options.prefix)));
  if (config.sync_overhead_s > 0) not_in_et("the coordination across GPUs (sync_overhead_s)", kRunAdds);
  if (config.node_input_samples_per_s > 0) {
    not_in_et("the input pipeline (node_input_samples_per_s)", "a replay leaves it out, mgsim run waits for it");
  }
  // Terms of a message's time: in its duration_micros, which a replay ignores (red team: "not in a Chakra ET"
  // beside durations that held them).
  const auto informative_only = [](std::string_view what) {
    fmt::print(stderr,
               "mgsim: warning: {} is in each message's duration_micros only, which a replay ignores: it times "
               "comm_size on its own network (the plan's messages were chosen with it)\n",
               what);
  };
  if (!config.networks.empty() && config.networks.front().network.fabric_s_per_byte > 0) {
    informative_only("the shared fabric (network.fabric_s_per_byte)");
  }
  if (config.message_overhead_s > 0) informative_only("the fixed time of every message (message_overhead_s)");
}

struct ChakraImportOptions {
  std::string input;
  std::string output;
  std::string model;
  int batch_size = 0;
};

/// The file PREFIX.<rank>.et (its path) of the lowest rank above `missing` in the
/// prefix's folder, if any; a rank is any run of digits, however long (red
/// team: a rank past 64 bits was no gap).
std::optional<std::string> rank_past(const std::string& prefix, int missing) {
  const std::filesystem::path path(prefix);
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
  const std::string stem = path.filename().string() + ".";
  const std::string after = std::to_string(missing);
  // Ranks compared as numbers: by their digits without leading zeros, the shorter the lower.
  const auto less = [](std::string_view a, std::string_view b) { return a.size() != b.size() ? a.size() < b.size() : a < b; };
  std::optional<std::string> lowest_digits, lowest_name;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= stem.size() + 3 || !name.starts_with(stem) || !name.ends_with(".et")) continue;
    std::string digits = name.substr(stem.size(), name.size() - stem.size() - 3);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
    if (!less(after, digits) || (lowest_digits && !less(digits, *lowest_digits))) continue;
    lowest_digits = digits;
    lowest_name = (path.parent_path() / name).string();
  }
  return lowest_name;
}

/// The file to read: `input` itself, or rank 0 of the prefix `input`; other
/// ranks' files that differ from rank 0 are reported.
std::filesystem::path rank_file(const std::string& input) {
  if (is_blank(input)) {  // red team: ' ' was read as a prefix
    throw ConfigError(fmt::format("import chakra: expected an .et file or the PREFIX of PREFIX.<rank>.et, got '{}'", input));
  }
  if (input == "-" || std::filesystem::is_regular_file(input)) return input;
  const std::filesystem::path first = input + ".0.et";
  if (!std::filesystem::is_regular_file(first)) {
    const std::optional<std::string> past = rank_past(input, 0);  // red team: p.1.et there, rank 0 gone: not said
    throw TraceError(fmt::format("{}: neither a file nor the prefix of {}{}", printable(input), printable(first.string()),
                                 past ? fmt::format(" ({} is there: rank 0's file is missing)", printable(*past)) : ""));
  }
  const std::string bytes = read_input_file(first, InputKind::trace);
  int differ = 0;
  int rank = 1;
  for (; std::filesystem::is_regular_file(fmt::format("{}.{}.et", input, rank)); ++rank) {
    differ += read_input_file(fmt::format("{}.{}.et", input, rank), InputKind::trace) != bytes;
  }
  if (differ > 0) {
    std::fprintf(stderr, "mgsim: warning: %d of the %d rank files differ from rank 0's; imported rank 0\n", differ, rank);
  }
  if (const std::optional<std::string> past = rank_past(input, rank)) {  // red team: ranks 0 and 2, silence on 1
    fmt::print(stderr, "mgsim: warning: {0}.{1}.et is missing, but {2} is there: ranks {1} and up were not "
               "compared with rank 0 (an export cut short?); imported rank 0\n", printable(input), rank, printable(*past));
  }
  return first;
}

nlohmann::ordered_json provenance_of(const chakra::Imported& imported, const std::string& file) {
  nlohmann::ordered_json provenance = {{"kind", "measured"}, {"tool", "Chakra execution trace"}, {"source_file", file}};
  // A damaged export's text is refused in this one line (red team: the JSON library's own message named no file).
  if (!imported.provenance.empty()) provenance = nlohmann::ordered_json::parse(imported.provenance, nullptr, false);
  if (provenance.is_discarded() || !provenance.is_object() || !provenance.contains("kind")) {
    throw TraceError(fmt::format("{}: GlobalMetadata: mgsim_provenance: expected a JSON object with \"kind\"", file));
  }
  provenance["imported_by"] = command_line();
  return provenance;
}

void import_chakra(const ChakraImportOptions& options) {
  const std::filesystem::path file = rank_file(options.input);
  chakra::Imported imported = chakra::import_et(read_input_file(file, InputKind::trace), file.string());
  if (!imported.from_mgsim) {
    imported.trace.model = options.model.empty() ? file.stem().string() : options.model;
    imported.trace.batch_size = options.batch_size > 0 ? options.batch_size : 1;
  } else if (!options.model.empty() || options.batch_size > 0) {  // red team: once ignored silently
    throw ConfigError(fmt::format("{}: an mgsim export keeps its own model and batch ('{}', {}): leave out {}",
                                  file.string(), printable(imported.trace.model), imported.trace.batch_size,
                                  options.model.empty() ? "--batch" : options.batch_size > 0 ? "--model and --batch" : "--model"));
  }
  emit(format_trace_json(imported.trace, provenance_of(imported, file.string())), options.output);
  for (const std::string& warning : imported.warnings) std::fprintf(stderr, "mgsim: warning: %s\n", warning.c_str());
  if (options.output.empty() || options.output == kStdout) return;
  fmt::print("wrote {}: {}, forward {:.3f} ms, {} ({})\n", printable(options.output),
             counted(std::ssize(imported.trace.layers), "layer"), imported.trace.forward_time_s * 1e3,
             counted(std::ssize(imported.messages), "collective"),
             imported.from_mgsim ? "an mgsim export: trace and plan as exported" : "one layer per collective");
}

}  // namespace

void add_import_chakra(CLI::App& import_command) {
  auto options = std::make_shared<ChakraImportOptions>();
  CLI::App* chakra = import_command.add_subcommand("chakra", "Chakra execution trace (.et) of a data-parallel step -> trace");
  chakra->add_option("file", options->input, "an .et file, or the PREFIX of PREFIX.<rank>.et (reads rank 0)")
      ->required();
  chakra->add_option("-o,--output", options->output, "the mgsim file to write (default or -: stdout)")
      ->check(output_name());
  chakra->add_option("--model", options->model, "model name (default: the file name; an mgsim export keeps its own, and refuses it)")
      ->check(name_text("a model name"));
  chakra->add_option("--batch", options->batch_size, "samples per GPU per iteration (default 1; an mgsim export keeps its own, and refuses it)")
      ->check(whole_in(1, 1 << 30));
  add_examples(chakra, {"mgsim import chakra workload -o workload.json  # the prefix of workload.0.et ...: reads rank 0",
                        "mgsim import chakra workload.0.et -o workload.json  # another tool's ET: add --model NAME --batch N"});
  chakra->callback([options] { import_chakra(*options); });
}

void add_export_command(CLI::App& app) {
  auto options = std::make_shared<ExportOptions>();
  CLI::App* command = app.add_subcommand("export", "write a config's plan in another tool's format (Chakra ET)");
  command->require_subcommand(1);
  add_examples(command, {"mgsim export chakra -c configs/googlenet-k80-ring.json --gpus 4 --schedule wfbp -o et/googlenet"});
  CLI::App* chakra = command->add_subcommand(
      "chakra", "one iteration as planned, as Chakra execution traces PREFIX.<rank>.et (ASTRA-sim's workload)");
  chakra->add_option("-c,--config", options->config, "run config (JSON, see docs/config.md)")
      ->required()
      ->transform(shipped_data());
  chakra->add_option("--gpus", options->gpus, "ranks: one file per rank")
      ->required()
      ->check(whole_in(1, chakra::kMaxExportRanks));
  chakra->add_option("--schedule", options->schedule, "the config's schedule to plan with (its name or label)")
      ->required()
      ->check(name_text("a schedule name or label"));
  chakra->add_option("-o,--output", options->prefix, "file prefix: writes PREFIX.0.et .. PREFIX.<gpus-1>.et")
      ->required()
      ->check(output_name());
  chakra->add_option("--max-work", options->max_work, "most events to simulate (an estimate, checked before running)")
      ->capture_default_str()
      ->check(finite_in(1, 1e15, true));
  add_examples(chakra, {"mgsim export chakra -c configs/googlenet-k80-ring.json --gpus 4 --schedule mgwfbp -o et/googlenet"});
  chakra->callback([options] { export_chakra(*options); });
}

}  // namespace mgsim::cli
