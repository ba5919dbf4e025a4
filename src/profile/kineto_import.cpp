// PyTorch profiler (Kineto) Chrome trace -> trace. Per iteration (one per
// "ProfilerStep#N" window, or the whole trace): the backward starts at the
// first autograd node ("autograd::engine::evaluate_function: X" since
// PyTorch 1.10; before, the outermost "XBackward" / AccumulateGrad operator
// on its thread); every
// AccumulateGrad node marks one parameter's gradient ready, on its thread, at
// its end; the ready time on the GPU follows from the kernels through their
// correlation ids (attribute_iterations). Each AccumulateGrad belongs to the
// layer of the node that produced its gradient: the nearest earlier node on
// its thread, mapped through its sequence number to the forward operator and
// the innermost "nn.Module" around it (with_stack=True), or named after the
// node itself when the trace has no module events; then gradients whose
// nodes come from the same top-level aten:: operator of the forward share a
// layer (a Linear on a 3-D input in PyTorch 1.8: aten::linear's bias through
// AddBackward, its weight through MmBackward). Sizes come from the
// AccumulateGrad's "Input Dims" (record_shapes=True). A layer's forward ends
// where its nn.Module (else the forward operator that created the producing
// node) ends, mapped to the GPU as the gradients are: per-layer forward times
// (trace version 2) when every layer's forward is found. NCCL kernels are kept
// out of the compute (collected in kineto_events) and reported.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "kineto_events.hpp"
#include "kineto_module_index.hpp"
#include "mgsim/counted.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/median.hpp"
#include "mgsim/profile/importers.hpp"
#include "mgsim/profile/layer_timing.hpp"
#include "mgsim/profile/output.hpp"

namespace mgsim::profile {
namespace {

using kineto::Events;
using kineto::Span;

constexpr std::string_view kEvaluate = "autograd::engine::evaluate_function: ";

/// One execution of a backward node: its evaluate_function span and the
/// node's own span inside it (which carries the sequence number and inputs).
struct Node {
  const Span* evaluate = nullptr;
  const Span* inner = nullptr;
  std::string name;
  bool accumulate() const { return name == kineto::kAccumulateGrad; }
};

/// An autograd node's own operator: "AddmmBackward", "AddmmBackward0", AccumulateGrad.
bool is_node_name(std::string_view name) {
  if (name == kineto::kAccumulateGrad) return true;
  while (!name.empty() && name.back() >= '0' && name.back() <= '9') name.remove_suffix(1);
  return name.ends_with("Backward");
}

/// Backward nodes that only reshape, transpose or cast: without module events
/// the gradient is attributed past them to the node that owns the layer.
bool passes_through(const std::string& node) {
  static const std::set<std::string, std::less<>> kPassThrough = {
      "TBackward",          "ToCopyBackward",    "ViewBackward",      "ReshapeAliasBackward",
      "UnsafeViewBackward", "PermuteBackward",   "TransposeBackward", "ExpandBackward",
      "SqueezeBackward",    "UnsqueezeBackward", "CloneBackward",     "AsStridedBackward"};
  std::string_view stem = node;
  while (!stem.empty() && stem.back() >= '0' && stem.back() <= '9') stem.remove_suffix(1);
  return kPassThrough.contains(stem);
}

class KinetoImporter {
 public:
  KinetoImporter(Events events, const nlohmann::json& facts, const std::string& source, const KinetoOptions& options)
      : source_(source), options_(options), events_(std::move(events)), facts_(facts), modules_(events_.modules) {
    find_nodes();
    for (const LaunchCall& call : events_.records.launches) launches_by_start_.push_back(&call);
    std::stable_sort(launches_by_start_.begin(), launches_by_start_.end(),
                     [](const LaunchCall* a, const LaunchCall* b) { return a->start_ns < b->start_ns; });
    for (const GpuActivity& a : events_.records.activities) {
      if (!a.collective) work_by_correlation_.emplace(a.correlation, &a);
    }
    check_steps_apart();
    for (const Span& step : events_.steps) windows_.push_back({step.start_ns, step.end_ns});
    if (windows_.empty() && events_.gpu_step_copies > 1) {
      fail(fmt::format("{} ProfilerStep# windows are marked only on the GPU's timeline (gpu_user_annotation), none "
                       "on the CPU's: their iterations cannot be told apart (keep the user_annotation events)",
                       events_.gpu_step_copies));
    }
    if (windows_.empty() && !events_.operators.empty()) windows_.push_back(whole_trace());
    const std::size_t skip =
        std::min<std::size_t>(static_cast<std::size_t>(std::max(0, options.skip_steps)), windows_.size());
    if (skip > 0 && events_.steps.empty()) {
      fail(fmt::format("--skip-steps {}: the trace has no ProfilerStep# window to skip (it is imported whole)",
                       options.skip_steps));
    }
    if (skip > 0 && skip == windows_.size()) {
      fail(fmt::format("--skip-steps {} drops every one of the {} ProfilerStep# windows", options.skip_steps,
                       windows_.size()));
    }
    windows_.erase(windows_.begin(), windows_.begin() + static_cast<std::ptrdiff_t>(skip));
    skipped_ = skip;
  }

  // The indexes point into events_: never copied or moved.
  KinetoImporter(const KinetoImporter&) = delete;
  KinetoImporter& operator=(const KinetoImporter&) = delete;

