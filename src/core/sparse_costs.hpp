#pragma once
// The costs of sparsifying groups of consecutive layers (docs/domain.md
// section 3), shared by the sparse schedules and the exact OMGS search's
// completion bound. Layers are in backward order (u = 0 is the last layer).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/interpolation.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/plan.hpp"

namespace mgsim {

struct SparseSettings {
  double density;
  double selection_s;
  std::int64_t value_bytes;
  std::int64_t index_bytes;
  std::map<std::string, double, std::less<>> layer_density;
  std::vector<InterpolationPoint> selection_curve;  ///< seconds (y) by elements (x), sorted by elements
};

/// A group of consecutive layers being considered as one message.
struct Group {
  std::int64_t elements = 0;
  double weighted = 0.0;  ///< sum of density x elements over its layers (per-layer densities only)
};

/// The costs of sparsifying groups of layers, at one problem's GPU count.
class SparseCosts {
 public:
  SparseCosts(const CommProblem& problem, const SparseSettings& settings) : problem_(problem), settings_(settings) {
    const TensorLayout& layout = *problem.layout;
    for (const auto& entry : settings.layer_density) {
      if (std::find(layout.layer_name.begin(), layout.layer_name.end(), entry.first) == layout.layer_name.end()) {
        throw ConfigError(fmt::format("layer_density: the trace has no layer '{}'", entry.first));
      }
    }
    for (int u = 0; u < problem.layer_count(); ++u) {
      const std::int64_t elements = problem.elements_of(problem.layer_begin(u), problem.layer_begin(u + 1));
      const auto found = settings.layer_density.find(layout.layer_name[static_cast<std::size_t>(layout.layer[problem.layer_begin(u)])]);
      const double density = found == settings.layer_density.end() ? settings.density : found->second;
      layers_.push_back({elements, density * static_cast<double>(elements)});
    }
  }

  /// Layer u alone.
  const Group& layer(int u) const { return layers_[static_cast<std::size_t>(u)]; }
  static Group merge(const Group& a, const Group& b) { return {a.elements + b.elements, a.weighted + b.weighted}; }

  /// t_s(d) on the slowest GPU: s d log2(d), or the measured selection
  /// curve, at the trace's speed (selection_work), over the problem's compute speed.
  SimTime selection(const Group& group) const { return scaled_time(selection_work(group), problem_.compute_speed); }
  /// The selection, or nothing when it takes more than an hour (limits.md).
  std::optional<SimTime> selection_within_limit(const Group& group) const {
    if (selection_seconds(group) / problem_.compute_speed > kMaxStepSeconds) return std::nullopt;
    return selection(group);
  }
  /// The elements a group keeps before rounding: density x elements, or the
  /// sum over its layers with per-layer densities (additive over layers).
  double kept(const Group& group) const {
    return settings_.layer_density.empty() ? settings_.density * static_cast<double>(group.elements) : group.weighted;
  }
  /// Bytes each GPU contributes: k values and k indices, k = floor(kept elements), at least 1.
  std::int64_t sent_bytes(const Group& group) const {
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(kept(group))) * (settings_.value_bytes + settings_.index_bytes);
  }
  SimTime exchange(const Group& group) const { return problem_.cost.allgather(sent_bytes(group)); }
  /// A group's selection and exchange as a search prices it: nothing when
  /// either takes more than an hour (limits.md), a group the search leaves
  /// out where other groupings need no step so long.
  struct Priced {
    SimTime selection;
    SimTime exchange;
  };
  std::optional<Priced> priced(const Group& group) const {
    const std::optional<SimTime> selection = selection_within_limit(group);
    if (!selection) return std::nullopt;
    const std::optional<SimTime> exchange = problem_.cost.allgather_within_limit(sent_bytes(group));
    if (!exchange) return std::nullopt;
    return Priced{*selection, *exchange};
  }
  /// The exchange of `elements` kept elements.
  SimTime exchange_of_kept(std::int64_t elements) const {
    return problem_.cost.allgather(elements * (settings_.value_bytes + settings_.index_bytes));
  }

  /// The message of backward-order layers [first, last).
  Message message(int first, int last) const {
    Group group;
    for (int u = first; u < last; ++u) group = merge(group, layer(u));
    Message m;
    m.begin = problem_.layer_begin(first);
    m.end = problem_.layer_begin(last);
    m.bytes = problem_.bytes_of(m.begin, m.end);
    m.sent_bytes = sent_bytes(group);
    m.duration = exchange(group);
    m.selection = selection_work(group);
    m.kind = CollectiveKind::sparse_allgather;
    return m;
  }

  Plan plan(const std::vector<int>& group_end) const {
    Plan plan;
    int first = 0;
    for (int last : group_end) {
      plan.push_back(message(first, last));
      first = last;
    }
    return plan;
  }

 private:
  /// Between measured sizes linear; below the first point proportional to d;
  /// above the last the d log2 d shape through the last point.
  double selection_seconds(const Group& group) const {
    const double d = static_cast<double>(group.elements);
    const auto& curve = settings_.selection_curve;
    if (curve.empty()) return d <= 1 ? 0.0 : settings_.selection_s * d * std::log2(d);
    const double first = curve.front().x;
    const double last = curve.back().x;
    if (d <= first) return curve.front().y * d / first;
    if (d >= last) return last > 1 ? curve.back().y * (d * std::log2(d)) / (last * std::log2(last)) : curve.back().y * d / last;
    return interpolate(curve, d);
  }
  /// The selection at the trace's speed, as a message holds it (each GPU takes it at its own speed).
  SimTime selection_work(const Group& group) const {
    return step_ns(selection_seconds(group),
                   [&] { return fmt::format("a top-k selection from {} elements", group.elements); });
  }

  const CommProblem& problem_;
  const SparseSettings& settings_;
  std::vector<Group> layers_;
};

}  // namespace mgsim
