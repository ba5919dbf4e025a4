#include "et_attributes.hpp"

#include <fmt/format.h>

#include <limits>

#include "mgsim/error.hpp"

namespace mgsim::chakra {
namespace {

ChakraProtoMsg::AttributeProto& add(Attributes& attrs, std::string_view name) {
  ChakraProtoMsg::AttributeProto& attr = *attrs.Add();
  attr.set_name(std::string(name));
  return attr;
}

}  // namespace

void add_int(Attributes& attrs, std::string_view name, std::int64_t value) { add(attrs, name).set_int64_val(value); }
void add_bool(Attributes& attrs, std::string_view name, bool value) { add(attrs, name).set_bool_val(value); }
void add_double(Attributes& attrs, std::string_view name, double value) { add(attrs, name).set_double_val(value); }
void add_string(Attributes& attrs, std::string_view name, std::string_view value) {
  add(attrs, name).set_string_val(std::string(value));
}
void add_ints(Attributes& attrs, std::string_view name, const std::vector<std::int64_t>& values) {
  auto* list = add(attrs, name).mutable_int64_list()->mutable_values();
  list->Add(values.begin(), values.end());
}
void add_doubles(Attributes& attrs, std::string_view name, const std::vector<double>& values) {
  auto* list = add(attrs, name).mutable_double_list()->mutable_values();
  list->Add(values.begin(), values.end());
}

const ChakraProtoMsg::AttributeProto* find_attr(const Attributes& attrs, std::string_view name) {
  for (const ChakraProtoMsg::AttributeProto& attr : attrs) {
    if (attr.name() == name) return &attr;
  }
  return nullptr;
}

namespace {
[[noreturn]] void wrong_kind(std::string_view name, const std::string& what, std::string_view expected) {
  throw TraceError(fmt::format("{}: attribute '{}': expected {}", what, name, expected));
}

/// The attribute `name` of a node, refused when given twice (red team: a comm_size of 4000 then 9 took the
/// first without a word).
const ChakraProtoMsg::AttributeProto* find_once(const Attributes& attrs, std::string_view name, const std::string& what) {
  const ChakraProtoMsg::AttributeProto* found = nullptr;
  for (const ChakraProtoMsg::AttributeProto& attr : attrs) {
    if (attr.name() != name) continue;
    if (found) throw TraceError(fmt::format("{}: attribute '{}' given twice: a damaged node", what, name));
    found = &attr;
  }
  return found;
}
}  // namespace

std::optional<double> double_attr(const Attributes& attrs, std::string_view name, const std::string& what) {
  const ChakraProtoMsg::AttributeProto* attr = find_once(attrs, name, what);
  if (!attr) return std::nullopt;
  if (!attr->has_double_val()) wrong_kind(name, what, "a double_val");
  return attr->double_val();
}

std::optional<std::string> string_attr(const Attributes& attrs, std::string_view name, const std::string& what) {
  const ChakraProtoMsg::AttributeProto* attr = find_once(attrs, name, what);
  if (!attr) return std::nullopt;
  if (!attr->has_string_val()) wrong_kind(name, what, "a string_val");
  return attr->string_val();
}

std::optional<std::vector<std::int64_t>> ints_attr(const Attributes& attrs, std::string_view name,
                                                   const std::string& what) {
  const ChakraProtoMsg::AttributeProto* attr = find_once(attrs, name, what);
  if (!attr) return std::nullopt;
  if (!attr->has_int64_list()) wrong_kind(name, what, "an int64_list");
  return std::vector<std::int64_t>(attr->int64_list().values().begin(), attr->int64_list().values().end());
}

std::optional<std::vector<double>> doubles_attr(const Attributes& attrs, std::string_view name,
                                                const std::string& what) {
  const ChakraProtoMsg::AttributeProto* attr = find_once(attrs, name, what);
  if (!attr) return std::nullopt;
  if (!attr->has_double_list()) wrong_kind(name, what, "a double_list");
  return std::vector<double>(attr->double_list().values().begin(), attr->double_list().values().end());
}

std::optional<std::int64_t> int_attr(const Attributes& attrs, std::string_view name, const std::string& what) {
  const ChakraProtoMsg::AttributeProto* attr = find_once(attrs, name, what);
  if (!attr) return std::nullopt;
  using A = ChakraProtoMsg::AttributeProto;
  switch (attr->value_case()) {
    case A::kInt64Val: return attr->int64_val();
    case A::kInt32Val: return attr->int32_val();
    case A::kUint32Val: return attr->uint32_val();
    case A::kSint64Val: return attr->sint64_val();
    case A::kSint32Val: return attr->sint32_val();
    case A::kUint64Val:
      if (attr->uint64_val() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return static_cast<std::int64_t>(attr->uint64_val());
      }
      break;
    default: break;
  }
  wrong_kind(name, what, "an integer below 2^63");
}

}  // namespace mgsim::chakra