  ImportedTrace run() {
    if (events_.records.activities.empty()) {
      fail("the trace holds no GPU work (kernels, copies, sets) with a correlation id: record it with "
           "ProfilerActivity.CUDA");
    }
    if (!windows_.empty() && std::all_of(windows_.begin(), windows_.end(), [](const auto& w) { return w.second <= w.first; })) {
      fail("every ProfilerStep# window lasts 0 ns");
    }
    RecordSet records = events_.records;
    int iteration = 0;
    std::vector<double> steps, optimizer_steps, busy;
    const std::optional<std::size_t> reference = reference_window();
    if (reference) {
      const std::vector<const Node*> nodes = nodes_between(windows_[*reference].first, windows_[*reference].second);
      describe_parameters(*reference, nodes, gradients(nodes));
      warn_if_repeated(*reference);
    }
    std::vector<std::string> skipped;  // why each skipped window was
    for (std::size_t w = 0; w < windows_.size(); ++w) {
      const auto [from, to] = windows_[w];
      if (to <= from) {
        skipped.push_back(fmt::format("a step window at {} ns lasts 0 ns: skipped", from));
        continue;
      }
      const std::vector<const Node*> nodes = nodes_between(from, to);
      if (nodes.empty()) {
        skipped.push_back(fmt::format("a step window at {} ns holds no backward pass: skipped", from));
        continue;
      }
      const std::vector<const Node*> grads = gradients(nodes);
      if (grads.size() != params_.size()) {
        skipped.push_back(fmt::format("{} accumulates {}, {} {}: skipped", window_name(w),
                                        counted(static_cast<std::int64_t>(grads.size()), "gradient"),
                                        window_name(*reference), params_.size()));
        continue;
      }
      if (const std::string other = other_sizes(grads, *reference); !other.empty()) {
        skipped.push_back(fmt::format("{} accumulates gradients unlike {}'s ({}): skipped", window_name(w),
                                        window_name(*reference), other));
        continue;
      }
      add_markers(records, iteration++, from, to, nodes, grads);
      steps.push_back(static_cast<double>(to - from) * 1e-9);
      busy.push_back(static_cast<double>(gpu_busy_in(from, to)) / static_cast<double>(to - from));
      if (const auto step = optimizer_step_in(from, to)) optimizer_steps.push_back(*step);
    }
    warn_skipped(skipped, iteration);
    if (params_.empty() && !events_.steps.empty() &&
        std::any_of(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.accumulate(); })) {
      fail(fmt::format("none of the {} ProfilerStep# windows imported holds a backward pass with parameter "
                       "gradients (AccumulateGrad): the trace's backward lies outside them",
                       windows_.size()));
    }
    if (params_.empty()) no_gradients();
    ImportedTrace out = [&] {
      try {
        return build(records);
      } catch (const TraceError& e) {
        fail(e.what());
      }
    }();
    if (!events_.steps.empty() && !steps.empty()) {
      out.step_time_s = median(steps);
      out.gpu_busy_fraction = median(busy);
      out.provenance["gpu_busy_fraction"] = {
          {"median", *out.gpu_busy_fraction},
          {"method", "per step window: the union of the GPU work (kernels, copies, sets; no collectives) launched "
                     "inside it, over its length"}};
      if (*out.gpu_busy_fraction < kLaunchBoundBusy) {
        out.warnings.push_back(fmt::format(
            "the GPU was busy {:.0f}% of the median step: the run waited for its launches, and the profiler's cost "
            "per launch is in these times; time the step without the profiler, or use mgsim profile layers, "
            "which removes its own (docs/profiling.md#10-checked-on-an-h200)",
            *out.gpu_busy_fraction * 100));
      }
    }
    if (!optimizer_steps.empty()) {
      out.optimizer_step_s = median(optimizer_steps);
      out.provenance["optimizer_step"] = set_optimizer_step(
          out.trace, options_.optimizer, *out.optimizer_step_s,
          "median over the steps of the longer of \"Optimizer.step#...\"'s CPU span and the span of the GPU work "
          "launched inside it",
          out.warnings);
    }
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw TraceError(fmt::format("{}: {}", source_, what)); }

  /// Sorts the ProfilerStep# windows by start, drops exact copies (the same
  /// step filed twice), and refuses two that overlap: the profiler marks one
  /// step after another, so an overlap is a damaged file, and importing it
  /// would fold one iteration into another.
  void check_steps_apart() {
    std::vector<Span>& steps = events_.steps;
    std::stable_sort(steps.begin(), steps.end(), [](const Span& a, const Span& b) { return a.start_ns < b.start_ns; });
    const auto same = [](const Span& a, const Span& b) {
      return a.name == b.name && a.start_ns == b.start_ns && a.end_ns == b.end_ns;
    };
    steps.erase(std::unique(steps.begin(), steps.end(), same), steps.end());
    for (std::size_t i = 1; i < steps.size(); ++i) {
      const Span &before = steps[i - 1], &after = steps[i];
      if (after.start_ns >= before.end_ns) continue;
      fail(fmt::format("{} ({} .. {} us) overlaps {} (from {} us): the profiler marks one step after another; "
                       "expected disjoint ProfilerStep# windows",
                       before.name, before.start_ns / 1e3, before.end_ns / 1e3, after.name, after.start_ns / 1e3));
    }
  }

  /// No AccumulateGrad: either no backward at all, or backward nodes without
  /// a parameter's gradient (an excerpt of a step, frozen parameters).
  [[noreturn]] void no_gradients() const {
    if (nodes_.empty()) {
      fail("no AccumulateGrad node: the trace holds no backward pass of trainable parameters (was the profiler "
           "active during loss.backward()?)");
    }
    std::set<std::string> names;
    for (const Node& n : nodes_) names.insert(n.name);
    fail(fmt::format("{} autograd node{} ({}) but no AccumulateGrad node: no parameter's gradient is in the trace "
                     "(cut before the gradients were accumulated, or no trainable parameters)",
                     nodes_.size(), nodes_.size() == 1 ? "" : "s", fmt::join(names, ", ")));
  }

