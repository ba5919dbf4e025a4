#include "data_parallel_builder.hpp"

#include <algorithm>
#include <stdexcept>

namespace mgsim {
namespace {

const Schedule& schedule_of(const BuildContext& context) {
  if (context.schedule == nullptr) throw std::invalid_argument("data-parallel builder: no schedule to plan");
  return *context.schedule;
}

}  // namespace

DataParallelBuilder::DataParallelBuilder(const BuildContext& context)
    : workload_(context.workload),
      cluster_(context.cluster),
      placement_(context.workload, context.cluster, context.collective),
      plan_(schedule_of(context).plan(placement_.problem)),
      overlap_(context.overlap),
      interference_(context.overlap),
      variability_(context.variability) {
  if (!variability_.law.empty()) law_ = make_law(variability_.law, variability_.params);
}

std::vector<GpuClass> DataParallelBuilder::streams() const {
  if (variability_.none()) return placement_.classes;
  if (!per_rank()) return {{cluster_.size(), workload_.profile}};
  const auto& slow = variability_.stragglers.ranks;
  // Per speed class, its profile at the stragglers' speed, made on first use.
  std::vector<std::optional<ComputeProfile>> straggling(static_cast<std::size_t>(cluster_.class_count()));
  std::vector<GpuClass> ranks;
  ranks.reserve(static_cast<std::size_t>(cluster_.size()));
  for (int r = 0; r < cluster_.size(); ++r) {
    const int c = cluster_.class_of(r);
    if (std::find(slow.begin(), slow.end(), r) == slow.end()) {
      ranks.push_back({1, placement_.classes[static_cast<std::size_t>(c)].compute});
      continue;
    }
    auto& profile = straggling[static_cast<std::size_t>(c)];
    if (!profile) profile = scaled_profile(workload_.profile, cluster_.speed(c) * variability_.stragglers.speed);
    ranks.push_back({1, *profile});
  }
  return ranks;
}

void DataParallelBuilder::record_nominal(const Engine& engine, std::span<const GpuClass> classes) {
  const TensorLayout& layout = workload_.layout;
  for (std::size_t s = 0; s < classes.size(); ++s) {
    const ComputeProfile& profile = classes[s].compute;
    const ReplayDag::Stream& stream = dag_->streams()[s];
    nominal_.push_back(profile.forward);
    base_work_.push_back(profile.forward);
    for (int u = 0; u < layout.layer_count(); ++u) {
      nominal_.push_back(profile.backward[static_cast<std::size_t>(layout.layer[layout.layer_begin[u]])]);
      base_work_.push_back(engine.work(stream.layer_first[static_cast<std::size_t>(u)]));
    }
    compute_.push_back(profile.compute_time());
  }
}

void DataParallelBuilder::build(Engine& engine, Random& random, SimTime start) {
  start_ = start;
  if (dag_ && engine.size() > 0) {
    dag_->restart(engine, start);
  } else {
    InterferenceModel* model = overlap_.ideal() ? nullptr : &interference_;
    interference_.clear();
    engine.set_rate_model(model);
    const std::vector<GpuClass> classes = streams();
    dag_.emplace(engine, classes, workload_.layout, plan_, start, model);
    if (per_rank() && law_) record_nominal(engine, classes);
    if (!variability_.none() && !per_rank()) {
      envelope_.emplace(engine, dag_->streams().front(), cluster_, variability_, law_.get());
    }
  }
  if (envelope_) {
    envelope_wait_ = envelope_->apply(engine, random);
  } else if (law_) {
    draw_delays(engine, random);
  }
}

void DataParallelBuilder::draw_delays(Engine& engine, Random& random) const {
  const std::size_t width = static_cast<std::size_t>(workload_.layout.layer_count()) + 1;
  const std::vector<ReplayDag::Stream>& streams = dag_->streams();
  for (std::size_t s = 0; s < streams.size(); ++s) {
    const ReplayDag::Stream& stream = streams[s];
    const SimTime* nominal = &nominal_[s * width];
    const SimTime* base = &base_work_[s * width];
    if (variability_.per == DelayUnit::iteration) {
      engine.set_work(stream.forward, base[0] + law_->draw(random, compute_[s]));
      continue;
    }
    engine.set_work(stream.forward, base[0] + law_->draw(random, nominal[0]));
    for (std::size_t u = 1; u < width; ++u) {
      engine.set_work(stream.layer_first[u - 1], base[u] + law_->draw(random, nominal[u]));
    }
  }
}

IterationTiming DataParallelBuilder::collect(const Engine& engine) const {
  const ReplayDag::Ends ends = dag_->ends(engine);
  IterationTiming timing{start_, ends.iteration_end, ends.compute_end, envelope_ ? envelope_wait_ : ends.wait};
  timing.samples = static_cast<double>(cluster_.size()) * workload_.trace.batch_size;
  return timing;
}

}  // namespace mgsim
