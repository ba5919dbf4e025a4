// Sharded schedules: DeAR, ZeRO stages 1 to 3 and PyTorch FSDP
// (docs/schedules.md, "Sharded schedules"; timing: docs/domain.md section
// 1b). Each reduce-scatters the gradients, so that every GPU holds 1/P of
// their sum, and all-gathers the parameters (DeAR: the reduced gradients;
// the bytes are the same) before the next forward needs them. They differ in
// how they group tensors and when the all-gathers run:
//
// - dear: reduce-scatter of layer groups during backward, all-gather of each
//   group in forward order overlapped with the next forward;
// - zero1 / zero2: element buckets reduce-scattered after the backward /
//   during it, then one all-gather of every parameter before the forward;
// - zero3 / fsdp: parameters all-gathered per layer before its forward and
//   again before its backward, gradients reduce-scattered in element buckets
//   (zero3) or per layer (fsdp) during the backward.

#include <algorithm>
#include <utility>
#include <vector>

#include "schedules.hpp"

namespace mgsim {
namespace {

/// Tensors [first, second) in backward order (names here are unique in the
/// library: MGSIM_UNITY_BUILD batches this file with others).
using TensorRange = std::pair<int, int>;

/// DeAR's tensor fusion (dear/dopt_rsag.py, _generate_groups_with_threshold):
/// layers in forward order join the current group while it is empty or its
/// size plus theirs stays below the threshold. Groups in backward order.
std::vector<TensorRange> dear_groups(const CommProblem& problem, double threshold_bytes) {
  std::vector<TensorRange> groups;  // built from the first forward layer, the last in backward order
  const int layers = problem.layer_count();
  int end = problem.tensor_count();
  double size = 0;
  for (int u = layers - 1; u >= 0; --u) {
    const int begin = problem.layer_begin(u);
    const auto bytes = static_cast<double>(problem.bytes_of(begin, problem.layer_begin(u + 1)));
    if (size > 0 && size + bytes >= threshold_bytes) {
      groups.emplace_back(problem.layer_begin(u + 1), end);
      end = problem.layer_begin(u + 1);
      size = 0;
    }
    size += bytes;
  }
  groups.emplace_back(0, end);
  return {groups.rbegin(), groups.rend()};
}

/// DeepSpeed's gradient buckets (reduce_bucket_size): tensors in backward
/// order fill a bucket while its elements stay within the cap; a tensor that
/// would pass it starts the next bucket (a larger tensor goes alone).
std::vector<TensorRange> element_buckets(const CommProblem& problem, std::int64_t cap) {
  std::vector<TensorRange> buckets;
  int begin = 0;
  std::int64_t elements = 0;
  for (int t = 0; t < problem.tensor_count(); ++t) {
    const std::int64_t own = problem.layout->elements[static_cast<std::size_t>(t)];
    if (t > begin && elements + own > cap) {
      buckets.emplace_back(begin, t);
      begin = t;
      elements = 0;
    }
    elements += own;
  }
  buckets.emplace_back(begin, problem.tensor_count());
  return buckets;
}

/// One range per layer, in backward order (FSDP units).
std::vector<TensorRange> layer_ranges(const CommProblem& problem) {
  std::vector<TensorRange> layers;
  for (int u = 0; u < problem.layer_count(); ++u) {
    layers.emplace_back(problem.layer_begin(u), problem.layer_begin(u + 1));
  }
  return layers;
}

/// DeAR: each group reduce-scattered once its gradients exist, then each
/// all-gathered in forward order, the next forward's layers waiting for theirs.
class Dear : public Schedule {
 public:
  explicit Dear(double threshold_bytes) : threshold_bytes_(threshold_bytes) {}