  /// The runtime or driver calls made in [from, to] (by `thread`, when
  /// given), by start.
  std::vector<const LaunchCall*> launches_in(std::int64_t from, std::int64_t to,
                                             std::optional<std::uint64_t> thread = {}) const {
    std::vector<const LaunchCall*> calls;
    auto it = std::lower_bound(launches_by_start_.begin(), launches_by_start_.end(), from,
                               [](const LaunchCall* call, std::int64_t t) { return call->start_ns < t; });
    for (; it != launches_by_start_.end() && (*it)->start_ns <= to; ++it) {
      if (!thread || (*it)->thread == *thread) calls.push_back(*it);
    }
    return calls;
  }

  /// The non-collective GPU work those calls launched, as (start, end); work
  /// that starts before its launch (a reused correlation id) is left out.
  std::vector<std::pair<std::int64_t, std::int64_t>> work_of(const std::vector<const LaunchCall*>& calls) const {
    std::vector<std::pair<std::int64_t, std::int64_t>> work;
    for (const LaunchCall* call : calls) {
      const auto [first, last] = work_by_correlation_.equal_range(call->correlation);
      for (auto it = first; it != last; ++it) {
        if (it->second->start_ns >= call->start_ns) work.emplace_back(it->second->start_ns, it->second->end_ns);
      }
    }
    return work;
  }

  /// Nanoseconds of [from, to] in which the GPU was busy with the work
  /// launched in it: the union of its intervals, cut to the window.
  std::int64_t gpu_busy_in(std::int64_t from, std::int64_t to) const {
    std::vector<std::pair<std::int64_t, std::int64_t>> work = work_of(launches_in(from, to));
    std::sort(work.begin(), work.end());
    std::int64_t busy = 0, covered = std::numeric_limits<std::int64_t>::min();
    for (const auto& [start, end] : work) {
      const std::int64_t begin = std::max(start, covered), stop = std::min(end, to);
      if (stop > begin) busy += stop - begin;
      covered = std::max(covered, end);
    }
    return busy;
  }

  /// Seconds of the optimizer step in a window: for each "Optimizer.step#"
  /// operator that starts in it (one per optimizer), the longer of its CPU
  /// span (a step bound by its launches) and the span from the first to the
  /// last GPU work launched inside it on its thread (a step bound by the
  /// GPU), from its start; the union of those, so that a step inside another
  /// (a wrapper's around its inner optimizer's) or written twice counts once
  /// (red team: a copy 1 ns later, or on another thread, was summed: the step
  /// doubled); nothing when the window has none. One whose CPU span ends past
  /// the window is refused.
  std::optional<double> optimizer_step_in(std::int64_t from, std::int64_t to) const {
    std::optional<std::int64_t> total;
    std::int64_t start = 0, end = 0;  // the union's interval being grown
    const std::vector<Span>& ops = events_.operators;  // by start
    auto op = std::lower_bound(ops.begin(), ops.end(), from, [](const Span& o, std::int64_t t) { return o.start_ns < t; });
    for (; op != ops.end() && op->start_ns <= to; ++op) {
      if (!op->name.starts_with(kineto::kOptimizerStep)) continue;
      if (op->end_ns > to) {
        fail(fmt::format("an \"{}\" operator starting at {} ns ends {} ns past its ProfilerStep# window: expected "
                         "a step's optimizer inside the step (a damaged file?)",
                         printable(op->name), op->start_ns, op->end_ns - to));
      }
      std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = std::numeric_limits<std::int64_t>::min();
      for (const auto& [work_start, work_end] : work_of(launches_in(op->start_ns, op->end_ns, op->thread))) {
        first = std::min(first, work_start);
        last = std::max(last, work_end);
      }
      const std::int64_t gpu = first <= last ? last - first : 0;
      const std::int64_t step_end = op->start_ns + std::max(op->end_ns - op->start_ns, gpu);
      if (total && op->start_ns < end) {  // ops come by start: this one begins inside the union so far
        end = std::max(end, step_end);
        continue;
      }
      if (total) *total += end - start;
      total = total.value_or(0);
      start = op->start_ns;
      end = step_end;
    }
    if (!total) return std::nullopt;
    return static_cast<double>(*total + end - start) * 1e-9;
  }

  std::pair<std::int64_t, std::int64_t> whole_trace() const {
    std::int64_t from = events_.operators.front().start_ns, to = from;
    for (const Span& op : events_.operators) to = std::max(to, op.end_ns);
    return {from, to};
  }

