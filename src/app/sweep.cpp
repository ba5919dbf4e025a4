#include "mgsim/app/sweep.hpp"

#include <fmt/format.h>

#include "mgsim/app/run_set.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/trace_io.hpp"

namespace mgsim {
namespace {

/// Collective outermost, then network, then GPUs per node. A measured
/// collective takes no network: it appears once per node size, labelled
/// "measured".
std::vector<SweepLink> make_links(const SweepConfig& config) {
  std::vector<SweepLink> links;
  for (const std::string& name : config.collectives) {
    const CollectiveInfo& info = find_collective(name);
    std::vector<std::pair<std::string, Network>> networks;
    if (info.needs_curve) {
      networks.emplace_back("measured", Network{});
    } else {
      for (const SweepNetwork& entry : config.networks) networks.emplace_back(entry.label, entry.network);
    }
    for (const auto& [label, network] : networks) {
      for (int gpus_per_node : config.gpus_per_node) {
        CollectiveSettings settings{network, gpus_per_node, {}, {}, {}};
        if (info.needs_curve) settings.curve = config.curve, settings.curve_source = config.curve_source;
        links.push_back({name, label, gpus_per_node, info.make(settings),
                         info.needs_curve ? std::nullopt : std::optional(network)});
      }
    }
  }
  return links;
}

/// Two layers of two tensors: enough for every schedule to plan, small
/// enough to plan for every cost model, GPU count and schedule of a grid.
Workload probe_workload() {
  Trace trace;
  trace.model = "probe";
  trace.forward_time_s = 1e-3;
  trace.layers = {{"a", {1000, 10}, 4, 1e-3, {}}, {"b", {5000, 50}, 4, 2e-3, {}}};
  return Workload(trace);
}

}  // namespace

Sweep::Sweep(SweepConfig config) : config_(std::move(config)) {
  for (const std::filesystem::path& trace : config_.traces) workloads_.emplace_back(load_trace(trace));
  try {
    links_ = make_links(config_);
  } catch (const ConfigError& error) {
    throw ConfigError(fmt::format("{}: collective: {}", config_.file.string(), error.what()));
  }
  for (const ScheduleSpec& spec : config_.schedules) {
    schedules_.push_back(spec.builder() ? nullptr : spec.build());
    const bool needs_network = spec.builder() && spec.builder()->needs_network;
    for (const SweepLink& link : links_) {
      if (needs_network && !link.links) {
        throw ConfigError(fmt::format("{}: schedules: '{}' prices exchanges with a network's alpha and beta; "
                                      "collective '{}' has none",
                                      config_.file.string(), spec.label(), link.collective));
      }
    }
    schedule_labels_.push_back(spec.label());
  }
  check_gpu_counts();
  for (int gpus : config_.gpus) clusters_.push_back(Cluster::homogeneous(gpus));
}

void Sweep::check_gpu_counts() const {
  const Workload probe = probe_workload();
  for (const bool plan : {false, true}) {  // every cost model at every GPU count first, then the schedules
    for (const SweepLink& link : links_) {
      for (std::size_t g = 0; g < config_.gpus.size(); ++g) {
        const int gpus = config_.gpus[g];
        const auto where = [&] {
          return fmt::format("{} GPUs with collective '{}' on network '{}', {} GPUs per node", gpus, link.collective,
                             link.network, link.gpus_per_node);
        };
        if (plan) {
          check_schedules(probe, link, gpus, where);
          continue;
        }
        try {
          const CommCost cost(*link.model, gpus);  // costs an empty message: fails where the model cannot answer
          cost(1);
        } catch (const Error& error) {
          throw ConfigError(fmt::format("{}: gpus[{}]: {}: {}", config_.file.string(), g, where(), error.what()));
        }
      }
    }
  }
}

void Sweep::check_schedules(const Workload& probe, const SweepLink& link, int gpus,
                            const std::function<std::string()>& where) const {
  const CommProblem problem = Placement(probe, Cluster::homogeneous(gpus), *link.model).problem;
  for (std::size_t s = 0; s < schedules_.size(); ++s) {
    if (!schedules_[s]) continue;  // a standalone builder: checked when the config was read
    try {
      schedules_[s]->plan(problem);
    } catch (const Error& error) {
      throw ConfigError(fmt::format("{}: schedules: '{}' cannot run with {}: {}", config_.file.string(),
                                    config_.schedules[s].label(), where(), error.what()));
    }
  }
}

std::size_t Sweep::size() const {
  return workloads_.size() * links_.size() * config_.gpus.size() * schedules_.size();
}

SweepPoint Sweep::point(std::size_t index) const {
  SweepPoint point;
  point.schedule = index % schedules_.size();
  index /= schedules_.size();
  point.gpus = index % config_.gpus.size();
  index /= config_.gpus.size();
  point.link = index % links_.size();
  point.trace = index / links_.size();
  return point;
}

RunRow Sweep::run(std::size_t index) const {
  const SweepPoint at = point(index);
  const Workload& workload = workloads_[at.trace];
  const SweepLink& link = links_[at.link];
  const ScheduleSpec& spec = config_.schedules[at.schedule];
  if (spec.builder()) {
    RunRow row = execute_builder_run(workload, link.collective, *link.model, spec,
                                     Cluster::homogeneous(config_.gpus[at.gpus], link.gpus_per_node), link.links,
                                     config_.variability, config_.iterations)
                     .row;
    row.unit = spec.unit;
    return row;
  }
  const Schedule& schedule = *schedules_[at.schedule];
  const Cluster& cluster = clusters_[at.gpus];
  RunRow row{workload.trace.model, schedule_labels_[at.schedule], link.collective,
             simulate(workload, *link.model, schedule, cluster), spec.unit};
  add_iteration_stats(row.metrics, workload, *link.model, schedule, cluster, {}, config_.variability,
                      config_.iterations);
  return row;
}

std::string Sweep::key(std::size_t index) const {
  const SweepPoint at = point(index);
  const SweepLink& link = links_[at.link];
  return fmt::format("{},{},{},{},{},{},{},{},", index, csv_field(config_.trace_labels[at.trace]),
                     csv_field(link.network), link.gpus_per_node, csv_field(workloads_[at.trace].trace.model),
                     csv_field(schedule_labels_[at.schedule]), csv_field(link.collective),
                     config_.gpus[at.gpus]);
}

std::string Sweep::row(std::size_t index) const {
  const SweepPoint at = point(index);
  const SweepLink& link = links_[at.link];
  return fmt::format("{},{},{},{},{}", index, csv_field(config_.trace_labels[at.trace]), csv_field(link.network),
                     link.gpus_per_node, csv_row(run(index)));
}

std::string Sweep::header() { return "run,trace,network,gpus_per_node," + csv_header(); }

}  // namespace mgsim
