#include "mgsim/app/run_grid.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "mgsim/counted.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/json_reader.hpp"
#include "mgsim/limits.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/io/utf8.hpp"

namespace mgsim {
namespace {

/// Collective outermost, then network, then GPUs per node. A measured
/// collective takes no network: it appears once per node size, labelled
/// "measured".
std::vector<GridLink> make_links(const Scenario& scenario) {
  std::vector<GridLink> links;
  for (const CollectiveSpec& collective : scenario.collectives) {
    const CollectiveInfo& info = find_collective(collective.name);
    std::vector<std::pair<std::string, Network>> networks;
    if (info.needs_curve) {
      networks.emplace_back("measured", Network{});
    } else {
      for (const NamedNetwork& entry : scenario.networks) networks.emplace_back(entry.label, entry.network);
    }
    for (const auto& [label, network] : networks) {
      for (std::size_t n = 0; n < scenario.gpus_per_node.size(); ++n) {
        const int per_node = scenario.gpus_per_node[n];
        std::unique_ptr<Collective> model;
        try {
          model = info.make(scenario.collective_settings(collective, network, per_node));
        } catch (const Error& error) {
          scenario.where(info.needs_curve ? "curves" : "network").fail(error.what());
        }
        links.push_back({collective.label(), label, per_node, n, std::move(model),
                         info.needs_curve ? std::nullopt : std::optional(network)});
      }
    }
  }
  return links;
}

/// Whether any of `specs` is a schedule with `flag` set in its row.
bool any_schedule(const std::vector<ScheduleSpec>& specs, bool ScheduleInfo::*flag) {
  return std::any_of(specs.begin(), specs.end(),
                     [flag](const ScheduleSpec& spec) { return !spec.builder() && find_schedule(spec.name).*flag; });
}

/// Fails when `scenario`'s grid, with `links` cost models (collectives on
/// their networks x node sizes), would hold more than kMaxRuns runs.
void check_runs(const Scenario& scenario, std::size_t links) {
  const double runs = static_cast<double>(scenario.traces.size()) * static_cast<double>(links) *
                      static_cast<double>(scenario.gpus.size()) * static_cast<double>(scenario.schedules.size());
  if (runs > static_cast<double>(kMaxRuns)) {
    JsonWhere{scenario.file.string(), std::string(scenario.at), InputKind::config}.fail(fmt::format(
        "the grid holds {:.0f} runs ({} x {} collective and network pairs x {} x {} x {}), past the {} one grid may "
        "hold (docs/limits.md): give fewer values",
        runs, counted(static_cast<std::int64_t>(scenario.traces.size()), "trace"),
        links / scenario.gpus_per_node.size(), counted(static_cast<std::int64_t>(scenario.gpus_per_node.size()), "node size"),
        counted(static_cast<std::int64_t>(scenario.gpus.size()), "GPU count"),
        counted(static_cast<std::int64_t>(scenario.schedules.size()), "schedule"), kMaxRuns));
  }
}

}  // namespace

void check_work(double steps, double max_steps) {
  if (steps <= max_steps) return;
  // The budget to suggest, rounded up to two digits: rounded to nearest, it could fall short of the runs.
  const double unit = std::pow(10.0, std::floor(std::log10(steps)) - 1);
  const double enough = std::ceil(steps / unit) * unit;
  throw ConfigError(fmt::format("the runs take about {:.2g} steps (each run's plan, its replays under variability, "
                                "ranks x iterations, speed classes x layers, a timeline's layers: docs/limits.md), "
                                "past --max-work {:.2g} (about {:.0f} s at 10 M steps/s or more): give --max-work "
                                "{:.2g} to run them anyway, or fewer iterations, GPUs, speed classes or layers",
                                steps, max_steps, max_steps / 1e7, enough));
}

const Workload& WorkloadCache::get(const std::filesystem::path& trace) {
  auto& loaded = loaded_[trace];
  if (!loaded) loaded = std::make_unique<Workload>(load_trace(trace));
  return *loaded;
}

void WorkloadCache::put(const std::filesystem::path& name, Trace trace) {
  loaded_[name] = std::make_unique<Workload>(std::move(trace));
}

RunGrid::RunGrid(Scenario scenario, WorkloadCache& cache) : scenario_(std::move(scenario)) {
  links_ = make_links(scenario_);
  check_runs(scenario_, links_.size());  // before any trace is read
  for (std::size_t t = 0; t < scenario_.traces.size(); ++t) {
    const JsonWhere where = scenario_.where(scenario_.traces.size() > 1 ? fmt::format("trace[{}]", t) : "trace");
    workloads_.push_back(where.reading_file(InputKind::trace, [&] { return &cache.get(scenario_.traces[t]); }));
  }
  for (const ScheduleSpec& spec : scenario_.schedules) {
    schedules_.push_back(spec.builder() ? nullptr : spec.build());
    labels_.push_back(spec.label());
  }
  check_gpu_counts();
  check_layer_names();
  for (int gpus : scenario_.gpus) {
    for (int per_node : scenario_.gpus_per_node) clusters_.push_back(Cluster::with_shares(gpus, per_node, scenario_.speed_classes));
  }
}

void RunGrid::check_gpu_counts() const {
  const bool sparse = any_schedule(scenario_.schedules, &ScheduleInfo::sparse);
  const bool sharded = any_schedule(scenario_.schedules, &ScheduleInfo::sharded);
  const bool dense = std::any_of(scenario_.schedules.begin(), scenario_.schedules.end(), [](const ScheduleSpec& spec) {
    return spec.builder() || !find_schedule(spec.name).sparse;  // the sparse ones all-gather alone
  });
  for (const GridLink& link : links_) {
    for (std::size_t g = 0; g < scenario_.gpus.size(); ++g) {
      const int gpus = scenario_.gpus[g];
      const auto fail = [&](const std::string& why) {
        if (!scenario_.gpus_origin.empty()) throw ConfigError(fmt::format("{}: {}", scenario_.gpus_origin, why));
        scenario_.where(fmt::format("gpus[{}]", g)).fail(why);
      };
      for (const int rank : scenario_.variability.stragglers.ranks) {
        if (rank >= gpus) fail(fmt::format("straggler rank {} is not below the GPU count, {}", rank, gpus));
      }
      const std::string context = fmt::format("{} with collective '{}' on network '{}', {} per node: ", counted(gpus, "GPU"),
                                              link.collective, link.network, counted(link.gpus_per_node, "GPU"));
      try {
        const CommCost cost(*link.model, gpus);  // fails where the model cannot answer, or past an hour
        if (dense) cost(1);
        if (sparse) cost.allgather(1);
        if (sharded) cost.reduce_scatter(gpus);  // and with it the all-gather
      } catch (const Error& error) {
        fail(context + error.what());
      }
    }
  }
}

void RunGrid::check_layer_names() const {
  for (std::size_t s = 0; s < scenario_.schedules.size(); ++s) {
    const ScheduleSpec& spec = scenario_.schedules[s];
    for (std::size_t t = 0; t < workloads_.size(); ++t) {
      const Trace& trace = workloads_[t]->trace;
      for (const auto& entry : spec.sparse.layer_density) {
        const std::string& name = entry.first;  // named: clang 14 cannot capture structured bindings
        const auto named = [&](const Layer& layer) { return layer.name == name; };
        const auto count = std::count_if(trace.layers.begin(), trace.layers.end(), named);
        if (count != 1) {  // red team: a density for a name two layers share was given to both
          throw ConfigError(fmt::format("{}.{}: '{}': {} of trace {} {} this name", spec.layer_density_at,
                                        printable(name), labels_[s], count == 0 ? "no layer" : counted(count, "layer"),
                                        scenario_.trace_labels[t], count == 0 ? "has" : "have"));
        }
      }
    }
  }
}

std::size_t RunGrid::size() const {
  return workloads_.size() * links_.size() * scenario_.gpus.size() * schedules_.size();
}

GridIndex RunGrid::index(std::size_t run) const {
  GridIndex at;
  at.schedule = run % schedules_.size();
  run /= schedules_.size();
  at.gpus = run % scenario_.gpus.size();
  run /= scenario_.gpus.size();
  at.link = run % links_.size();
  at.trace = run / links_.size();
  return at;
}

RunPoint RunGrid::point(std::size_t run) const {
  const GridIndex at = index(run);
  const GridLink& link = links_[at.link];
  return {.workload = *workloads_[at.trace],
          .collective = *link.model,
          .spec = scenario_.schedules[at.schedule],
          .schedule = schedules_[at.schedule].get(),
          .cluster = clusters_[at.gpus * scenario_.gpus_per_node.size() + link.node_size],
          .overlap = scenario_.overlap,
          .network = link.links,
          .message_overhead_s = scenario_.message_overhead_s,
          .iteration_overhead_s = scenario_.iteration_overhead_s,
          .variability = scenario_.variability,
          .iterations = scenario_.iterations,
          .optimizer = scenario_.optimizer,
          .node_input_samples_per_s = scenario_.node_input_samples_per_s,
          .sync_overhead_s = scenario_.sync_overhead_s};
}

RunRow RunGrid::row(std::size_t run, const RunMetrics& metrics) const {
  const GridIndex at = index(run);
  return {workloads_[at.trace]->trace.model, labels_[at.schedule], links_[at.link].collective, metrics,
          scenario_.message_unit};
}

void RunGrid::rethrow_in_context(std::size_t run, const ConfigError& error) const {
  const GridIndex at = index(run);
  const GridLink& link = links_[at.link];
  // Which link, where the grid has several (red team: a sweep over two networks did not say which failed).
  const std::string on = links_.size() == 1 ? std::string()
                                            : fmt::format(", collective '{}' on network '{}', {} per node", link.collective,
                                                          link.network, counted(link.gpus_per_node, "GPU"));
  throw ConfigError(fmt::format("{}: {}, schedule '{}', trace {}{}: {}", scenario_.file.string(),
                                counted(scenario_.gpus[at.gpus], "GPU"), labels_[at.schedule], scenario_.trace_labels[at.trace],
                                on, error.what()));
}

Evaluation RunGrid::evaluate(std::size_t run, bool keep_iteration) const {
  try {
    return mgsim::evaluate(point(run), keep_iteration);
  } catch (const ConfigError& error) {
    rethrow_in_context(run, error);
  }
}

double RunGrid::estimate_steps(std::size_t run) const {
  try {
    return mgsim::estimate_steps(point(run));
  } catch (const ConfigError& error) {
    rethrow_in_context(run, error);
  }
}

RunRow RunGrid::row(std::size_t run) const { return row(run, evaluate(run).metrics); }

std::string RunGrid::key(std::size_t run) const {
  const GridIndex at = index(run);
  const GridLink& link = links_[at.link];
  return fmt::format("{},{},{},{},{},{},{},{},", run, csv_field(scenario_.trace_labels[at.trace]),
                     csv_field(link.network), link.gpus_per_node, csv_field(workloads_[at.trace]->trace.model),
                     csv_field(labels_[at.schedule]), csv_field(link.collective), scenario_.gpus[at.gpus]);
}

std::string RunGrid::csv_line(std::size_t run) const {
  const GridIndex at = index(run);
  const GridLink& link = links_[at.link];
  return fmt::format("{},{},{},{},{}", run, csv_field(scenario_.trace_labels[at.trace]), csv_field(link.network),
                     link.gpus_per_node, csv_row(row(run)));
}

std::string RunGrid::header() { return "run,trace,network,gpus_per_node," + csv_header(); }

}  // namespace mgsim
