// Schedules that group whole layers: wfbp, single, mgwfbp and optimal.
// Layers are indexed in backward order here (u = 0 is the last layer, the
// first to be ready); docs/domain.md section 1 writes the same rules with forward
// indices l = L - u.

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

#include "schedules.hpp"

namespace mgsim {
namespace {

/// Ready time of each backward-order layer: its latest tensor.
std::vector<SimTime> layer_ready(const CommProblem& problem) {
  std::vector<SimTime> ready;
  for (int u = 0; u < problem.layer_count(); ++u) {
    ready.push_back(problem.ready_of(problem.layer_begin(u), problem.layer_begin(u + 1)));
  }
  return ready;
}

class Wfbp : public Schedule {
 public:
  Plan plan(const CommProblem& problem) const override {
    std::vector<int> group_end(static_cast<std::size_t>(problem.layer_count()));
    std::iota(group_end.begin(), group_end.end(), 1);
    return plan_from_layer_groups(problem, group_end);
  }
};

class Single : public Schedule {
 public:
  Plan plan(const CommProblem& problem) const override { return {make_message(problem, 0, problem.tensor_count())}; }
};

/// The published MG-WFBP rule: walking from the last layer to the second,
/// merge layer l into l-1 when l-1 becomes ready less than `a` after l's
/// communication could start (tau_b(l-1) + t_b(l-1) - tau_c(l) < a).
class MgWfbp : public Schedule {
 public:
  Plan plan(const CommProblem& problem) const override {
    const int n = problem.layer_count();
    const std::vector<SimTime> ready = layer_ready(problem);
    std::vector<std::int64_t> bytes;
    std::vector<SimTime> comm;
    for (int u = 0; u < n; ++u) {
      bytes.push_back(problem.bytes_of(problem.layer_begin(u), problem.layer_begin(u + 1)));
      comm.push_back(problem.cost(bytes.back()));
    }
    const SimTime a = problem.cost.startup();
    std::vector<int> group_end;
    SimTime comm_start = ready[0];  // tau_c of layer u, updated as u advances
    for (int u = 0; u + 1 < n; ++u) {
      if (u > 0) comm_start = std::max(comm_start + comm[u - 1], ready[u]);
      if (ready[u + 1] - comm_start < a) {
        bytes[u + 1] += bytes[u];
        comm[u] = 0;
        comm[u + 1] = problem.cost(bytes[u + 1]);
      } else {
        group_end.push_back(u + 1);
      }
    }
    group_end.push_back(n);
    return plan_from_layer_groups(problem, group_end);
  }
};

/// Minimum of values set one by one at positions 0..n-1 (unset: +inf), and
/// the last position of a range whose value is below a threshold.
class MinTree {
 public:
  explicit MinTree(int n) : leaves_(std::bit_ceil(static_cast<std::size_t>(std::max(n, 1)))), min_(2 * leaves_, kInf) {}

  void set(int i, double value) {
    std::size_t node = leaves_ + static_cast<std::size_t>(i);
    min_[node] = value;
    for (node /= 2; node >= 1; node /= 2) min_[node] = std::min(min_[2 * node], min_[2 * node + 1]);
  }

  /// Minimum over positions [lo, hi].
  double min(int lo, int hi) const {
    double found = kInf;
    for (std::size_t l = leaves_ + static_cast<std::size_t>(lo), r = leaves_ + static_cast<std::size_t>(hi) + 1; l < r;
         l /= 2, r /= 2) {
      if (l & 1) found = std::min(found, min_[l++]);
      if (r & 1) found = std::min(found, min_[--r]);
    }
    return found;
  }

  /// The largest i in [lo, hi] whose value is below `threshold`, or -1.
  int last_below(int lo, int hi, double threshold) const {
    return lo > hi ? -1 : last_below(1, 0, static_cast<int>(leaves_) - 1, lo, hi, threshold);
  }

 private:
  static constexpr double kInf = std::numeric_limits<double>::infinity();

