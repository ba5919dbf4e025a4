// `mgsim list`: the schedules (with their parameters), the iteration builders
// a config names like schedules (with theirs) and the collectives mgsim knows.

#include <iterator>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include <fmt/ranges.h>

#include "mgsim/collective.hpp"
#include "mgsim/iteration.hpp"
#include "mgsim/schedule.hpp"

namespace mgsim::cli {
namespace {

void list() {
  std::string out;
  const auto to = std::back_inserter(out);
  fmt::format_to(to, "schedules:\n");
  for (const ScheduleInfo& info : schedule_registry()) {
    fmt::format_to(to, "  {:<20} {}\n", info.name, info.description);
    for (const ParamSpec& param : info.params) {
      fmt::format_to(to, "      {} = {:g}: {}\n", param.name, param.default_value, param.description);
    }
  }
  fmt::format_to(to, "iteration builders (named in a config's schedules):\n");
  for (const BuilderInfo& info : builder_registry()) {
    if (!info.standalone) continue;
    fmt::format_to(to, "  {:<20} {}\n", info.name, info.description);
    for (const ParamSpec& param : info.params) {
      fmt::format_to(to, "      {} = {:g}: {}\n", param.name, param.default_value, param.description);
    }
    for (const ChoiceSpec& choice : info.choices) {
      fmt::format_to(to, "      {} = {} ({}{}): {}\n", choice.name, choice.default_value,
                     fmt::join(choice.choices, " | "), choice.file_allowed ? " | a graph file" : "", choice.description);
    }
  }
  fmt::format_to(to, "collectives:\n");
  for (const CollectiveInfo& info : collective_registry()) fmt::format_to(to, "  {:<20} {}\n", info.name, info.description);
  write_stdout(out);  // once, so that a failed write is the one "standard output" error
}

}  // namespace

void add_list_command(CLI::App& app) {
  app.add_subcommand("list", "list schedules and iteration builders (with parameters) and collectives")->callback(list);
}

}  // namespace mgsim::cli