  void find_nodes() {
    const std::vector<Span>& ops = events_.operators;
    in_backward_.assign(ops.size(), false);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (!ops[i].name.starts_with(kEvaluate)) continue;
      Node node{&ops[i], nullptr, ops[i].name.substr(kEvaluate.size())};
      for (std::size_t j = i + 1; j < ops.size() && ops[j].start_ns <= ops[i].end_ns; ++j) {
        if (ops[j].thread != ops[i].thread || ops[j].end_ns > ops[i].end_ns) continue;
        in_backward_[j] = true;
        if (node.inner == nullptr && ops[j].name == node.name) node.inner = &ops[j];
      }
      nodes_.push_back(node);
    }
    if (nodes_.empty()) find_bare_nodes();
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (in_backward_[i] || !ops[i].sequence || *ops[i].sequence < 0 || ops[i].name.starts_with(kEvaluate)) continue;
      // The last operator (by start) before a node to carry its sequence
      // number created it: the ones before only read the counter it then
      // advanced (a data loader's aten::to, the aten::linear around its
      // aten::addmm), and later steps count from the same numbers again.
      forward_by_sequence_[*ops[i].sequence].push_back(&ops[i]);
    }
  }

  /// PyTorch 1.8 and 1.9 record the autograd nodes without the
  /// evaluate_function wrapper: each outermost node operator on its thread
  /// ("AddmmBackward", "torch::autograd::AccumulateGrad") is a node, and
  /// what runs inside it belongs to the backward.
  void find_bare_nodes() {
    const std::vector<Span>& ops = events_.operators;
    std::map<std::uint64_t, std::int64_t> open_until;  // thread -> end of the node it is in
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const auto open = open_until.find(ops[i].thread);
      if (open != open_until.end() && ops[i].end_ns <= open->second) {
        in_backward_[i] = true;
        continue;
      }
      if (!is_node_name(ops[i].name)) continue;
      in_backward_[i] = true;
      nodes_.push_back({&ops[i], &ops[i], ops[i].name});
      open_until[ops[i].thread] = ops[i].end_ns;
    }
  }

  /// The nodes starting in [from, to]: nodes_ are by start (found in the
  /// operators' order), so a window costs its own nodes, not all of them.
  std::vector<const Node*> nodes_between(std::int64_t from, std::int64_t to) const {
    std::vector<const Node*> nodes;
    auto node = std::lower_bound(nodes_.begin(), nodes_.end(), from,
                                 [](const Node& n, std::int64_t t) { return n.evaluate->start_ns < t; });
    for (; node != nodes_.end() && node->evaluate->start_ns <= to; ++node) nodes.push_back(&*node);
    return nodes;
  }

  /// The node that produced the gradient accumulated by nodes[at]: the
  /// nearest earlier node on its thread that is not an AccumulateGrad (nor,
  /// `past_reshapes`, a reshape or cast), or nullptr.
  const Node* producer(const std::vector<const Node*>& nodes, std::size_t at, bool past_reshapes) const {
    for (std::size_t i = at; i-- > 0;) {
      const Node& n = *nodes[i];
      if (n.evaluate->thread != nodes[at]->evaluate->thread || n.accumulate()) continue;
      if (past_reshapes && passes_through(n.name)) continue;
      return &n;
    }
    return nullptr;
  }

  /// The forward operator that created a backward node (through its sequence number), or nullptr.
  const Span* creator(const Node& node) const {
    if (node.inner == nullptr || !node.inner->sequence) return nullptr;
    const auto forward = forward_by_sequence_.find(*node.inner->sequence);
    if (forward == forward_by_sequence_.end()) return nullptr;
    const std::vector<const Span*>& spans = forward->second;  // by start
    const auto after = std::upper_bound(spans.begin(), spans.end(), node.evaluate->start_ns,
                                        [](std::int64_t t, const Span* op) { return t < op->start_ns; });
    return after == spans.begin() ? nullptr : *std::prev(after);
  }

  /// The innermost nn.Module around the forward operator that created a node, or nullptr.
  const Span* module_around(const Node& node) const {
    const Span* op = creator(node);
    return op != nullptr ? modules_.around(*op) : nullptr;
  }

  /// The layer a gradient belongs to, from the nodes that ran before it:
  /// the nn.Module around the forward of its producer where the trace has
  /// module events, else (or when none is around it) named after the
  /// producer past reshapes and casts, one layer per top-level forward call.
  std::string layer_of(const std::vector<const Node*>& nodes, std::size_t at) {
    if (!events_.modules.empty()) {
      const Node* n = producer(nodes, at, false);
      if (n == nullptr) return "unattributed";
      if (const Span* module = module_around(*n)) return module->name.substr(11);  // "nn.Module: "
      ++unmapped_;
    }
    const Node* n = producer(nodes, at, true);
    if (n == nullptr) return "unattributed";
    std::string name =
        n->inner != nullptr && n->inner->sequence ? fmt::format("{}#{}", n->name, *n->inner->sequence) : n->name;
    const Span* call = forward_call(*n);
    return call != nullptr ? layer_of_call_.try_emplace(call, std::move(name)).first->second : name;
  }

  /// Where the forward of the layer of the gradient accumulated by nodes[at]
  /// ends on the CPU: its nn.Module, else the top-level aten:: operator that
  /// created the producing node, else that operator itself; nullptr when
  /// the node cannot be traced to the forward.
  const Span* forward_of(const std::vector<const Node*>& nodes, std::size_t at) {
    const Node* n = producer(nodes, at, events_.modules.empty());
    if (n == nullptr) return nullptr;
    if (const Span* module = module_around(*n)) return module;
    if (const Span* call = forward_call(*n)) return call;
    return creator(*n);
  }

  /// The outermost aten:: operator of the forward around the operator that
  /// created a backward node (through its sequence number), or nullptr.
  const Span* forward_call(const Node& node) {
    const Span* op = creator(node);
    if (op == nullptr) return nullptr;
    const std::vector<Span>& ops = events_.operators;
    if (outer_call_.empty()) find_outer_calls();
    const int outer = outer_call_[static_cast<std::size_t>(op - ops.data())];
    return outer < 0 ? nullptr : &ops[static_cast<std::size_t>(outer)];
  }

  /// For every operator, the outermost aten:: operator around it on its
  /// thread (itself included), or -1: one pass over the operators in start
  /// order, with a stack of the open ones per thread.
  void find_outer_calls() {
    const std::vector<Span>& ops = events_.operators;
    outer_call_.assign(ops.size(), -1);
    std::map<std::uint64_t, std::vector<std::size_t>> open;  // thread -> operators around the next, outermost first
    for (std::size_t i = 0; i < ops.size(); ++i) {
      std::vector<std::size_t>& around = open[ops[i].thread];
      while (!around.empty() && ops[around.back()].end_ns < ops[i].end_ns) around.pop_back();
      const int outer = around.empty() ? -1 : outer_call_[around.back()];
      outer_call_[i] = outer >= 0 || !ops[i].name.starts_with("aten::") ? outer : static_cast<int>(i);
      around.push_back(i);
    }
  }

  /// The AccumulateGrad nodes among `nodes`, in order.
  static std::vector<const Node*> gradients(const std::vector<const Node*>& nodes) {
    std::vector<const Node*> grads;
    std::copy_if(nodes.begin(), nodes.end(), std::back_inserter(grads), [](const Node* n) { return n->accumulate(); });
    return grads;
  }

  /// The window whose gradients describe the model: the first of those
  /// accumulating the gradients most windows share (their count and, where
  /// recorded, sizes and types; on a tie the larger count), so that a step
  /// cut by the start of the profile, or a damaged one, does not decide the
  /// model. Windows without gradients take part only when all are so;
  /// nullopt when no window holds a backward pass.
  std::optional<std::size_t> reference_window() const {
    using Signature = std::vector<std::pair<std::int64_t, int>>;  // per gradient: elements, bytes (-1: unrecorded)
    std::map<Signature, std::vector<std::size_t>> windows_of;
    for (std::size_t w = 0; w < windows_.size(); ++w) {
      const auto [from, to] = windows_[w];
      if (to <= from) continue;
      const std::vector<const Node*> nodes = nodes_between(from, to);
      if (nodes.empty()) continue;
      Signature signature;
      for (const Node* grad : gradients(nodes)) {
        const std::optional<ParamInfo> recorded = recorded_shape(*grad);
        signature.emplace_back(recorded ? recorded->elements : -1, recorded ? recorded->dtype_bytes : -1);
      }
      windows_of[signature].push_back(w);
    }
    if (windows_of.size() > 1) windows_of.erase(Signature{});
    if (windows_of.empty()) return std::nullopt;
    const auto common = std::max_element(windows_of.begin(), windows_of.end(), [](const auto& a, const auto& b) {
      return std::tuple(a.second.size(), a.first.size(), b.second.front()) <
             std::tuple(b.second.size(), b.first.size(), a.second.front());
    });
    return common->second.front();
  }

  void describe_parameters(std::size_t window, const std::vector<const Node*>& nodes,
                           const std::vector<const Node*>& grads) {
    const std::vector<std::int64_t>& given = options_.param_elements;
    if (!given.empty() && given.size() != grads.size()) {
      fail(fmt::format("{} accumulates {}, but {} lists {}", window_name(window),
                       counted(static_cast<std::int64_t>(grads.size()), "gradient"), options_.param_source,
                       counted(static_cast<std::int64_t>(given.size()), "parameter tensor")));
    }
    reference_recorded_ = !grads.empty() && recorded_shape(*grads.front()).has_value();
    std::vector<ParamInfo> found;
    for (std::size_t i = 0, k = 0; i < nodes.size(); ++i) {
      if (!nodes[i]->accumulate()) continue;
      ParamInfo param = given.empty() ? shape_of(*grads[k]) : recorded_or_given(*grads[k], k);
      param.layer = layer_of(nodes, i);
      param.name = fmt::format("{}[{}]", param.layer, k++);
      found.push_back(param);
    }
    if (!given.empty()) check_given_sizes(grads);
    // Forward (framework) order is the reverse of the order gradients arrive.
    params_.assign(found.rbegin(), found.rend());
    check_layer_count();
  }

  /// The first few of the reasons `skipped` windows were, each a warning,
  /// and how many more: a long profile of warm-up steps says so in a few lines.
  void warn_skipped(const std::vector<std::string>& skipped, int imported) {
    constexpr std::size_t kShown = 3;
    for (std::size_t i = 0; i < std::min(skipped.size(), kShown); ++i) warnings_.push_back(skipped[i]);
    if (skipped.size() > kShown) {
      warnings_.push_back(fmt::format("{} more step windows skipped, {} of the {} in all ({} imported)",
                                      skipped.size() - kShown, skipped.size(), windows_.size(), imported));
    }
  }

  /// A gradient list that is the same sizes k >= 2 times over is likely k
  /// backward passes read as one iteration (without step windows, k
  /// iterations; in a window, k accumulated micro-batches or a missed
  /// prof.step()), or a model of k identical blocks: said, not refused.
  void warn_if_repeated(std::size_t window) {
    const std::size_t n = params_.size();
    for (std::size_t period = 1; period <= n / 2; ++period) {
      if (n % period != 0) continue;
      bool repeats = true;
      for (std::size_t i = period; i < n && repeats; ++i) repeats = params_[i].elements == params_[i - period].elements;
      if (!repeats) continue;
      const std::size_t k = n / period;
      const bool windows = !events_.steps.empty();
      warnings_.push_back(fmt::format(
          "{} {} gradients are the same {} sizes {} times over: if it holds {} {}",
          windows ? window_name(window) + "'s" : "the trace has no ProfilerStep# window and its", n, period, k,
          k,
          windows ? fmt::format("backward passes (gradient accumulation, or a missed prof.step()) they were read as "
                                "one, with {} times the sizes and time", k)
                  : "iterations they were read as one (mark the steps with prof.step())"));
      return;
    }
  }

  /// The k-th gradient to arrive: its recorded shape where the trace has
  /// one (exact, and in the order the gradients arrive), else the k-th
  /// tensor from the end of the given list.
  ParamInfo recorded_or_given(const Node& node, std::size_t k) {
    if (const std::optional<ParamInfo> recorded = recorded_shape(node)) return *recorded;
    if (k == 0) {
      warnings_.push_back(fmt::format("parameter sizes from {}, by position: the trace records no shapes to check "
                                      "them against (a variant of another input size or width, e.g. a CIFAR VGG, "
                                      "has the same tensor count and other sizes; record_shapes=True records them)",
                                      options_.param_source));
    }
    ParamInfo param;
    param.elements = given_elements(k);
    param.dtype_bytes = 4;
    return param;
  }

  /// The given list's size of the k-th gradient to arrive: the k-th from its end.
  std::int64_t given_elements(std::size_t k) const {
    const std::vector<std::int64_t>& given = options_.param_elements;
    return given[given.size() - 1 - k];
  }

  /// The given list must hold the sizes the trace recorded: as a whole, not
  /// tensor by tensor, since the order within a layer may differ (a
  /// module's weight and bias arrive in either order); another model of the
  /// same tensor count is refused.
  void check_given_sizes(const std::vector<const Node*>& grads) const {
    std::map<std::int64_t, std::pair<int, int>> counts;  // elements -> (in the trace, in the list)
    for (std::size_t k = 0; k < grads.size(); ++k) {
      const std::optional<ParamInfo> recorded = recorded_shape(*grads[k]);
      if (!recorded) continue;
      ++counts[recorded->elements].first;
      ++counts[given_elements(k)].second;
    }
    for (const auto& [elements, count] : counts) {
      if (count.first == count.second) continue;
      fail(fmt::format("{} disagrees with the trace's recorded shapes: tensors of {} elements: {} in the trace, {} "
                       "in {} (the same tensor count, another model?); the trace has its shapes: drop the option, or "
                       "name the model that ran",
                       options_.param_source, elements, count.first, count.second, options_.param_source));
    }
  }

  /// Where a step's recorded gradients differ from the reference window's
  /// in size or type, or lack the record it had (another model, steps of
  /// several runs in one file, a damaged event): the first that does, in
  /// words; "" when none does.
  std::string other_sizes(const std::vector<const Node*>& grads, std::size_t reference) const {
    for (std::size_t k = 0; k < grads.size(); ++k) {
      const std::optional<ParamInfo> recorded = recorded_shape(*grads[k]);
      const ParamInfo& model = params_[params_.size() - 1 - k];
      if (!recorded) {
        if (reference_recorded_) return fmt::format("gradient {} to arrive has no recorded shape", k + 1);
        continue;
      }
      if (recorded->elements != model.elements || recorded->dtype_bytes != model.dtype_bytes) {
        return fmt::format("gradient {} to arrive has {} elements of {} bytes, {} of {} in {}", k + 1,
                           recorded->elements, recorded->dtype_bytes, model.elements, model.dtype_bytes,
                           window_name(reference));
      }
    }
    return "";
  }

  /// "ProfilerStep#N" of the w-th window imported, or "the trace" without windows.
  std::string window_name(std::size_t w) const {
    return events_.steps.empty() ? std::string("the trace") : events_.steps[w + skipped_].name;
  }

  /// A warning when the gradients fall into another number of layers than the given model has.
  void check_layer_count() {
    if (options_.param_layers == 0) return;
    std::set<std::string> layers;
    for (const ParamInfo& param : params_) layers.insert(param.layer);
    if (layers.size() == options_.param_layers) return;
    warnings_.push_back(fmt::format("the gradients fall into {} layers, {} has {} layers with parameters: the trace's "
                                    "operators could not be told apart (a trace without record_shapes and "
                                    "with_stack?), so its layer times are coarser than the model's",
                                    layers.size(), options_.param_source, options_.param_layers));
  }

  ParamInfo shape_of(const Node& node) const {
    const std::optional<ParamInfo> recorded = recorded_shape(node);
    if (!recorded) {
      fail(fmt::format("AccumulateGrad at {} us has no \"Input Dims\", so the parameter sizes are unknown: record "
                       "the trace with record_shapes=True, or give them with --zoo MODEL or --param-sizes FILE",
                       static_cast<double>(node.evaluate->start_ns) / 1000.0));
    }
    return *recorded;
  }

  /// The parameter's size and type from its AccumulateGrad's "Input Dims", when the trace recorded them.
  std::optional<ParamInfo> recorded_shape(const Node& node) const {
    const nlohmann::json* args = node.inner != nullptr ? &node.inner->inputs : nullptr;
    const auto dims = args != nullptr ? args->find("Input Dims") : nlohmann::json::const_iterator{};
    if (args == nullptr || dims == args->end() || !dims->is_array() || dims->empty() || !(*dims)[0].is_array()) {
      return std::nullopt;
    }
    ParamInfo param;
    param.elements = 1;
    for (const nlohmann::json& d : (*dims)[0]) {
      // Checked before multiplying, so the product never passes kMaxTensorElements.
      if (!d.is_number_integer() || d.get<std::int64_t>() < 1 ||
          d.get<std::int64_t>() > kMaxTensorElements / param.elements) {
        fail(fmt::format("AccumulateGrad \"Input Dims\": expected sizes >= 1 making at most {} elements",
                         kMaxTensorElements));
      }
      param.elements *= d.get<std::int64_t>();
    }
    const auto types = args->find("Input type");
    const std::string type = types != args->end() && types->is_array() && !types->empty() && (*types)[0].is_string()
                                 ? (*types)[0].get<std::string>()
                                 : std::string("float");
    const auto holds = [&](std::string_view part) { return type.find(part) != std::string::npos; };
    if (type.empty() || type == "float") {
      param.dtype_bytes = 4;
    } else if (type == "double") {
      param.dtype_bytes = 8;
    } else if (holds("Half") || holds("BFloat16")) {
      param.dtype_bytes = 2;
    } else if (holds("Float8")) {
      param.dtype_bytes = 1;
    } else {  // never a guess: a gradient's bytes price its every message
      fail(fmt::format("AccumulateGrad \"Input type\": expected a floating-point type (float, double, c10::Half, "
                       "c10::BFloat16, c10::Float8_*), got '{}'",
                       printable(type)));
    }
    return param;
  }

  /// The iteration's boundary markers, a gradient marker at the end of each
  /// AccumulateGrad, and a forward marker at the end of each gradient's
  /// layer's forward (forward_of) where it lies in this iteration's forward.
  void add_markers(RecordSet& records, int iteration, std::int64_t from, std::int64_t to,
                   const std::vector<const Node*>& nodes, const std::vector<const Node*>& grads) {
    std::int64_t backward = nodes.front()->evaluate->start_ns, end = to;
    for (const Node* n : nodes) {
      backward = std::min(backward, n->evaluate->start_ns);
      end = std::max(end, n->evaluate->end_ns);
    }
    const std::uint64_t thread = nodes.front()->evaluate->thread;
    records.markers.push_back({MarkerKind::iteration_begin, from, thread, iteration});
    records.markers.push_back({MarkerKind::backward_begin, backward, thread, iteration});
    records.markers.push_back({MarkerKind::iteration_end, end, thread, iteration});
    const int count = static_cast<int>(grads.size());
    for (int k = 0; k < count; ++k) {
      const Span& e = *grads[static_cast<std::size_t>(k)]->evaluate;
      records.markers.push_back({MarkerKind::grad_ready, e.end_ns, e.thread, count - 1 - k});
    }
    for (std::size_t i = 0, k = 0; i < nodes.size(); ++i) {
      if (!nodes[i]->accumulate()) continue;
      const int param = count - 1 - static_cast<int>(k++);
      const Span* forward = forward_of(nodes, i);
      if (forward != nullptr && forward->end_ns >= from && forward->end_ns <= backward) {
        records.markers.push_back({MarkerKind::forward_done, forward->end_ns, forward->thread, param});
      }
    }
  }

  ImportedTrace build(const RecordSet& records) {
    AttributionNotes notes;
    const std::vector<IterationTiming> timings = attribute_iterations(records, static_cast<int>(params_.size()), notes);
    BuiltTrace built =
        build_trace(params_, summarize(timings, static_cast<int>(params_.size())), options_.model, options_.batch_size);
    ImportedTrace out;
    out.trace = std::move(built.trace);
    out.warnings = warnings_;
    if (out.trace.forward_time_s == 0) {
      out.warnings.push_back("the trace holds no forward pass (forward time 0): predictions from it leave the "
                             "forward out; profile a whole step, or set \"forward_time_s\" in the written trace");
    }
    // GPU work no launch leads to is in no layer's time (red team: a layer's backward imported 5x too short, silently).
    const auto warn_unattributed = [&](int count, std::int64_t ns, std::string_view why) {
      if (count == 0) return;
      out.warnings.push_back(fmt::format("{} ({:.3f} ms) {}: left out of every layer's time, which may come out "
                                         "short; a damaged or cut trace?",
                                         counted(count, "GPU kernel or copy", "GPU kernels or copies"),
                                         static_cast<double>(ns) * 1e-6, why));
    };
    warn_unattributed(events_.activities_without_correlation, events_.activities_without_correlation_ns,
                      "without args.correlation");
    warn_unattributed(notes.activities_without_launch, notes.activities_without_launch_ns,
                      "whose launch (the cuda_runtime event of its correlation) the trace lacks");
    if (notes.incomplete_iterations > 0) {  // red team: a step whose kernels all lacked their correlation, unsaid
      out.warnings.push_back(fmt::format("{} skipped: no backward GPU work could be traced to its launches",
                                         counted(notes.incomplete_iterations, "step window")));
    }
    if (notes.markers_any_thread > 0) {
      out.warnings.push_back(
          fmt::format("{} AccumulateGrad events ran on a thread that launched no kernel: matched "
                      "against kernels of every thread",
                      notes.markers_any_thread));
    }
    double communication_s = 0;
    for (const kineto::CommKernel& k : events_.communication) communication_s += static_cast<double>(k.end_ns - k.start_ns) * 1e-9;
    out.trace.insitu_allreduce = insitu_allreduces();
    if (!events_.communication.empty()) {
      out.warnings.push_back(fmt::format("{} communication kernels (nccl*, {:.3f} ms in all) kept out of the "
                                         "compute times: DDP's all-reduces, not part of the model's backward",
                                         events_.communication.size(), communication_s * 1e3));
    }
    if (unmapped_ > 0) {
      out.warnings.push_back(
          fmt::format("{} could not be traced to an nn.Module: named after the backward node that produced it "
                      "(past reshapes and casts), one layer per forward call",
                      counted(unmapped_, "gradient")));
    }
    out.provenance = {{"kind", "measured"},
                      {"tool", "PyTorch profiler (Kineto) Chrome trace"},
                      {"source_file", source_},
                      {"parameter_sizes_from", options_.param_elements.empty()
                                                   ? std::string("AccumulateGrad \"Input Dims\" (record_shapes=True)")
                                                   : options_.param_source + ", in reverse order of the gradients"},
                      {"layers_from", events_.modules.empty() ? "backward node names (no nn.Module events)"
                                                              : "nn.Module events through sequence numbers"},
                      {"gradient_ready",
                       "end of the last kernel launched before each AccumulateGrad ended, on its "
                       "thread and stream"},
                      {"statistics", built.stats},
                      {"kernels_without_correlation", events_.activities_without_correlation},
                      {"communication_kernels",
                       {{"count", events_.communication.size()},
                        {"total_s", communication_s},
                        {"insitu_allreduce", out.trace.insitu_allreduce.size()},
                        {"note", "NCCL kernels, left out of the compute times; all-reduces whose size a "
                                 "record_param_comms event gives are in-situ observations"}}},
                      {"backward_nodes_from", nodes_.empty() || nodes_.front().evaluate != nodes_.front().inner
                                                  ? "autograd::engine::evaluate_function events (PyTorch >= 1.10)"
                                                  : "node operators without evaluate_function (PyTorch 1.8, 1.9)"},
                      {"attribution",
                       {{"markers_without_work", notes.markers_without_work},
                        {"markers_any_thread", notes.markers_any_thread},
                        {"kernels_without_launch", notes.activities_without_launch}}}};
    out.provenance.update(facts_);
    return out;
  }

  /// The NCCL all-reduce kernels whose message a record_param_comms operator
  /// around their launch names (PyTorch >= 2.1): one in-situ observation
  /// each, the kernel's duration (docs/trace-format.md, "insitu").
  std::vector<CurvePoint> insitu_allreduces() const {
    std::map<std::uint64_t, const LaunchCall*> launch_of;
    for (const LaunchCall& l : events_.records.launches) launch_of.emplace(l.correlation, &l);
    std::vector<CurvePoint> points;
    for (const kineto::CommKernel& k : events_.communication) {
      if (!k.correlation) continue;
      const auto launch = launch_of.find(static_cast<std::uint64_t>(*k.correlation));
      if (launch == launch_of.end()) continue;
      for (const kineto::CommCall& call : events_.comm_calls) {
        const LaunchCall& l = *launch->second;
        if (call.thread != l.thread || l.start_ns < call.start_ns || l.start_ns > call.end_ns) continue;
        if (call.collective == "allreduce" && call.bytes > 0 && call.group_size >= 1 && k.end_ns > k.start_ns) {
          points.push_back({call.group_size, call.bytes, static_cast<double>(k.end_ns - k.start_ns) * 1e-9});
        }
        break;
      }
    }
    return points;
  }

  std::string source_;
  KinetoOptions options_;
  Events events_;
  nlohmann::json facts_;
  kineto::ModuleIndex modules_;  ///< events_.modules
  std::vector<Node> nodes_;
  std::vector<bool> in_backward_;
  std::vector<const LaunchCall*> launches_by_start_;  ///< events_.records.launches by start
  std::unordered_multimap<std::uint64_t, const GpuActivity*> work_by_correlation_;  ///< non-collective
  std::map<std::int64_t, std::vector<const Span*>> forward_by_sequence_;  ///< by start
  std::map<const Span*, std::string> layer_of_call_;  ///< top-level forward operator -> its layer
  std::vector<int> outer_call_;                       ///< per operator: see find_outer_calls()
  std::vector<std::pair<std::int64_t, std::int64_t>> windows_;
  std::size_t skipped_ = 0;  ///< windows dropped by --skip-steps
  bool reference_recorded_ = false;  ///< the reference window's gradients have recorded shapes
  std::vector<ParamInfo> params_;
  std::vector<std::string> warnings_;
  int unmapped_ = 0;
};

}  // namespace