  int last_below(std::size_t node, int first, int last, int lo, int hi, double threshold) const {
    if (last < lo || first > hi || min_[node] >= threshold) return -1;
    if (first == last) return first;
    const int middle = first + (last - first) / 2;
    const int right = last_below(2 * node + 1, middle + 1, last, lo, hi, threshold);
    return right >= 0 ? right : last_below(2 * node, first, middle, lo, hi, threshold);
  }

  std::size_t leaves_;
  std::vector<double> min_;
};

/// best(k) = min over g < k of max(best(g), ready(g..k-1)) + T(bytes(g..k-1)):
/// the earliest end of communicating the first k layers, exact for any cost
/// function because a group's end never decreases when the previous one grows.
/// Ties go to the latest start g. plan() returns the groups; the two searches
/// below return cut[k], the start of the last group of the best k-layer plan.
class Optimal : public Schedule {
 public:
  Plan plan(const CommProblem& problem) const override {
    const int n = problem.layer_count();
    const std::vector<SimTime> ready = layer_ready(problem);
    std::vector<std::int64_t> prefix{0};  // bytes of layers [0, u)
    for (int u = 0; u < n; ++u) {
      prefix.push_back(prefix.back() + problem.bytes_of(problem.layer_begin(u), problem.layer_begin(u + 1)));
    }
    // The affine search prices candidates up to the whole model's bytes: it
    // runs where those take at most an hour (limits.md), the scan elsewhere.
    const std::optional<CommCost::Line> line = problem.cost.line_ns();
    const std::vector<int> cut =
        line && std::is_sorted(ready.begin(), ready.end()) && problem.cost.within_limit(prefix.back())
            ? affine_cuts(problem, ready, prefix, *line)
            : scanned_cuts(problem, ready, prefix);
    std::vector<int> group_end;
    for (int k = n; k > 0; k = cut[static_cast<std::size_t>(k)]) group_end.insert(group_end.begin(), k);
    return plan_from_layer_groups(problem, group_end);
  }
  /// A pass along the line, or every pair of units (measured: 580 tensors of GPT-2 XL on `nccl` plan in 24 ms,
  /// 0.7 steps a pair at 10 M steps/s; on `ring` 0.1 ms).
  double plan_steps(int units, const TensorLayout&, bool affine) const override {
    return affine ? units : static_cast<double>(units) * units;
  }

 private:
  /// Every start g of every group: O(L^2) prices, for any cost function.
  /// A group whose message would take more than an hour is no candidate;
  /// where a layer alone takes that long, no plan runs, and its price says so.
  static std::vector<int> scanned_cuts(const CommProblem& problem, const std::vector<SimTime>& ready,
                                       const std::vector<std::int64_t>& prefix) {
    const int n = problem.layer_count();
    std::vector<SimTime> best(static_cast<std::size_t>(n) + 1, 0);
    std::vector<int> cut(static_cast<std::size_t>(n) + 1, 0);
    for (int k = 1; k <= n; ++k) {
      best[k] = std::numeric_limits<SimTime>::max();
      SimTime group_ready = 0;
      for (int g = k - 1; g >= 0; --g) {
        group_ready = std::max(group_ready, ready[g]);
        const std::optional<SimTime> cost = problem.cost.within_limit(prefix[k] - prefix[g]);
        if (!cost) continue;
        const SimTime end = std::max(best[g], group_ready) + *cost;
        if (end < best[k]) {
          best[k] = end;
          cut[k] = g;
        }
      }
      // No group ending at layer k is within an hour, the layer alone
      // included: pricing it throws the error that names it.
      if (best[k] == std::numeric_limits<SimTime>::max()) problem.cost(prefix[k] - prefix[k - 1]);
    }
    return cut;
  }

