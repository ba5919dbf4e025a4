#include "mgsim/plan.hpp"

#include <algorithm>

namespace mgsim {

std::string_view collective_kind_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::sparse_allgather:
      return "allgather";
    case CollectiveKind::reduce_scatter:
      return "reduce_scatter";
    case CollectiveKind::param_allgather:
      return "param_allgather";
    case CollectiveKind::allreduce:
      break;
  }
  return "allreduce";
}

SimTime CommProblem::ready_of(int begin, int end) const {
  return *std::max_element(ready.begin() + begin, ready.begin() + end);
}

std::int64_t CommProblem::bytes_of(int begin, int end) const {
  std::int64_t total = 0;
  for (int t = begin; t < end; ++t) total += layout->bytes[static_cast<std::size_t>(t)];
  return total;
}

std::int64_t CommProblem::elements_of(int begin, int end) const {
  std::int64_t total = 0;
  for (int t = begin; t < end; ++t) total += layout->elements[static_cast<std::size_t>(t)];
  return total;
}

namespace {

/// Tensors [begin, end), each GPU contributing all their bytes; no cost yet.
Message covering(const CommProblem& problem, int begin, int end, SimTime not_before) {
  Message message;
  message.begin = begin;
  message.end = end;
  message.bytes = problem.bytes_of(begin, end);
  message.sent_bytes = message.bytes;
  message.not_before = not_before;
  return message;
}

}  // namespace

Message make_message(const CommProblem& problem, int begin, int end, SimTime not_before, SimTime overhead) {
  Message message = covering(problem, begin, end, not_before);
  message.duration = problem.cost(message.bytes) + overhead;
  return message;
}

Message make_reduce_scatter(const CommProblem& problem, int begin, int end, SimTime not_before) {
  Message message = covering(problem, begin, end, not_before);
  message.duration = problem.cost.reduce_scatter(message.bytes);
  message.kind = CollectiveKind::reduce_scatter;
  return message;
}

Message make_param_allgather(const CommProblem& problem, int begin, int end, bool before_backward) {
  Message message = covering(problem, begin, end, 0);
  const std::int64_t gpus = problem.cost.gpus();
  message.sent_bytes = (message.bytes + gpus - 1) / gpus;
  message.duration = problem.cost.param_allgather(message.bytes);
  message.kind = CollectiveKind::param_allgather;
  message.before_backward = before_backward;
  return message;
}

bool gates_backward(const Plan& plan) {
  return std::any_of(plan.begin(), plan.end(), [](const Message& message) { return message.before_backward; });
}

bool gathers_parameters(const Plan& plan) {
  return std::any_of(plan.begin(), plan.end(),
                     [](const Message& message) { return message.kind == CollectiveKind::param_allgather; });
}

Plan plan_from_layer_groups(const CommProblem& problem, const std::vector<int>& group_end) {
  Plan plan;
  plan.reserve(group_end.size());
  int first_layer = 0;
  for (int end_layer : group_end) {
    plan.push_back(make_message(problem, problem.layer_begin(first_layer), problem.layer_begin(end_layer)));
    first_layer = end_layer;
  }
  return plan;
}

}  // namespace mgsim
