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
#include <string_view>
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
  /// The slowest GPU's speed relative to the trace's: a message's top-k
  /// selection (priced at the trace's speed) takes 1/speed as long on it.
  double compute_speed = 1.0;

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

/// Which collective a message is. Gradient messages (all but a parameter
/// all-gather) wait for their tensors' gradients; together they reduce every
/// gradient byte once.
enum class CollectiveKind {
  allreduce,         ///< gradients summed on every GPU
  sparse_allgather,  ///< sparsified gradients (values + indices) gathered from every GPU
  reduce_scatter,    ///< gradients summed, each GPU keeping its 1/P shard (DeAR, ZeRO, FSDP)
  param_allgather,   ///< each GPU's 1/P shard of the tensors gathered to all; waits for no gradient
};

/// "allreduce", "allgather" (the sparse one), "reduce_scatter", "param_allgather".
std::string_view collective_kind_name(CollectiveKind kind);

/// One collective: tensors [begin, end) in backward order.
struct Message {
  int begin = 0;
  int end = 0;
  std::int64_t bytes = 0;       ///< gradient bytes the message covers (its dense size)
  std::int64_t sent_bytes = 0;  ///< bytes each GPU contributes: `bytes` dense, values + indices sparse
  SimTime duration = 0;         ///< collective time plus any overhead the schedule adds
  SimTime not_before = 0;       ///< the schedule's own earliest start (e.g. a Horovod cycle)
  /// Compute every GPU spends on this message before it can be sent (top-k
  /// selection), on a GPU of the trace's speed (one of speed s takes 1/s as
  /// long), right after the backward of the message's last layer and before
  /// the next layer's backward. Only plans whose messages end on layer
  /// boundaries may use it.
  SimTime selection = 0;
  CollectiveKind kind = CollectiveKind::allreduce;
  /// A parameter all-gather for this window's backward of its layers (ZeRO-3,
  /// FSDP gather again what they freed after the forward) instead of for the
  /// next forward. It gates the first backward activity of each of its layers.
  bool before_backward = false;
};

/// Messages in the order the communication channel runs them. The gradient
/// messages cover every tensor once; parameter all-gathers for the next
/// forward cover each reduce-scattered tensor once, after its reduce-scatter;
/// one for a backward precedes every gradient message of its layers and of
/// the layers after them in backward order (docs/domain.md section 1b).
using Plan = std::vector<Message>;

/// A message for tensors [begin, end) costed by the problem's collective, plus
/// `overhead` (e.g. fusion-buffer copies).
Message make_message(const CommProblem& problem, int begin, int end, SimTime not_before = 0, SimTime overhead = 0);

/// A reduce-scatter of tensors [begin, end): each GPU contributes every byte.
Message make_reduce_scatter(const CommProblem& problem, int begin, int end, SimTime not_before = 0);

/// A parameter all-gather of tensors [begin, end): each GPU contributes its
/// 1/P share (rounded up), for the next forward or this window's backward.
Message make_param_allgather(const CommProblem& problem, int begin, int end, bool before_backward = false);

/// Whether some message of `plan` gates a backward (Message::before_backward).
bool gates_backward(const Plan& plan);

/// Whether `plan` has a parameter all-gather (CollectiveKind::param_allgather).
bool gathers_parameters(const Plan& plan);

/// One message per backward-order layer group: `group_end[i]` is the layer
/// index one past the i-th group. Used by the layer-granular schedules.
Plan plan_from_layer_groups(const CommProblem& problem, const std::vector<int>& group_end);

}  // namespace mgsim
