#include "mgsim/io/utf8.hpp"
#include "mgsim/app/sweep_advice.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include "mgsim/io/json_text.hpp"
#include <nlohmann/json.hpp>

namespace mgsim {
namespace {

struct Knob {
  std::string_view schedule;
  std::string_view parameter;
  double first;  ///< the smallest value tried (advice_values)
};

/// MiB and ms from 0.25; ByteScheduler's partition and P3's slice from 16 Ki
/// elements (a 64 KB fp32 chunk, below any tuned value ByteScheduler reports)
/// to 64 Mi; ByteScheduler's credit from 64 Ki to 256 Mi elements.
constexpr Knob kKnobs[] = {{"ddp", "bucket_cap_mb", 0.25},
                           {"horovod", "fusion_threshold_mb", 0.25},
                           {"horovod", "cycle_time_ms", 0.25},
                           {"bytescheduler", "partition_params", 16384},
                           {"bytescheduler", "credit_params", 65536},
                           {"p3", "slice_params", 16384}};

double default_of(const Knob& knob) {
  const auto& params = find_schedule(knob.schedule).params;
  const auto spec = std::find_if(params.begin(), params.end(), [&](const ParamSpec& p) { return p.name == knob.parameter; });
  return spec->default_value;
}

ScheduleSpec candidate(std::string_view schedule, std::optional<std::pair<std::string_view, double>> value,
                       MessageUnit unit) {
  ScheduleSpec spec;
  spec.name = schedule;
  if (value) spec.params.emplace(std::string(value->first), value->second);
  spec.unit = unit;
  return spec;
}

/// optimal, then per schedule of a knob its default, then each knob's values
/// (advice_values(first) each): the schedules of the advice grid.
std::vector<ScheduleSpec> candidates(MessageUnit unit) {
  std::vector<ScheduleSpec> specs{candidate("optimal", std::nullopt, unit)};
  for (const Knob& knob : kKnobs) {
    const auto named = [&](const ScheduleSpec& spec) { return spec.name == knob.schedule && spec.params.empty(); };
    if (std::none_of(specs.begin(), specs.end(), named)) specs.push_back(candidate(knob.schedule, std::nullopt, unit));
  }
  for (const Knob& knob : kKnobs) {
    for (double value : advice_values(knob.first)) specs.push_back(candidate(knob.schedule, std::pair(knob.parameter, value), unit));
  }
  return specs;
}

/// The mean iteration time of `spec`, a candidate of the grid, at GPU count
/// `g`, from `times` (each run of the grid evaluated once).
SimTime time_of(const RunGrid& grid, const std::vector<SimTime>& times, std::size_t g, const ScheduleSpec& spec) {
  const std::vector<ScheduleSpec>& specs = grid.scenario().schedules;
  return times[g * specs.size() + static_cast<std::size_t>(&spec - specs.data())];
}

KnobAdvice advise_knob(const Knob& knob, const RunGrid& grid, const std::vector<SimTime>& times, std::size_t g) {
  const std::vector<ScheduleSpec>& specs = grid.scenario().schedules;
  KnobAdvice advice;
  advice.gpus = grid.scenario().gpus[g];
  advice.schedule = knob.schedule;
  advice.parameter = knob.parameter;
  advice.default_value = default_of(knob);
  advice.optimal = time_of(grid, times, g, specs.front());
  for (const ScheduleSpec& spec : specs) {
    if (spec.name != knob.schedule) continue;
    const auto value = spec.params.find(knob.parameter);
    if (spec.params.empty()) {
      advice.at_default = time_of(grid, times, g, spec);
    } else if (value != spec.params.end()) {
      advice.tried.emplace_back(value->second, time_of(grid, times, g, spec));
    }
  }
  advice.best_value = advice.default_value;
  advice.best_is_default = true;
  advice.best = advice.at_default;
  for (const auto& [value, time] : advice.tried) {
    if (time < advice.best) {
      advice.best = time;
      advice.best_value = value;
      advice.best_is_default = false;
    }
  }
  return advice;
}

/// Whether writing the knob's default value out runs another run than leaving it out: another parameter
/// defaults from it (DDP's first bucket is 1 MiB unless bucket_cap_mb is given; red team: "25 (default)" read
/// as {"bucket_cap_mb": 25}, 6% slower).
bool default_is_unset(const KnobAdvice& advice) {
  const auto& params = find_schedule(advice.schedule).params;
  return std::any_of(params.begin(), params.end(), [&](const ParamSpec& p) { return p.default_from == advice.parameter; });
}

/// The default as the table shows it: "unset" where default_is_unset.
std::string default_text(const KnobAdvice& advice) {
  return default_is_unset(advice) ? "unset" : fmt::format("{:.10g}", advice.default_value);
}

/// The default and the best value as CSV and JSON give them: none where the
/// default is unset (red team: the CSV's 25 for DDP's default, written back
/// into a config, ran another run).
std::optional<double> written_default(const KnobAdvice& advice) {
  if (default_is_unset(advice)) return std::nullopt;
  return advice.default_value;
}
std::optional<double> written_best(const KnobAdvice& advice) {
  return advice.best_is_default ? written_default(advice) : advice.best_value;
}

/// A number of the CSV, empty where there is none.
std::string csv_number(std::optional<double> value) { return value ? fmt::format("{:.10g}", *value) : ""; }

std::string value_text(const KnobAdvice& advice) {
  return advice.best_is_default ? fmt::format("{} (default)", default_text(advice))
                                 : fmt::format("{:.10g}", advice.best_value);
}

std::string format_table(const std::vector<KnobAdvice>& advice, std::string_view model, std::string_view collective) {
  // Red team: under variability the times are means, which run's iter column is not.
  std::string out = fmt::format("model {}, collective {}; times (ms) are mean iterations\n\n", printable(model),
                                collective);
  out += fmt::format("{:>6}  {:<13}  {:<19}  {:>19}  {:>10}  {:>9}  {:>12}  {:>13}  {:>12}  {:>15}\n", "gpus",
                     "schedule", "parameter", "best value", "best (ms)", "default", "default (ms)", "default loses",
                     "optimal (ms)", "best vs optimal");
  for (const KnobAdvice& a : advice) {
    out += fmt::format("{:>6}  {:<13}  {:<19}  {:>19}  {:>10.3f}  {:>9}  {:>12.3f}  {:>12.1f}%  {:>12.3f}  {:>14.1f}%\n",
                       a.gpus, a.schedule, a.parameter, value_text(a), to_seconds(a.best) * 1e3, default_text(a),
                       to_seconds(a.at_default) * 1e3, a.default_loss() * 100, to_seconds(a.optimal) * 1e3,
                       a.gap_to_optimal() * 100);
  }
  return out;
}

std::string format_csv(const std::vector<KnobAdvice>& advice, std::string_view model, std::string_view collective) {
  std::string out = fmt::format(
      "model,collective,gpus,schedule,parameter,best_value,best_is_default,best_iteration_time_s,default_value,"
      "default_iteration_time_s,default_loss,optimal_iteration_time_s,gap_to_optimal{}\n",
      kCsvVersionColumns);
  for (const KnobAdvice& a : advice) {
    out += fmt::format("{},{},{},{},{},{},{},{:.9f},{},{:.9f},{:.6g},{:.9f},{:.6g}{}\n", csv_field(std::string(model)),
                       csv_field(std::string(collective)), a.gpus, a.schedule, a.parameter, csv_number(written_best(a)),
                       a.best_is_default ? 1 : 0, to_seconds(a.best), csv_number(written_default(a)), to_seconds(a.at_default),
                       a.default_loss(), to_seconds(a.optimal), a.gap_to_optimal(), csv_version_fields());
  }
  return out;
}

std::string format_json(const std::vector<KnobAdvice>& advice, std::string_view model, std::string_view collective) {
  nlohmann::json rows = nlohmann::json::array();
  for (const KnobAdvice& a : advice) {
    nlohmann::json tried = nlohmann::json::array();
    for (const auto& [value, time] : a.tried) tried.push_back({{"value", value}, {"iteration_time_s", to_seconds(time)}});
    rows.push_back({{"model", model},
                    {"collective", collective},
                    {"gpus", a.gpus},
                    {"schedule", a.schedule},
                    {"parameter", a.parameter},
                    {"best_value", written_best(a) ? nlohmann::json(*written_best(a)) : nlohmann::json()},
                    {"best_is_default", a.best_is_default},
                    {"best_iteration_time_s", to_seconds(a.best)},
                    {"default_value", written_default(a) ? nlohmann::json(*written_default(a)) : nlohmann::json()},
                    {"default_iteration_time_s", to_seconds(a.at_default)},
                    {"default_loss", a.default_loss()},
                    {"optimal_iteration_time_s", to_seconds(a.optimal)},
                    {"gap_to_optimal", a.gap_to_optimal()},
                    {"tried", tried}});
  }
  nlohmann::json report = {{"advice", rows}};
  stamp_report(report);
  return json_text(report, 2) + "\n";
}

}  // namespace

std::vector<double> advice_values(double first) {
  std::vector<double> values;
  for (int exponent = 0; exponent <= 12; ++exponent) values.push_back(std::ldexp(first, exponent));
  return values;
}

std::vector<KnobAdvice> advise(Scenario scenario, WorkloadCache& cache, double max_work) {
  require_one_of_each(scenario, "mgsim advise");
  const RunGrid checked(scenario, cache);  // the config checked as `run` checks it, the schedules advise does not run too
  scenario.schedules = candidates(scenario.message_unit);
  const RunGrid grid(std::move(scenario), cache);
  double steps = 0.0;  // red team: 10^6 iterations under variability ran past 30 s where `run` refused them
  for (std::size_t run = 0; run < grid.size(); ++run) steps += grid.estimate_steps(run);
  check_work(steps, max_work);
  std::vector<SimTime> times;  // every candidate at every GPU count, once (optimal and defaults serve several knobs)
  for (std::size_t run = 0; run < grid.size(); ++run) times.push_back(grid.row(run).metrics.mean_iteration);
  std::vector<KnobAdvice> advice;
  for (std::size_t g = 0; g < grid.scenario().gpus.size(); ++g) {
    for (const Knob& knob : kKnobs) advice.push_back(advise_knob(knob, grid, times, g));
  }
  return advice;
}

std::string format_advice(const std::vector<KnobAdvice>& advice, std::string_view model, std::string_view collective,
                          ReportFormat format) {
  switch (format) {
    case ReportFormat::csv: return format_csv(advice, model, collective);
    case ReportFormat::json: return format_json(advice, model, collective);
    case ReportFormat::table: break;
  }
  return format_table(advice, model, collective);
}

}  // namespace mgsim
