#include "mgsim/plan.hpp"

#include <algorithm>

namespace mgsim {

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

Message make_message(const CommProblem& problem, int begin, int end, SimTime not_before, SimTime overhead) {
  Message message;
  message.begin = begin;
  message.end = end;
  message.bytes = problem.bytes_of(begin, end);
  message.sent_bytes = message.bytes;
  message.duration = problem.cost(message.bytes) + overhead;
  message.not_before = not_before;
  return message;
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
