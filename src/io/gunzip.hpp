#pragma once
// Decompressing gzip files as they are read (zlib): any input may be a
// .json.gz (InputText). Private to mgsim_io.

#include <cstddef>
#include <memory>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include "mgsim/io/files.hpp"

struct z_stream_s;  // zlib's

namespace mgsim {

/// Whether `bytes` starts with the gzip magic number (1f 8b).
bool is_gzip(std::string_view bytes);

/// The decompressed content of a gzip stream read from `compressed` (several
/// members are joined), a buffer at a time, so that a large .json.gz is
/// never held whole, compressed or not. A read throws the error of `kind`
/// naming `source` on corrupt or truncated data, or when the content passes
/// kMaxInputBytes; what reading `compressed` throws passes through.
class GunzipBuffer : public std::streambuf {
 public:
  GunzipBuffer(std::streambuf& compressed, std::string source, InputKind kind);
  ~GunzipBuffer() override;
  GunzipBuffer(const GunzipBuffer&) = delete;
  GunzipBuffer& operator=(const GunzipBuffer&) = delete;

 protected:
  int_type underflow() override;

 private:
  [[noreturn]] void fail(std::string_view what) const;
  /// Takes the next compressed bytes when zlib has used up the last.
  void refill();
  /// One call of inflate: some output, the next member, the end, or an error.
  void inflate_some();

  std::streambuf& compressed_;
  std::string source_;
  InputKind kind_;
  std::unique_ptr<z_stream_s> stream_;
  std::vector<char> in_;
  std::vector<char> out_;
  std::size_t produced_ = 0;  ///< decompressed bytes so far
  bool input_done_ = false;   ///< `compressed` has no more bytes
  bool ended_ = false;        ///< the last member ended where the input does
};

}  // namespace mgsim