  /// The same cuts when T(M) is llround(a + s*M) (so never decreasing) up to
  /// floating-point error, and layers become ready in order, so that
  /// ready(g..k-1) = ready[k-1] =: R.
  ///  (1) best(k) <= best(k+1): in the best plan of k+1 layers, drop layer k
  ///      from the last group; that group gets no later ready time and no
  ///      more bytes, so it does not end later (T never decreases).
  ///  (2) By (1) the starts with best(g) <= R are a prefix [0, gP]. Each of
  ///      them ends at R + T(bytes(g..k-1)), least for the largest, gP (ties:
  ///      gP is also the latest start). No other start in [0, gP] can win.
  ///  (3) A start g > gP waits for best(g) > R and ends at best(g) +
  ///      T(S(k) - S(g)), S the byte prefix sums. As best(g) is whole, that
  ///      is floor(z(g) + 1/2) with z(g) = W(g) + X, W(g) = best(g) - s*S(g)
  ///      and X = a + s*S(k), all computed within `error` in double. The end
  ///      never decreases with z, so the window's least end is one of two
  ///      values v, v + 1, v = floor(min W + X - error + 1/2); a start can
  ///      end at v only if W(g) < v + 1/2 - X + error. Walking those starts
  ///      from the right in a MinTree of W and pricing each exactly, the
  ///      first that ends at v is the latest start that ends there; the
  ///      starts priced before it have z within `error` of v + 1/2, so a
  ///      layer costs O(log L) unless many starts are that close (several
  ///      equal W do not matter: the walk stops at the first). Only values
  ///      up to gP's end are tried; a window start that ties it wins, being
  ///      later.
  static std::vector<int> affine_cuts(const CommProblem& problem, const std::vector<SimTime>& ready,
                                      const std::vector<std::int64_t>& prefix, CommCost::Line line) {
    const int n = problem.layer_count();
    std::vector<SimTime> best(static_cast<std::size_t>(n) + 1, 0);
    std::vector<int> cut(static_cast<std::size_t>(n) + 1, 0);
    MinTree waiting(n + 1);
    waiting.set(0, 0.0);
    int last_free = 0;  // gP
    for (int k = 1; k <= n; ++k) {
      const SimTime group_ready = ready[k - 1];
      while (last_free + 1 < k && best[last_free + 1] <= group_ready) ++last_free;
      best[k] = group_ready + problem.cost(prefix[k] - prefix[last_free]);
      cut[k] = last_free;
      if (last_free + 1 < k) {
        const double x = line.startup + line.slope * static_cast<double>(prefix[k]);
        // Each double operation of the model, the slope, W and X errs by at
        // most 2^-53 of a term no larger than x + best[k] (no W exceeds it):
        // 2^-46 of it is 128 such errors, and 1e-6 ns covers terms near zero. (On the
        // benchmark's traces 2^-54 still gives the plain search's cuts.)
        const double error = 1e-6 + 0x1p-46 * (x + static_cast<double>(best[k]));
        const auto least = static_cast<SimTime>(std::floor(waiting.min(last_free + 1, k - 1) + x - error + 0.5));
        for (SimTime v = least; v <= least + 1 && v <= best[k]; ++v) {
          const double threshold = static_cast<double>(v) + 0.5 - x + error;
          SimTime end = v + 1;
          int g = k;
          while (end > v && (g = waiting.last_below(last_free + 1, g - 1, threshold)) >= 0) {
            end = best[g] + problem.cost(prefix[k] - prefix[g]);
          }
          if (g >= 0) {
            best[k] = end;
            cut[k] = g;
            break;
          }
        }
      }
      waiting.set(k, static_cast<double>(best[k]) - line.slope * static_cast<double>(prefix[k]));
    }
    return cut;
  }
};

}  // namespace

std::unique_ptr<Schedule> make_wfbp(const ParamValues&, const SparseOptions&) { return std::make_unique<Wfbp>(); }
std::unique_ptr<Schedule> make_single(const ParamValues&, const SparseOptions&) { return std::make_unique<Single>(); }
std::unique_ptr<Schedule> make_mgwfbp(const ParamValues&, const SparseOptions&) { return std::make_unique<MgWfbp>(); }
std::unique_ptr<Schedule> make_optimal(const ParamValues&, const SparseOptions&) { return std::make_unique<Optimal>(); }

}  // namespace mgsim
