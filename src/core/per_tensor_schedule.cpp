// Message unit "tensor" for the schedules that group whole layers: the
// schedule plans on a view of the problem in which every tensor is a layer of
// its own, so its groups become contiguous tensor ranges. Message ranges are
// tensor indices in both views, so the plan is valid for the real layout.

#include <numeric>

#include "schedules.hpp"

namespace mgsim {
namespace {

/// The same tensors in the same order, each its own layer; the per-layer
/// names and ends are those of the layer that owns the tensor.
TensorLayout one_tensor_per_layer(const TensorLayout& layout) {
  const int n = layout.tensor_count();
  TensorLayout split;
  split.bytes = layout.bytes;
  split.elements = layout.elements;
  split.index_in_layer.assign(static_cast<std::size_t>(n), 0);
  split.layer_begin.resize(static_cast<std::size_t>(n) + 1);
  std::iota(split.layer_begin.begin(), split.layer_begin.end(), 0);
  for (int t = 0; t < n; ++t) {
    split.layer.push_back(n - 1 - t);  // forward index of unit t
    split.layer_name.push_back(
        layout.layer_name[static_cast<std::size_t>(layout.layer[static_cast<std::size_t>(n - 1 - t)])]);
  }
  return split;
}

class PerTensor : public Schedule {
 public:
  explicit PerTensor(std::unique_ptr<Schedule> layer_schedule) : layer_schedule_(std::move(layer_schedule)) {}

  Plan plan(const CommProblem& problem) const override {
    const TensorLayout split = one_tensor_per_layer(*problem.layout);
    CommProblem per_tensor = problem;
    per_tensor.layout = &split;
    per_tensor.layer_end.clear();
    for (int t = 0; t < problem.tensor_count(); ++t) {
      per_tensor.layer_end.push_back(problem.layer_end[static_cast<std::size_t>(problem.layout->backward_layer(t))]);
    }
    return layer_schedule_->plan(per_tensor);
  }
  double plan_steps(int, const TensorLayout& layout, bool affine) const override {
    return layer_schedule_->plan_steps(layout.tensor_count(), layout, affine);
  }

 private:
  std::unique_ptr<Schedule> layer_schedule_;
};

}  // namespace

std::unique_ptr<Schedule> per_tensor(std::unique_ptr<Schedule> layer_schedule) {
  return std::make_unique<PerTensor>(std::move(layer_schedule));
}

}  // namespace mgsim
