// `mgsim validate [PATH]`: predicted vs measured for the shipped validation
// set of real, public measurements (docs/fidelity.md).

#include <memory>
#include <string>

#include "commands.hpp"
#include "mgsim/app/validate.hpp"

namespace mgsim::cli {
namespace {

struct ValidateOptions {
  std::string path = "validation";
  std::string format = "table";
  std::string output;
  double max_work = kDefaultMaxWork;
};

}  // namespace

void add_validate_command(CLI::App& app) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* command = app.add_subcommand(
      "validate", "calibrate and predict the validation cases; predicted vs measured, median and max error");
  command
      ->add_option("path", options->path,
                   "a folder of validation cases (*.json, *.json.gz) or one case; default: the shipped cases")
      ->capture_default_str()
      ->transform(shipped_data());
  command->add_option("-f,--format", options->format, "table, csv (the rows) or json (rows, fitted values, summary)")
      ->capture_default_str();
  command->add_option("-o,--output", options->output, "write the report to this file instead of stdout (-: stdout)")
      ->check(output_name());
  command
      ->add_option("--max-work", options->max_work,
                   "most steps each case's calibration and predictions may simulate, every fit together")
      ->capture_default_str()
      ->check(finite_in(1, 1e15, true));
  add_examples(command, {"mgsim validate", "mgsim validate validation/dgx1-v100-resnet50.json -o report.txt",
                         "mgsim validate --format csv -o validation.csv"});
  command->callback([options] {
    const ReportFormat format = parse_report_format(options->format);
    emit(format_validation(validate(shipped_or_given(options->path), options->max_work), format),
         options->output);  // the default path is not transformed
  });
}

}  // namespace mgsim::cli
