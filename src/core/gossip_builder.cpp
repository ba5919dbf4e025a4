#include "gossip_builder.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "mgsim/limits.hpp"
#include "rank_compute.hpp"

namespace mgsim {

GossipBuilder::GossipBuilder(const BuildContext& context, const Graph& graph, GossipSettings settings)
    : settings_(settings),
      samples_(static_cast<double>(context.cluster.size()) * context.workload.trace.batch_size),
      compute_time_(rank_compute_times(context.workload, context.cluster, context.variability.stragglers)),
      matchings_(decompose_matchings(graph)),
      ready_(compute_time_.size()),
      work_(compute_time_.size()),
      end_(compute_time_.size()) {
  if (!context.variability.law.empty()) law_ = make_law(context.variability.law, context.variability.params);
  const auto bytes = static_cast<double>(total_gradient_bytes(context.workload.trace));
  const Network network = context.network.value();
  for (const auto& matching : matchings_) {
    // A matching's exchanges run together: those between nodes share the
    // fabric, each pair sending the model both ways across it.
    const auto across = static_cast<double>(std::count_if(matching.begin(), matching.end(), [&](const auto& edge) {
      return context.cluster.node_of(edge.first) != context.cluster.node_of(edge.second);
    }));
    const double fabric_s = 2 * across * bytes * network.fabric_s_per_byte;
    auto& times = exchange_time_.emplace_back();
    for (const auto& edge : matching) {
      const int a = edge.first, b = edge.second;  // named copies: clang 14 cannot capture structured bindings
      const bool inside = context.cluster.node_of(a) == context.cluster.node_of(b);
      const Link& link = inside ? network.intra : network.inter;
      // The link's time, or the fabric's floor between nodes, as a collective's (docs/collectives.md).
      const double transfer = link.alpha_s + link.beta_s_per_byte * bytes;
      const double seconds = (inside ? transfer : std::max(transfer, fabric_s)) + context.message_overhead_s;
      times.push_back(
          step_ns(seconds, [&] { return fmt::format("the model exchange between ranks {} and {}", a, b); }));
    }
  }
}

void GossipBuilder::build(Engine& engine, Random& random, SimTime start) {
  const std::size_t ranks = compute_time_.size();
  // Each rank starts where the previous round left it.
  const bool first = engine.size() == 0;
  if (first) {
    engine.add(0);
  } else {
    engine.rewind();
  }
  start_ = start;
  for (std::size_t r = 0; r < ranks; ++r) {
    ready_[r] = first || settings_.barrier ? start : end_[r];
    work_[r] = compute_time_[r] + (law_ ? law_->draw(random, compute_time_[r]) : 0);
    end_[r] = ready_[r] + work_[r];
  }
  busy_.assign(ranks, 0);
  for (std::size_t j = 0; j < matchings_.size(); ++j) {
    if (settings_.budget < 1.0 && !(random.uniform() < settings_.budget)) continue;
    for (std::size_t e = 0; e < matchings_[j].size(); ++e) {
      const auto a = static_cast<std::size_t>(matchings_[j][e].first);
      const auto b = static_cast<std::size_t>(matchings_[j][e].second);
      const SimTime time = exchange_time_[j][e];
      end_[a] = end_[b] = std::max(end_[a], end_[b]) + time;
      busy_[a] += time;
      busy_[b] += time;
    }
  }
}

IterationTiming GossipBuilder::collect(const Engine&) const {
  IterationTiming timing{start_, start_, start_};
  for (std::size_t r = 0; r < end_.size(); ++r) {
    timing.end = std::max(timing.end, end_[r]);
    timing.compute_end = std::max(timing.compute_end, ready_[r] + work_[r]);
  }
  timing.samples = samples_;
  for (std::size_t r = 0; r < end_.size(); ++r) {
    timing.idle += (settings_.barrier ? timing.end : end_[r]) - ready_[r] - work_[r] - busy_[r];
  }
  timing.wait = timing.idle / static_cast<SimTime>(end_.size());
  return timing;
}

}  // namespace mgsim