namespace kineto {

nlohmann::json top_level_facts(const nlohmann::json& document, const std::string& source) {
  nlohmann::json facts = nlohmann::json::object();
  if (!document.is_object()) return facts;
  for (const char* key : {"schemaVersion", "cupti_version", "cuda_runtime_version", "cuda_driver_version"}) {
    if (document.contains(key)) facts[key] = document[key];
  }
  const auto distributed = document.find("distributedInfo");
  if (distributed != document.end() && distributed->is_object()) {
    for (const char* key : {"rank", "world_size"}) {
      const auto value = distributed->find(key);
      if (value == distributed->end()) continue;
      if (!value->is_number_integer()) {  // a rank "1" read as none would put the file in another rank's place
        throw TraceError(fmt::format("{}: distributedInfo.{}: expected a whole number, got {}", source, key,
                                     printable(value->dump())));
      }
      facts[key] = *value;
    }
  }
  // "computeProperties" before PyTorch 1.10, "deviceProperties" since.
  for (const char* key : {"deviceProperties", "computeProperties"}) {
    const auto devices = document.find(key);
    if (devices == document.end() || !devices->is_array()) continue;
    std::vector<std::string> names;
    for (const nlohmann::json& d : *devices) {
      if (d.is_object() && d.contains("name") && d["name"].is_string()) names.push_back(d["name"].get<std::string>());
    }
    if (!names.empty()) facts["hardware"] = names;
  }
  return facts;
}

ImportedTrace import_events(Events events, const nlohmann::json& facts, const std::string& source,
                            const KinetoOptions& options) {
  if (options.model.empty()) throw TraceError(fmt::format("{}: a model name is needed for the trace", source));
  if (options.batch_size < 1)
    throw TraceError(
        fmt::format("{}: the batch size (>= 1) is needed: the profiler trace "
                    "does not hold it",
                    source));
  KinetoImporter importer(std::move(events), facts, source, options);
  return importer.run();
}

}  // namespace kineto

ImportedTrace import_kineto(const nlohmann::json& document, const std::string& source, const KinetoOptions& options) {
  return kineto::import_events(kineto::read_events(document, source), kineto::top_level_facts(document, source), source,
                               options);
}

}  // namespace mgsim::profile
