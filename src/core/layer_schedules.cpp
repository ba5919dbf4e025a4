// Schedules that group whole layers: wfbp, single, mgwfbp and optimal.
// Layers are indexed in backward order here (u = 0 is the last layer, the
// first to be ready); docs/domain.md section 1 writes the same rules with forward
// indices l = L - u.

#include <limits>
#include <numeric>
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

/// best(k) = min over g < k of max(best(g), ready(g..k-1)) + T(bytes(g..k-1)):
/// the earliest end of communicating the first k layers, exact for any cost
/// function because a group's end never decreases when the previous one grows.
class Optimal : public Schedule {
 public:
  Plan plan(const CommProblem& problem) const override {
    const int n = problem.layer_count();
    const std::vector<SimTime> ready = layer_ready(problem);
    std::vector<std::int64_t> bytes;
    for (int u = 0; u < n; ++u) bytes.push_back(problem.bytes_of(problem.layer_begin(u), problem.layer_begin(u + 1)));
    std::vector<SimTime> best(static_cast<std::size_t>(n) + 1, 0);
    std::vector<int> cut(static_cast<std::size_t>(n) + 1, 0);
    for (int k = 1; k <= n; ++k) {
      best[k] = std::numeric_limits<SimTime>::max();
      SimTime group_ready = 0;
      std::int64_t group_bytes = 0;
      for (int g = k - 1; g >= 0; --g) {
        group_ready = std::max(group_ready, ready[g]);
        group_bytes += bytes[g];
        const SimTime end = std::max(best[g], group_ready) + problem.cost(group_bytes);
        if (end < best[k]) {
          best[k] = end;
          cut[k] = g;
        }
      }
    }
    std::vector<int> group_end;
    for (int k = n; k > 0; k = cut[k]) group_end.insert(group_end.begin(), k);
    return plan_from_layer_groups(problem, group_end);
  }
};

}  // namespace

std::unique_ptr<Schedule> make_wfbp(const ParamValues&, const SparseOptions&) { return std::make_unique<Wfbp>(); }
std::unique_ptr<Schedule> make_single(const ParamValues&, const SparseOptions&) { return std::make_unique<Single>(); }
std::unique_ptr<Schedule> make_mgwfbp(const ParamValues&, const SparseOptions&) { return std::make_unique<MgWfbp>(); }
std::unique_ptr<Schedule> make_optimal(const ParamValues&, const SparseOptions&) { return std::make_unique<Optimal>(); }

}  // namespace mgsim
