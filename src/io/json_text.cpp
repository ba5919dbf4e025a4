#include "mgsim/io/json_text.hpp"

#include <cmath>

#include <fmt/format.h>

#include "mgsim/version.hpp"

namespace mgsim {
namespace {

std::string float_text(double value) {
  if (!std::isfinite(value)) return "null";
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

template <typename Json>
void append(std::string& out, const Json& value, int indent, int depth) {
  const bool compact = indent < 0;
  const auto open = [&](char bracket) {
    out += bracket;
    if (!compact) out += '\n';
  };
  const auto margin = [&](int level) {
    if (!compact) out.append(static_cast<std::size_t>(indent * level), ' ');
  };
  const auto close = [&](char bracket) {
    if (!compact) out += '\n';
    margin(depth);
    out += bracket;
  };
  const char* separator = compact ? "," : ",\n";
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      if (value.empty()) return void(out += "{}");
      open('{');
      bool first = true;
      for (const auto& [key, element] : value.items()) {
        if (!first) out += separator;
        first = false;
        margin(depth + 1);
        out += Json(key).dump();
        out += compact ? ":" : ": ";
        append(out, element, indent, depth + 1);
      }
      return close('}');
    }
    case nlohmann::json::value_t::array: {
      if (value.empty()) return void(out += "[]");
      open('[');
      bool first = true;
      for (const Json& element : value) {
        if (!first) out += separator;
        first = false;
        margin(depth + 1);
        append(out, element, indent, depth + 1);
      }
      return close(']');
    }
    case nlohmann::json::value_t::number_float: return void(out += float_text(value.template get<double>()));
    default: out += value.dump();  // strings (nlohmann's escaping), integers, booleans, null
  }
}

template <typename Json>
void stamp(Json& report) {
  report["mgsim_version"] = std::string(version());
  report["format_version"] = kReportFormatVersion;
}

}  // namespace

std::string json_text(const nlohmann::json& document, int indent) {
  std::string out;
  append(out, document, indent, 0);
  return out;
}

void append_json_text(std::string& out, const nlohmann::json& value, int indent, int depth) {
  append(out, value, indent, depth);
}

std::string json_text(const nlohmann::ordered_json& document, int indent) {
  std::string out;
  append(out, document, indent, 0);
  return out;
}

void stamp_report(nlohmann::json& report) { stamp(report); }
void stamp_report(nlohmann::ordered_json& report) { stamp(report); }

}  // namespace mgsim