  Plan plan(const CommProblem& problem) const override {
    const std::vector<TensorRange> groups = dear_groups(problem, threshold_bytes_);
    Plan plan;
    for (const auto& [begin, end] : groups) plan.push_back(make_reduce_scatter(problem, begin, end));
    for (auto group = groups.rbegin(); group != groups.rend(); ++group) {
      plan.push_back(make_param_allgather(problem, group->first, group->second));
    }
    return plan;
  }

 private:
  double threshold_bytes_;
};

/// ZeRO stages 1 and 2: buckets reduce-scattered during the backward (stage
/// 2, overlap_comm) or after it (stage 1), then one all-gather of every
/// parameter before the next forward.
class ZeroOneTwo : public Schedule {
 public:
  ZeroOneTwo(std::int64_t bucket_elements, bool overlap) : bucket_elements_(bucket_elements), overlap_(overlap) {}

  Plan plan(const CommProblem& problem) const override {
    Plan plan;
    const SimTime not_before = overlap_ ? 0 : problem.compute_end;
    for (const auto& [begin, end] : element_buckets(problem, bucket_elements_)) {
      plan.push_back(make_reduce_scatter(problem, begin, end, not_before));
    }
    plan.push_back(make_param_allgather(problem, 0, problem.tensor_count()));
    return plan;
  }

 private:
  std::int64_t bucket_elements_;
  bool overlap_;
};

/// ZeRO stage 3 and FSDP: in the backward, while layer u computes, the
/// parameters of layer u + 1 (backward order) are gathered (FSDP's
/// BACKWARD_PRE prefetch: issued before u's reduce-scatter), then the
/// gradient buckets that close in u are reduce-scattered; the first layer of
/// the backward keeps the parameters its forward gathered (FSDP does not
/// reshard the root). Then each layer's parameters are gathered in forward
/// order for the next forward.
class ZeroThree : public Schedule {
 public:
  explicit ZeroThree(std::int64_t bucket_elements) : bucket_elements_(bucket_elements) {}

  Plan plan(const CommProblem& problem) const override {
    const std::vector<TensorRange> gradients =
        bucket_elements_ > 0 ? element_buckets(problem, bucket_elements_) : layer_ranges(problem);
    const int layers = problem.layer_count();
    Plan plan;
    std::size_t next = 0;
    for (int u = 0; u < layers; ++u) {
      if (u + 1 < layers) {
        plan.push_back(make_param_allgather(problem, problem.layer_begin(u + 1), problem.layer_begin(u + 2), true));
      }
      for (; next < gradients.size() && gradients[next].second <= problem.layer_begin(u + 1); ++next) {
        plan.push_back(make_reduce_scatter(problem, gradients[next].first, gradients[next].second));
      }
    }
    for (int u = layers - 1; u >= 0; --u) {
      plan.push_back(make_param_allgather(problem, problem.layer_begin(u), problem.layer_begin(u + 1)));
    }
    return plan;
  }

 private:
  std::int64_t bucket_elements_;  ///< 0: one reduce-scatter per layer
};

}  // namespace

std::unique_ptr<Schedule> make_dear(const ParamValues& given, const SparseOptions&) {
  return std::make_unique<Dear>(param_value(given, find_schedule("dear").params, "threshold_mb") * 1024.0 * 1024.0);
}

std::unique_ptr<Schedule> make_zero1(const ParamValues& given, const SparseOptions&) {
  return std::make_unique<ZeroOneTwo>(whole_param("zero1", given, "reduce_bucket_size"), false);
}

std::unique_ptr<Schedule> make_zero2(const ParamValues& given, const SparseOptions&) {
  return std::make_unique<ZeroOneTwo>(whole_param("zero2", given, "reduce_bucket_size"), true);
}

std::unique_ptr<Schedule> make_zero3(const ParamValues& given, const SparseOptions&) {
  return std::make_unique<ZeroThree>(whole_param("zero3", given, "reduce_bucket_size"));
}

std::unique_ptr<Schedule> make_fsdp(const ParamValues&, const SparseOptions&) { return std::make_unique<ZeroThree>(0); }

}  // namespace mgsim
