#include "mgsim/app/model_choice.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "mgsim/error.hpp"
#include "mgsim/median.hpp"
#include "mgsim/relative_error.hpp"

namespace mgsim {

Choice parse_choice(const std::string& text) {
  const std::size_t equals = text.find('=');
  Choice choice;
  if (equals != std::string::npos) {
    choice.key = text.substr(0, equals);
    std::stringstream in(text.substr(equals + 1));
    for (std::string value; std::getline(in, value, ',');) choice.values.push_back(value);
  }
  const bool empty_value = std::find(choice.values.begin(), choice.values.end(), "") != choice.values.end();
  if (choice.key.empty() || choice.values.empty() || empty_value || text.ends_with(',')) {
    throw ConfigError(
        fmt::format("--choose: expected KEY=a,b,... such as collective=ring,tree,nccl, got '{}'", text));
  }
  for (auto value = choice.values.begin(); value != choice.values.end(); ++value) {
    if (std::find(choice.values.begin(), value, *value) != value) {
      throw ConfigError(fmt::format("--choose: '{}' given twice in '{}'", *value, text));
    }
  }
  return choice;
}

HeldOutErrors held_out_errors(const Calibration& calibration, int threads) {
  HeldOutErrors errors;
  errors.predicted = calibration.leave_one_out(threads);
  std::vector<double> relative;
  for (std::size_t m = 0; m < errors.predicted.size(); ++m) {
    const double measured = calibration.measurements()[m].value;
    if (errors.predicted[m]) relative.push_back(std::abs(relative_error(*errors.predicted[m], measured)));
  }
  errors.count = static_cast<int>(relative.size());
  if (relative.empty()) return errors;
  errors.median = median(relative);
  errors.max = *std::max_element(relative.begin(), relative.end());
  double squares = 0;
  for (const double e : relative) squares += e * e;
  errors.rms = std::sqrt(squares / static_cast<double>(relative.size()));
  return errors;
}

namespace {

/// Most candidates --choose fits: far more than any budget of --max-work lets run.
constexpr std::size_t kMaxChoiceCombinations = 1000;

/// Every combination of the choices' values, the first choice varying slowest.
std::vector<std::vector<std::pair<std::string, std::string>>> settings_of(const std::vector<Choice>& choices) {
  std::vector<std::vector<std::pair<std::string, std::string>>> settings{{}};
  for (const Choice& choice : choices) {
    std::vector<std::vector<std::pair<std::string, std::string>>> grown;
    for (const auto& setting : settings) {
      for (const std::string& value : choice.values) {
        grown.push_back(setting);
        grown.back().emplace_back(choice.key, value);
      }
    }
    settings = std::move(grown);
  }
  return settings;
}

/// Scores within this (relative, and absolute near 0) of the best tie with it.
constexpr double kTieTolerance = 1e-6;

/// What the candidates are ranked by: the held-out RMS, or the fit's own
/// RMS relative error where no measurement could be held out.
double score(const Candidate& candidate) {
  if (candidate.held_out.count > 0) return candidate.held_out.rms;
  const auto n = static_cast<double>(candidate.fit.predicted.size());
  return std::sqrt(candidate.fit.sum_squared_rel_error / n);
}

/// Refuses a choice whose values all predict the same, whatever the others
/// are, from the config's values and fitted alike (a key the runs do not
/// read, such as a schedule the measurements name for themselves): choosing
/// among them would pick by position alone. Values whose predictions differ
/// before the fit but not after it are read, and tie (red team: a fitted
/// coordination time absorbs ring's 10 us over recursive doubling at 2 GPUs,
/// and the key was said to be read by no measurement). Candidates run the
/// first choice slowest (settings_of).
void check_every_choice_matters(const std::vector<Choice>& choices, const std::vector<Candidate>& candidates) {
  std::size_t stride = candidates.size();
  for (const Choice& choice : choices) {
    const std::size_t values = choice.values.size();
    stride /= values;
    if (values < 2) continue;
    bool moves = false;
    for (std::size_t i = 0; i < candidates.size() && !moves; ++i) {
      const std::size_t first = i - (i / stride % values) * stride;  // the same setting with this choice's first value
      moves = candidates[i].fit.predicted != candidates[first].fit.predicted ||
              candidates[i].calibration.initial_prediction() != candidates[first].calibration.initial_prediction();
    }
    if (!moves) {
      throw ConfigError(fmt::format("--choose: every value of {} predicts every measurement the same, before the "
                                    "fit and after it: these measurements cannot tell its values apart (a key the "
                                    "runs do not read, or values alike at these runs, as ring and rabenseifner on 2 "
                                    "GPUs); choose another key or measure where they differ",
                                    choice.key));
    }
  }
}

}  // namespace

ModelChoice choose_model(const std::filesystem::path& config, const std::filesystem::path& measurements,
                         const std::vector<std::string>& fit_paths, const std::vector<Choice>& choices,
                         double max_work, int threads) {
  // A key given twice, however spelled, is refused by Calibration::from_files, which reads it in the config.
  std::size_t combinations = 1;  // checked before they are made: each is a whole calibration
  for (const Choice& choice : choices) {
    combinations *= choice.values.size();
    if (combinations > kMaxChoiceCombinations) {
      throw ConfigError(fmt::format("--choose: more than {} combinations of values, each a whole calibration: "
                                    "choose among fewer",
                                    kMaxChoiceCombinations));
    }
  }
  ModelChoice chosen;
  const auto budget = std::make_shared<WorkBudget>(max_work);
  const std::vector<std::vector<std::pair<std::string, std::string>>> settings = settings_of(choices);
  for (const auto& setting : settings) {
    const std::size_t done = chosen.candidates.size();
    if (done > 0) budget->project(0.0, budget->spent() / static_cast<double>(done), settings.size(), done, "--choose candidate");
    try {
      Calibration calibration = Calibration::from_files(config, measurements, fit_paths, setting, budget);
      CalibrationResult fit = calibration.fit();
      HeldOutErrors held_out = held_out_errors(calibration, threads);
      chosen.candidates.push_back({setting, std::move(calibration), std::move(fit), std::move(held_out)});
    } catch (const WorkError& error) {  // the budget is shared: say which candidate it ran out in (red team)
      if (setting.empty()) throw;
      throw WorkError(fmt::format("{} (it ran out fitting --choose {}, candidate {} of {})", error.what(),
                                  choice_label(setting), done + 1, settings.size()));
    } catch (const Error& error) {  // the candidate at fault, where from_files did not say (red team)
      if (setting.empty() || std::string_view(error.what()).starts_with("--choose")) throw;  // no --choose: as said
      throw ConfigError(fmt::format("--choose {}: {}", choice_label(setting), error.what()));
    }
  }
  check_every_choice_matters(choices, chosen.candidates);
  double lowest = std::numeric_limits<double>::infinity();
  for (const Candidate& candidate : chosen.candidates) lowest = std::min(lowest, score(candidate));
  // The first given of those that tie with the lowest score, the others named (red team: of two settings the
  // fitted values made equal, one was chosen without a word, and not always the first given).
  bool found = false;
  for (std::size_t i = 0; i < chosen.candidates.size(); ++i) {
    if (score(chosen.candidates[i]) > lowest * (1 + kTieTolerance) + kTieTolerance) continue;
    if (found) {
      chosen.tied.push_back(i);
    } else {
      chosen.best = i;
      found = true;
    }
  }
  return chosen;
}

}  // namespace mgsim
