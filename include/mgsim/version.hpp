#pragma once
// Which mgsim wrote an output, and in which format: every JSON report carries
// both as top-level fields "mgsim_version" and "format_version", every CSV
// report as its last two columns of the same names (docs/output-format.md).

#include <string_view>

namespace mgsim {

/// mgsim's version, fixed at build time: `git describe` of the source tree
/// ("0.2.0-12-g4da70c9", "0.1.0-g4da70c9-dirty"), or the project version
/// ("0.1.0") when it was built outside a git checkout.
std::string_view version();

/// The version of the report formats (JSON fields, CSV columns, their
/// meaning). Raised when a field or column is removed, renamed or changes
/// meaning; adding one does not raise it. 2: CSVs lost their first line
/// "# mgsim VERSION format 1" and gained the columns mgsim_version and
/// format_version.
inline constexpr int kReportFormatVersion = 2;

}  // namespace mgsim
