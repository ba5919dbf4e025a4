#pragma once
// Decompressing gzip files in memory (zlib), for traces saved as .json.gz.
// Private to the importers.

#include <string>
#include <string_view>

namespace mgsim::profile {

/// Whether `bytes` starts with the gzip magic number (1f 8b).
bool is_gzip(std::string_view bytes);

/// The decompressed content of a gzip stream (several members are joined).
/// Throws TraceError naming `source` on corrupt or truncated data, or when
/// the content passes kMaxInputBytes (files.hpp).
std::string gunzip(std::string_view compressed, const std::string& source);

}  // namespace mgsim::profile
