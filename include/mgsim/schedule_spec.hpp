#pragma once
// A schedule as a scenario names it, with the parameters the user gave: a
// plan-based schedule (schedule.hpp), or a standalone iteration builder
// (nbsgd, dpsgd, matcha; iteration.hpp) that takes text parameters and a
// graph too. The io layer reads specs; the evaluator builds from them.

#include <memory>
#include <optional>
#include <string>

#include "mgsim/iteration.hpp"
#include "mgsim/schedule.hpp"
#include "mgsim/topology.hpp"

namespace mgsim {

struct ScheduleSpec {
  std::string name;
  ParamValues params;
  ChoiceValues choices;        ///< a builder's text parameters (trigger, topology, barrier), as given
  std::optional<Graph> graph;  ///< read from the file `topology` names
  SparseOptions sparse;              ///< per-layer densities, loaded selection curve
  std::string selection_curve_file;  ///< where `sparse.selection_curve` came from, as the config names it: the label's
  MessageUnit unit = MessageUnit::tensor;  ///< the scenario's `message_unit`
  std::string layer_density_at;  ///< where `sparse.layer_density` was given ("run.json: schedules[1].layer_density")
  /// "ddp" or "ddp(bucket_cap_mb=50)": named by the values the run is built
  /// with, however they are written (one label per run), unique within a scenario.
  std::string label() const;
  /// Builds the schedule. Throws ConfigError for a standalone builder, which has no plan.
  std::unique_ptr<Schedule> build() const;
  /// The standalone builder the name selects, or null for a plan-based schedule.
  const BuilderInfo* builder() const { return find_schedule_or_builder(name).builder; }
  BuilderParams builder_params() const { return {params, choices, graph}; }
};

}  // namespace mgsim
