#include "et_stream.hpp"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>

#include "mgsim/error.hpp"

namespace mgsim::chakra {
namespace {

using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

void write_record(CodedOutputStream& out, const google::protobuf::MessageLite& message) {
  const std::size_t size = message.ByteSizeLong();
  if (size > kMaxRecordBytes) {
    throw OutputError(fmt::format("a Chakra ET message of {} bytes is past the limit of {}", size, kMaxRecordBytes));
  }
  out.WriteVarint32(static_cast<std::uint32_t>(size));
  message.SerializeWithCachedSizes(&out);
}

/// Reads the record at the stream's position into `message`.
void read_record(CodedInputStream& in, std::size_t total, google::protobuf::MessageLite& message,
                 const std::string& what) {
  const auto at = static_cast<std::size_t>(in.CurrentPosition());
  std::uint32_t size = 0;
  if (!in.ReadVarint32(&size)) {
    throw TraceError(fmt::format("{}: length prefix cut off or malformed (past the end of the file or longer than 5 bytes)", what));
  }
  const std::size_t left = total - static_cast<std::size_t>(in.CurrentPosition());
  if (size > kMaxRecordBytes) {
    throw TraceError(fmt::format("{}: length {} is past the limit of {} bytes", what, size, kMaxRecordBytes));
  }
  if (size > left) {
    throw TraceError(fmt::format("{}: length {} runs past the end of the file ({} bytes left after byte {})", what,
                                 size, left, at));
  }
  const CodedInputStream::Limit limit = in.PushLimit(static_cast<int>(size));
  const google::protobuf::LogSilencer quiet;  // a bad record is this error's one line, not also protobuf's log line
  if (!message.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
    throw TraceError(fmt::format("{}: not a valid {} message", what, message.GetTypeName()));
  }
  in.PopLimit(limit);
}

void check_node(const ChakraProtoMsg::Node& node, const std::string& what) {
  if (node.type() == ChakraProtoMsg::INVALID_NODE || !ChakraProtoMsg::NodeType_IsValid(node.type())) {
    throw TraceError(fmt::format("{} (id {}): unknown node type {} (Chakra defines 1 to 10)", what, node.id(),
                                 static_cast<int>(node.type())));
  }
}

}  // namespace

std::string encode_et(const EtFile& file) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    CodedOutputStream out(&stream);
    write_record(out, file.metadata);
    for (const ChakraProtoMsg::Node& node : file.nodes) write_record(out, node);
  }
  return bytes;
}

EtFile decode_et(std::string_view bytes, const std::string& source) {
  if (bytes.size() > kMaxFileBytes) {
    throw TraceError(fmt::format("{}: {} bytes, past the limit of {}", source, bytes.size(), kMaxFileBytes));
  }
  CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  EtFile file;
  if (bytes.empty()) throw TraceError(fmt::format("{}: empty file (a Chakra ET starts with its GlobalMetadata)", source));
  read_record(in, bytes.size(), file.metadata, fmt::format("{}: byte 0 (GlobalMetadata)", source));
  while (static_cast<std::size_t>(in.CurrentPosition()) < bytes.size()) {
    if (file.nodes.size() == kMaxNodes) {
      throw TraceError(fmt::format("{}: more than {} nodes", source, kMaxNodes));
    }
    const auto at = static_cast<std::size_t>(in.CurrentPosition());
    const std::string what = fmt::format("{}: byte {} (node {})", source, at, file.nodes.size());
    ChakraProtoMsg::Node& node = file.nodes.emplace_back();
    read_record(in, bytes.size(), node, what);
    check_node(node, what);
    file.offsets.push_back(at);
  }
  return file;
}

}  // namespace mgsim::chakra
