#pragma once
// Model choice (`mgsim calibrate --choose KEY=a,b,...`, docs/fidelity.md):
// every combination of the candidate values is fitted on the same
// measurements, and the one with the smallest cross-validated error (the
// root mean square of the leave-one-out errors) is kept, so that a model is
// chosen for how it predicts, not for how well it fits.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mgsim/app/calibrate.hpp"

namespace mgsim {

/// One --choose: a config key (dotted path) and its candidate text values.
struct Choice {
  std::string key;
  std::vector<std::string> values;
};

/// Reads "key=a,b,c". Throws ConfigError naming the option on a malformed one.
Choice parse_choice(const std::string& text);

/// The held-out (leave-one-out) errors of a fit, summarised.
struct HeldOutErrors {
  std::vector<std::optional<double>> predicted;  ///< per measurement; empty where the others cannot fit
  int count = 0;                                 ///< measurements with a held-out prediction
  double median = 0, max = 0, rms = 0;           ///< of |relative error| over those
};

/// Leave-one-out of `calibration` (its fits on `threads`
/// threads, 0: one per hardware thread), and its summary.
HeldOutErrors held_out_errors(const Calibration& calibration, int threads);

/// A fitted candidate: its key = value settings, the fit and its held-out errors.
struct Candidate {
  std::vector<std::pair<std::string, std::string>> setting;
  Calibration calibration;
  CalibrationResult fit;
  HeldOutErrors held_out;
};

/// Fits every combination of `choices` (the base config with those values in
/// place) and returns them all, the best (smallest held-out RMS, the fit's
/// error where no measurement can be held out) at `best`. Throws ConfigError
/// when a candidate cannot be read or run, naming the setting.
struct ModelChoice {
  std::vector<Candidate> candidates;
  std::size_t best = 0;
  /// The other candidates that score as the best within a part in a million:
  /// the measurements cannot tell them apart, and the first given of them
  /// is `best`.
  std::vector<std::size_t> tied;
};
/// Every candidate's fits share one WorkBudget of `max_work` steps; the
/// held-out fits run on `threads` threads (0: one per hardware thread).
ModelChoice choose_model(const std::filesystem::path& config, const std::filesystem::path& measurements,
                         const std::vector<std::string>& fit_paths, const std::vector<Choice>& choices,
                         double max_work = kDefaultMaxWork, int threads = 1);

}  // namespace mgsim
