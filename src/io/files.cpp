#include "mgsim/io/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/io/utf8.hpp"

namespace mgsim {
namespace {

std::string_view file_type(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// Closes a descriptor it opened; standard input stays open.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd != STDIN_FILENO) ::close(fd);
  }
};

}  // namespace

void throw_input_error(InputKind kind, const std::string& message) {
  switch (kind) {
    case InputKind::trace: throw TraceError(message);
    case InputKind::curve: throw CurveError(message);
    case InputKind::config: break;
  }
  throw ConfigError(message);
}

std::string read_input_file(const std::filesystem::path& file, InputKind kind) {
  const auto fail = [&](std::string_view what) { throw_input_error(kind, fmt::format("{}: {}", file.string(), what)); };
  const bool standard_input = file == "-";
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  const Descriptor in{standard_input ? STDIN_FILENO : ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  struct stat info {};
  if (in.fd < 0 || ::fstat(in.fd, &info) != 0) fail(fmt::format("cannot read: {}", std::strerror(errno)));
  if (!standard_input && !S_ISREG(info.st_mode)) {
    fail(fmt::format("expected a regular file (or - for standard input), got {}", file_type(info.st_mode)));
  }
  if (!standard_input && ::fcntl(in.fd, F_SETFL, 0) != 0) fail(fmt::format("cannot read: {}", std::strerror(errno)));
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(in.fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail(fmt::format("cannot read: {}", std::strerror(errno)));
    if (got == 0) return text;
    if (text.size() + static_cast<std::size_t>(got) > kMaxInputBytes) {
      fail(fmt::format("expected at most {} bytes (1 GiB), got more", kMaxInputBytes));
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
}

void check_utf8(std::string_view text, const std::string& source, InputKind kind) {
  if (const auto bad = find_invalid_utf8(text)) {
    throw_input_error(kind, fmt::format("{}: {}: expected UTF-8 text", source, describe_byte(text, *bad)));
  }
}

void check_not_an_input(const std::filesystem::path& output, const std::vector<std::filesystem::path>& inputs) {
  for (const std::filesystem::path& input : inputs) {
    std::error_code error;
    if (input != "-" && std::filesystem::equivalent(output, input, error)) {
      throw OutputError(fmt::format("{}: is an input of this run ({}): refusing to overwrite it", output.string(),
                                    input.string()));
    }
  }
}

std::filesystem::path output_target(const std::filesystem::path& file) {
  std::error_code error;
  const auto link = std::filesystem::symlink_status(file, error);
  if (error || !std::filesystem::exists(link)) return file;
  std::filesystem::path target = file;
  if (std::filesystem::is_symlink(link)) {
    target = std::filesystem::canonical(file, error);
    if (error) throw OutputError(fmt::format("{}: is a symbolic link to a missing file: refusing it", file.string()));
  }
  struct stat info {};
  if (::stat(target.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
    throw OutputError(fmt::format("{}: is {}, not a regular file: refusing to replace it", file.string(),
                                  file_type(info.st_mode)));
  }
  return target;
}

}  // namespace mgsim
