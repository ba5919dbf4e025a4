#include "gunzip.hpp"

#include <fmt/format.h>
#include <zlib.h>

namespace mgsim {

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

GunzipBuffer::GunzipBuffer(std::streambuf& compressed, std::string source, InputKind kind)
    : compressed_(compressed),
      source_(std::move(source)),
      kind_(kind),
      stream_(std::make_unique<z_stream>()),
      in_(std::size_t{1} << 16),
      out_(std::size_t{1} << 16) {
  if (inflateInit2(stream_.get(), 16 + MAX_WBITS) != Z_OK) {  // 16: a gzip header, not a bare zlib one
    fail("cannot start zlib to decompress it");
  }
}

GunzipBuffer::~GunzipBuffer() { inflateEnd(stream_.get()); }

void GunzipBuffer::fail(std::string_view what) const { throw_input_error(kind_, fmt::format("{}: {}", source_, what)); }

GunzipBuffer::int_type GunzipBuffer::underflow() {
  while (gptr() == egptr() && !ended_) inflate_some();
  return gptr() == egptr() ? traits_type::eof() : traits_type::to_int_type(*gptr());
}

void GunzipBuffer::refill() {
  z_stream& z = *stream_;
  if (z.avail_in > 0 || input_done_) return;
  const std::streamsize got = compressed_.sgetn(in_.data(), static_cast<std::streamsize>(in_.size()));
  z.next_in = reinterpret_cast<Bytef*>(in_.data());
  z.avail_in = static_cast<uInt>(got);
  input_done_ = got == 0;
}

void GunzipBuffer::inflate_some() {
  z_stream& z = *stream_;
  refill();
  z.next_out = reinterpret_cast<Bytef*>(out_.data());
  z.avail_out = static_cast<uInt>(out_.size());
  const int status = inflate(&z, Z_NO_FLUSH);
  const std::size_t got = out_.size() - z.avail_out;
  if (produced_ == 0 && got >= 2 && is_gzip({out_.data(), 2})) {  // red team: "a NUL byte at byte 4"
    fail("decompressed, it is gzip data again: expected a file compressed once (gunzip it once first)");
  }
  produced_ += got;
  if (produced_ > kMaxInputBytes) fail(fmt::format("decompresses to more than {} bytes (1 GiB)", kMaxInputBytes));
  setg(out_.data(), out_.data(), out_.data() + got);
  if (status == Z_STREAM_END) {
    refill();
    ended_ = z.avail_in == 0;
    if (ended_) return;
    // Another member follows, or bytes that are none (red team: a newline after the data was "truncated").
    if (static_cast<unsigned char>(*z.next_in) != 0x1f || (z.avail_in >= 2 && z.next_in[1] != 0x8b)) {
      fail("bytes follow the end of its gzip data: expected a whole gzip file and nothing after it");
    }
    if (inflateReset(&z) != Z_OK) fail("cannot restart zlib for the next gzip member");
    return;
  }
  // Z_OK: progress; Z_BUF_ERROR: none, the input ended inside a member.
  if (status == Z_OK && !(got == 0 && input_done_)) return;
  fail(fmt::format("gzip data is {}: expected a whole gzip file",
                   status == Z_OK || status == Z_BUF_ERROR ? "truncated" : "corrupt"));
}

}  // namespace mgsim
