#include "progress_bar.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace mgsim::cli {

ProgressBar::ProgressBar(std::size_t first, std::size_t total, std::chrono::milliseconds show_after)
    : enabled_(::isatty(STDERR_FILENO) == 1), first_(first), total_(total), show_after_(show_after),
      start_(Clock::now()) {}

void ProgressBar::update(std::size_t done) {
  if (!enabled_ || total_ == 0) return;
  const auto now = Clock::now();
  if (now - start_ < show_after_ && !drawn_) return;
  if (done < total_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  drawn_ = true;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(done - first_) / elapsed : 0.0;
  const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0.0;
  constexpr int kWidth = 30;
  const auto filled = static_cast<int>(kWidth * static_cast<double>(done) / static_cast<double>(total_));
  fmt::print(stderr, "\r[{:=<{}}{:<{}}] {}/{} runs  {:.0f} runs/s  ETA {:.1f} s ", "", filled, "", kWidth - filled,
             done, total_, rate, eta);
  if (done == total_) fmt::print(stderr, "\n");
  std::fflush(stderr);
}

}  // namespace mgsim::cli
