// `mgsim list`: the schedules (with their parameters) and collectives mgsim knows.

#include <fmt/format.h>

#include "commands.hpp"
#include "mgsim/collective.hpp"
#include "mgsim/schedule.hpp"

namespace mgsim::cli {
namespace {

void list() {
  fmt::print("schedules:\n");
  for (const ScheduleInfo& info : schedule_registry()) {
    fmt::print("  {:<20} {}\n", info.name, info.description);
    for (const ParamSpec& param : info.params) {
      fmt::print("      {} = {:g}: {}\n", param.name, param.default_value, param.description);
    }
  }
  fmt::print("collectives:\n");
  for (const CollectiveInfo& info : collective_registry()) fmt::print("  {:<20} {}\n", info.name, info.description);
}

}  // namespace

void add_list_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand("list", "list schedules (with parameters) and collectives");
  command->callback(list);
  add_examples(command, {"mgsim list"});
}

}  // namespace mgsim::cli
