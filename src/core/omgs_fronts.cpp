// The Pareto set of a boundary as the lower envelope of its runs (see
// omgs_fronts.hpp).

#include "omgs_fronts.hpp"

namespace mgsim::omgs {

Run::Run(const std::vector<State>& set, int g, SimTime group_ready, SimTime layer_end, SimTime selection,
         SimTime exchange, SimTime lag)
    : from_(&set), g_(g), group_ready_(group_ready), layer_end_(layer_end), selection_(selection), exchange_(exchange) {
  // E - S falls along a Pareto set.
  moved_ = static_cast<std::size_t>(
      std::partition_point(set.begin(), set.end(), [&](const State& s) { return s.shift + lag < s.channel_free; }) -
      set.begin());
  end_ = std::min(moved_ + 1, set.size());
}

// Galloping, then bisection: the stretch skipped is often short.
std::size_t Run::first_below(std::size_t i, SimTime least) const {
  const auto above = [&](const State& s) { return s.channel_free + exchange_ >= least; };
  std::size_t lo = i;  // the candidates before lo are above
  std::size_t hi = i;  // hi == moved_, or its candidate is below
  for (std::size_t width = 1; hi < moved_ && above((*from_)[hi]); width *= 2) {
    lo = hi + 1;
    hi = std::min(moved_, hi + width);
  }
  const auto start = from_->begin() + static_cast<std::ptrdiff_t>(lo);
  return lo + static_cast<std::size_t>(
                  std::partition_point(start, from_->begin() + static_cast<std::ptrdiff_t>(hi), above) - start);
}

// The runs are merged lazily, a heap of their next candidates, and one run is
// followed without the heap while its candidates come first. Once a run's
// candidate is dominated, so are its next ones until E falls below the least
// so far (E falls along a run): skipped by first_below().
void pareto(const std::vector<Run>& runs, std::vector<Head>& heads, std::vector<State>& out) {
  const auto later = [](const Head& a, const Head& b) { return before(b.state, a.state); };
  heads.clear();
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].begin() < runs[r].end()) heads.push_back({runs[r].at(runs[r].begin()), r});
  }
  std::make_heap(heads.begin(), heads.end(), later);
  out.clear();
  while (!heads.empty()) {
    std::pop_heap(heads.begin(), heads.end(), later);
    Head head = heads.back();
    heads.pop_back();
    const Run& run = runs[head.run];
    while (true) {
      auto next = static_cast<std::size_t>(head.state.from_state) + 1;
      if (out.empty() || head.state.channel_free < out.back().channel_free) {
        out.push_back(head.state);
      } else {
        next = run.first_below(next, out.back().channel_free);
      }
      if (next >= run.end()) break;
      head.state = run.at(next);
      if (!heads.empty() && before(heads.front().state, head.state)) {
        heads.push_back(head);
        std::push_heap(heads.begin(), heads.end(), later);
        break;
      }
    }
  }
}

}  // namespace mgsim::omgs
