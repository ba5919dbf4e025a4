// `mgsim list`: the schedules and delay laws (with their parameters) and the collectives mgsim knows.

#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "mgsim/collective.hpp"
#include "mgsim/schedule.hpp"
#include "mgsim/variability.hpp"

namespace mgsim::cli {
namespace {

std::string entry(std::string_view name, std::string_view description, std::span<const ParamSpec> params = {}) {
  std::string text = fmt::format("  {:<20} {}\n", name, description);
  for (const ParamSpec& param : params) {
    text += fmt::format("      {} = {:g}: {}\n", param.name, param.default_value, param.description);
  }
  return text;
}

void list() {
  std::string text = "schedules:\n";
  for (const ScheduleInfo& info : schedule_registry()) text += entry(info.name, info.description, info.params);
  text += "collectives:\n";
  for (const CollectiveInfo& info : collective_registry()) text += entry(info.name, info.description);
  text += "delay laws (run config \"variability\"):\n";
  for (const LawInfo& info : law_registry()) text += entry(info.name, info.description, info.params);
  write_stdout(text);
}

}  // namespace

void add_list_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand("list", "list schedules and delay laws (with parameters) and collectives");
  command->callback(list);
  add_examples(command, {"mgsim list"});
}

}  // namespace mgsim::cli
