#pragma once
// The byte stream of a Chakra ET file: each message is prefixed by its
// length as a varint (what Chakra's protolib encodeMessage writes and its
// feeders read), first one GlobalMetadata, then Node messages to the end of
// the file. Reading is bounded: a record past kMaxRecordBytes, more than
// kMaxNodes nodes, a cut-off length, a record running past the end or a node
// type Chakra does not define is a TraceError naming the file and the byte.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "et_def.pb.h"

namespace mgsim::chakra {

/// Largest message accepted: 64 MiB, far past the largest node of a PyTorch
/// trace converted by Chakra (tens of kilobytes of tensor metadata).
inline constexpr std::uint32_t kMaxRecordBytes = std::uint32_t{1} << 26;
/// Largest file accepted: 1 GiB (what mgsim reads of any input, files.hpp).
inline constexpr std::size_t kMaxFileBytes = std::size_t{1} << 30;
/// Most nodes accepted in one file.
inline constexpr std::size_t kMaxNodes = std::size_t{1} << 24;

struct EtFile {
  ChakraProtoMsg::GlobalMetadata metadata;
  std::vector<ChakraProtoMsg::Node> nodes;  ///< in file order
  std::vector<std::size_t> offsets;         ///< per node: the byte its length prefix starts at
};

/// The file's bytes: metadata, then the nodes, each length-prefixed.
std::string encode_et(const EtFile& file);

/// Parses `bytes` (the contents of `source`); throws TraceError.
EtFile decode_et(std::string_view bytes, const std::string& source);

}  // namespace mgsim::chakra
