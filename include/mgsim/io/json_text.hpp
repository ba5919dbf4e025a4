#pragma once
// JSON text of every file and report mgsim writes. Laid out as nlohmann's
// dump(indent) lays it out, with one difference: a floating-point number is
// printed in its shortest form that reads back as the same double (fmt's
// "{}"), where nlohmann's Grisu2 sometimes prints 17 digits
// (0.0016984980000000001 for 0.001698498). A float keeps a ".0" when it has no
// fraction, so it reads back as a float; NaN and infinities become null.

#include <string>

#include <nlohmann/json.hpp>

namespace mgsim {

/// The text of `document`: `indent` spaces per level, or all on one line
/// (no spaces) when `indent` is negative; no final newline.
std::string json_text(const nlohmann::json& document, int indent);
std::string json_text(const nlohmann::ordered_json& document, int indent);
/// Appends the text of `value` to `out` as json_text lays it out at nesting
/// `depth` (its inner lines indented for that depth, its first line not):
/// an element of a long array written one at a time (a timeline's events).
void append_json_text(std::string& out, const nlohmann::json& value, int indent, int depth);

/// Adds the top-level fields "mgsim_version" and "format_version"
/// (mgsim/version.hpp) to a report's JSON object.
void stamp_report(nlohmann::json& report);
void stamp_report(nlohmann::ordered_json& report);

}  // namespace mgsim
