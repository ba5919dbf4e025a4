#pragma once
// Reading and writing a node's attributes (AttributeProto: a name and one
// typed value) by name, and the attribute names mgsim writes.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "et_def.pb.h"

namespace mgsim::chakra {

using Attributes = google::protobuf::RepeatedPtrField<ChakraProtoMsg::AttributeProto>;

void add_int(Attributes& attrs, std::string_view name, std::int64_t value);
void add_bool(Attributes& attrs, std::string_view name, bool value);
void add_double(Attributes& attrs, std::string_view name, double value);
void add_string(Attributes& attrs, std::string_view name, std::string_view value);
void add_ints(Attributes& attrs, std::string_view name, const std::vector<std::int64_t>& values);
void add_doubles(Attributes& attrs, std::string_view name, const std::vector<double>& values);

/// The attribute called `name`, or null.
const ChakraProtoMsg::AttributeProto* find_attr(const Attributes& attrs, std::string_view name);

/// An integer attribute of any of Chakra's integer kinds (int64_val, int32_val,
/// uint64_val, ...), as producers differ; nullopt when absent. Throws
/// TraceError (`what` names the node) when it holds another kind of value.
std::optional<std::int64_t> int_attr(const Attributes& attrs, std::string_view name, const std::string& what);

/// Attributes of one kind, as mgsim writes them; nullopt when absent, a
/// TraceError naming `what` when of another kind.
std::optional<double> double_attr(const Attributes& attrs, std::string_view name, const std::string& what);
std::optional<std::string> string_attr(const Attributes& attrs, std::string_view name, const std::string& what);
std::optional<std::vector<std::int64_t>> ints_attr(const Attributes& attrs, std::string_view name,
                                                   const std::string& what);
std::optional<std::vector<double>> doubles_attr(const Attributes& attrs, std::string_view name,
                                                const std::string& what);

}  // namespace mgsim::chakra
