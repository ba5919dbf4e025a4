#pragma once
// A one-line progress bar on stderr (runs done, rate, ETA) for `mgsim sweep`
// and `mgsim run`: drawn only when stderr is a terminal, only once the work
// has taken `show_after`, redrawn at most ten times a second; stdout is
// never touched (docs/output-format.md).

#include <chrono>
#include <cstddef>

namespace mgsim::cli {

class ProgressBar {
 public:
  /// `first` of `total` runs are done already (a resumed sweep).
  ProgressBar(std::size_t first, std::size_t total, std::chrono::milliseconds show_after);
  /// `done` runs are done; the last call (done == total) ends the line, if one was drawn.
  void update(std::size_t done);

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool drawn_ = false;
  std::size_t first_;
  std::size_t total_;
  Clock::duration show_after_;
  Clock::time_point start_;
  Clock::time_point last_{};
};

}  // namespace mgsim::cli
