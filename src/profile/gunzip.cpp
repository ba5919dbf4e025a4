#include "gunzip.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <array>
#include <limits>

#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"

namespace mgsim::profile {

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(std::string_view compressed, const std::string& source) {
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {  // 16: a gzip header, not a bare zlib one
    throw TraceError(fmt::format("{}: cannot start zlib to decompress it", source));
  }
  std::string out;
  std::array<char, 1 << 16> buffer{};
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());  // kMaxInputBytes < 4 GiB
  int status = Z_OK;
  while (true) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer.data());
    stream.avail_out = static_cast<uInt>(buffer.size());
    status = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer.data(), buffer.size() - stream.avail_out);
    if (out.size() > kMaxInputBytes) {
      inflateEnd(&stream);
      throw TraceError(fmt::format("{}: decompresses to more than {} bytes (1 GiB)", source, kMaxInputBytes));
    }
    if (status == Z_STREAM_END && stream.avail_in > 0) {  // another gzip member follows
      status = inflateReset(&stream);
      continue;
    }
    if (status != Z_OK) break;
    if (stream.avail_in == 0 && stream.avail_out != 0) break;
  }
  inflateEnd(&stream);
  if (status != Z_STREAM_END) {
    throw TraceError(fmt::format("{}: gzip data is {}: expected a whole .json.gz file", source,
                                 status == Z_OK || status == Z_BUF_ERROR ? "truncated" : "corrupt"));
  }
  return out;
}

}  // namespace mgsim::profile
