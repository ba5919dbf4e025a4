// `mgsim list`: the schedules, the iteration builders a config names like
// schedules, and the delay laws (with their parameters), and the collectives.

#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.hpp"
#include "mgsim/collective.hpp"
#include "mgsim/iteration.hpp"
#include "mgsim/schedule.hpp"
#include "mgsim/variability.hpp"

namespace mgsim::cli {
namespace {

std::string entry(std::string_view name, std::string_view description, std::span<const ParamSpec> params = {}) {
  std::string text = fmt::format("  {:<20} {}\n", name, description);
  for (const ParamSpec& param : params) {
    text += fmt::format("      {} = {:g}{}: {}\n", param.name, param.default_value, param.whole ? " (whole)" : "",
                        param.description);
  }
  return text;
}

void list() {
  std::string text = "schedules:\n";
  for (const ScheduleInfo& info : schedule_registry()) text += entry(info.name, info.description, info.params);
  text += "iteration builders (named in a config's schedules):\n";
  for (const BuilderInfo& info : builder_registry()) {
    if (!info.standalone) continue;
    text += entry(info.name, info.description, info.params);
    for (const ChoiceSpec& choice : info.choices) {
      text += fmt::format("      {} = {} ({}{}): {}\n", choice.name, choice.default_value,
                          fmt::join(choice.choices, " | "), choice.file_allowed ? " | a graph file" : "",
                          choice.description);
    }
  }
  text += "collectives:\n";
  for (const CollectiveInfo& info : collective_registry()) {
    text += entry(info.name, info.description);
    for (const CollectiveParam& param : info.params) {
      text += fmt::format("      {} in [{}, {}]{}: {}\n", param.name, param.min, param.max,
                          param.required ? ", required" : "", param.description);
    }
  }
  text += "delay laws (run config \"variability\"):\n";
  for (const LawInfo& info : law_registry()) text += entry(info.name, info.description, info.params);
  write_stdout(text);
}

}  // namespace

void add_list_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "list", "list schedules, iteration builders and delay laws (with parameters) and collectives");
  command->callback(list);
  add_examples(command, {"mgsim list"});
}

}  // namespace mgsim::cli
