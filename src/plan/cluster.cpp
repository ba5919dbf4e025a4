#include "mgsim/plan/cluster.hpp"

#include <fmt/format.h>

#include "mgsim/io/config_parts.hpp"
#include "mgsim/io/json_reader.hpp"
#include "mgsim/error.hpp"
#include "mgsim/limits.hpp"

namespace mgsim::plan {

std::unique_ptr<Collective> Cluster::make_collective(int gpus) const {
  std::unique_ptr<Collective> model = find_collective(collective).make(settings);
  for (int group = 2; group <= gpus; group *= 2) {  // red team: refused mid-search, named at no key
    try {
      model->allreduce_seconds(1.0, group);
    } catch (const ConfigError& error) {
      JsonWhere{source, "gpus_per_node", InputKind::config}.fail(fmt::format(
          "a plan of --gpus {0} prices every power-of-two group up to {0}, and {1}: give a power of two or at least {0}", gpus, error.what()));
    }
  }
  return model;
}

Cluster default_cluster() {
  Cluster c;
  c.settings.gpus_per_node = 8;
  c.settings.network.intra = {5e-6, 1.0 / 150e9, 0.0};
  c.settings.network.inter = {10e-6, 1.0 / 12.5e9, 0.0};
  c.source = "default";
  return c;
}

Cluster load_cluster(const std::filesystem::path& file) {
  const nlohmann::json document = parse_json_file(file, InputKind::config);
  JsonReader top(document, {file.string(), "", InputKind::config});
  Cluster c;
  c.source = file.string();
  if (top.has("description")) top.text("description", kMaxProseBytes);
  const JsonWhere at = top.where().key("collective");
  if (top.has("collective")) {  // a name, or an object with its parameters, as in a run config (red team)
    const CollectiveSpec spec = read_collective(top.required("collective"), at);
    c.collective = spec.name;
    c.settings.params = spec.params;
  }
  const CollectiveInfo* info = &find_collective(c.collective);
  if (info->needs_curve) {
    at.fail("collective 'measured' prices only the measured GPU counts, a plan needs every power-of-two group: use "
            "an analytic collective");
  }
  if (!info->gathers) {  // red team: refused mid-search, in the words of a run's schedules
    at.fail(fmt::format("collective '{}' has no all-gather model, which a plan needs (re-layouts between strategies, "
                        "ZeRO stage 3's parameters): use an all-reduce collective such as ring, hierarchical or nccl",
                        c.collective));
  }
  if (top.has("gpus_per_node")) c.settings.gpus_per_node = static_cast<int>(top.integer("gpus_per_node", 1, kMaxGpus));
  JsonReader network = top.object("network");
  if (network.has("name")) network.text("name");  // a run config's label, accepted as run reads it (red team)
  c.settings.network = read_network(network);
  check_network_for(*info, c.settings.network, top.required("network"), top.where().key("network"));
  top.reject_unknown();
  return c;
}

}  // namespace mgsim::plan
