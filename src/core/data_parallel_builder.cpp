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

DataParallelBuilder::DataParallelBuilder(const BuildContext& context, bool fold)
    : workload_(context.workload),
      cluster_(context.cluster),
      placement_(context.workload, context.cluster, context.collective),
      plan_(schedule_of(context).plan(placement_.problem)),
      overlap_(context.overlap),
      interference_(context.overlap),
      variability_(context.variability),
      fold_(fold) {
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
    for (int u = 0; u < layout.layer_count(); ++u) {
      nominal_.push_back(profile.backward[static_cast<std::size_t>(layout.layer[layout.layer_begin[u]])]);
      base_work_.push_back(engine.work(stream.layer_first[static_cast<std::size_t>(u)]));
    }
    compute_.push_back(profile.compute_time());
  }
}

void DataParallelBuilder::start_sweep(Engine& engine, Random& random, SimTime start) {
  Engine nominal;
  const std::vector<GpuClass> classes = streams();
  const ReplayDag dag(nominal, classes, workload_.layout, plan_);
  sweep_.emplace(nominal, dag, workload_.layout, plan_, cluster_, variability_, law_.get(), overlap_);
  engine.add(0);
  start_ = sweep_->first_forward(start);
  sweep_ends_ = sweep_->run(random, start_);
}

void DataParallelBuilder::build(Engine& engine, Random& random, SimTime start) {
  start_ = start;
  if (swept() && engine.size() == 0) return start_sweep(engine, random, start);
  if (swept()) {
    engine.rewind();
    sweep_ends_ = sweep_->run(random, start);
    return;
  }
  std::vector<SimTime> gates;  // of the previous window, for the envelope
  if (dag_ && engine.size() > 0) {
    // Each stream's backward starts where its forward of the previous window ended.
    if (envelope_) {
      gates = dag_->gates(engine);
      dag_->restart(engine, start);
    } else {
      dag_->restart(engine, start, dag_->forward_ends(engine));
    }
  } else {
    InterferenceModel* model = overlap_.ideal() ? nullptr : &interference_;
    interference_.clear();
    engine.set_rate_model(model);
    const std::vector<GpuClass> classes = streams();
    dag_.emplace(engine, classes, workload_.layout, plan_, start, model);
    if (per_rank() && law_) record_nominal(engine, classes);
    if (!variability_.none() && !per_rank()) {  // the ranks folded, without interference
      envelope_.emplace(engine, dag_->streams().front(), cluster_, variability_, law_.get());
    }
    // The first window: every stream's forward ran from `start`, and the
    // iteration starts where the slowest one's ended.
    if (envelope_) {
      start_ = start + envelope_->slowest_forward();
      dag_->release(engine, start_, {});
    } else {
      std::vector<SimTime> release = dag_->forward_works(engine);
      start_ = start + *std::max_element(release.begin(), release.end());
      for (SimTime& r : release) r += start;
      dag_->release(engine, start_, release);
    }
  }
  if (envelope_) {
    envelope_wait_ = envelope_->apply(engine, random, start, gates);
  } else if (law_) {
    draw_delays(engine, random);
  }
}

void DataParallelBuilder::draw_delays(Engine& engine, Random& random) const {
  const std::size_t layers = static_cast<std::size_t>(workload_.layout.layer_count());
  const std::vector<ReplayDag::Stream>& streams = dag_->streams();
  for (std::size_t s = 0; s < streams.size(); ++s) {
    const ReplayDag::Stream& stream = streams[s];
    const SimTime* nominal = &nominal_[s * (layers + 1)];
    const SimTime* base = &base_work_[s * layers];
    // The delay of the forward pass (or of the whole iteration) lengthens the
    // window's first activity: what follows it waits either way.
    if (variability_.per == DelayUnit::iteration) {
      engine.set_work(stream.layer_first[0], base[0] + law_->draw(random, compute_[s]));
      continue;
    }
    const SimTime forward = law_->draw(random, nominal[0]);
    for (std::size_t u = 0; u < layers; ++u) {
      engine.set_work(stream.layer_first[u], base[u] + law_->draw(random, nominal[u + 1]) + (u == 0 ? forward : 0));
    }
  }
}

IterationTiming DataParallelBuilder::collect(const Engine& engine) const {
  const ReplayDag::Ends ends = sweep_ ? sweep_ends_ : dag_->ends(engine);
  // Compute ends, for the metrics, a forward after the backward: the window's
  // forward may wait for messages.
  IterationTiming timing{start_, ends.iteration_end, ends.compute_end - ends.parameter_wait + ends.forward,
                         envelope_ ? envelope_wait_ : ends.wait};
  timing.samples = static_cast<double>(cluster_.size()) * workload_.trace.batch_size;
  return timing;
}

}  // namespace mgsim
