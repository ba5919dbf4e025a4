#pragma once
// The communication problem a schedule solves and the plan it returns.
//
// A CommProblem is what every GPU has produced and when: the gradient tensors
// in backward order with their sizes and the time each exists on *all* GPUs,
// plus the cost of an all-reduce at this GPU count. A Plan is the schedule's
// answer: the messages, in the order the communication channel runs them, each
// a contiguous range of tensors with the earliest time it may start. The
// engine and the closed-form evaluator both replay a plan; neither plans.

#include <cstdint>
#include <vector>

#include "mgsim/collective.hpp"
#include "mgsim/time.hpp"
#include "mgsim/trace.hpp"

namespace mgsim {

struct CommProblem {
  const TensorLayout* layout = nullptr;  ///< tensor sizes and layer boundaries
  /// Times are from the backward start, which every GPU shares.
  std::vector<SimTime> ready;            ///< per tensor (backward order): ready on every GPU
  SimTime compute_end = 0;               ///< when the last GPU ends its backward
  std::vector<SimTime> layer_end;        ///< per backward-order layer: its backward ends on every GPU
  /// Per layer, forward order: the next iteration's forward on the slowest
  /// GPU, which waits for the messages carrying the layer's gradients.
  std::vector<SimTime> forward;
  CommCost cost;                         ///< all-reduce cost at this GPU count

  int tensor_count() const { return layout->tensor_count(); }
  int layer_count() const { return layout->layer_count(); }
  /// Tensor range [begin, end) of backward-order layer u.
  int layer_begin(int u) const { return layout->layer_begin[static_cast<std::size_t>(u)]; }
  /// Latest ready time of tensors [begin, end).
  SimTime ready_of(int begin, int end) const;
  /// Total bytes of tensors [begin, end).
  std::int64_t bytes_of(int begin, int end) const;
  /// Total elements of tensors [begin, end).
  std::int64_t elements_of(int begin, int end) const;
};

/// Which collective a message is.
enum class CollectiveKind { allreduce, allgather };

/// One collective: tensors [begin, end) in backward order.
struct Message {
  int begin = 0;
  int end = 0;
  std::int64_t bytes = 0;       ///< gradient bytes the message covers (its dense size)
  std::int64_t sent_bytes = 0;  ///< bytes each GPU contributes: `bytes` dense, values + indices sparse
  SimTime duration = 0;         ///< collective time plus any overhead the schedule adds
  SimTime not_before = 0;       ///< the schedule's own earliest start (e.g. a Horovod cycle)
  /// Compute every GPU spends on this message before it can be sent (top-k
  /// selection), right after the backward of the message's last layer and
  /// before the next layer's backward. Only plans whose messages end on layer
  /// boundaries may use it.
  SimTime selection = 0;
  CollectiveKind kind = CollectiveKind::allreduce;  ///< all-gather for sparsified gradients
};

/// Messages in the order the communication channel runs them; together they
/// cover every tensor once, in backward order.
using Plan = std::vector<Message>;

/// A message for tensors [begin, end) costed by the problem's collective, plus
/// `overhead` (e.g. fusion-buffer copies).
Message make_message(const CommProblem& problem, int begin, int end, SimTime not_before = 0, SimTime overhead = 0);

/// One message per backward-order layer group: `group_end[i]` is the layer
/// index one past the i-th group. Used by the layer-granular schedules.
Plan plan_from_layer_groups(const CommProblem& problem, const std::vector<int>& group_end);

}  // namespace mgsim
