#pragma once
// Files in and out, made safe against what a user (or a fuzzer) may hand
// over. An input is a regular file, or "-" for standard input, read whole
// and at most kMaxInputBytes long: a device, a FIFO or /dev/zero is refused,
// never waited on. An output never replaces an input of the same run, nor a
// device or a folder; through a symbolic link it replaces the link's target.
// Failures throw the error type of the input kind, or OutputError, with a
// message that names the file.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace mgsim {

/// What an input file holds, which picks the error type of its failures.
enum class InputKind { config, trace, curve };

/// Throws ConfigError, TraceError or CurveError with `message`.
[[noreturn]] void throw_input_error(InputKind kind, const std::string& message);

/// Largest input read: 1 GiB, four times a Kineto trace of a 1,000-layer
/// model over ten steps and far past any mgsim trace (1,000,000 layers take
/// about 150 MB).
inline constexpr std::size_t kMaxInputBytes = std::size_t{1} << 30;

/// The whole of an input file ("-": standard input).
std::string read_input_file(const std::filesystem::path& file, InputKind kind);

/// Throws "<source>: line L, byte B: 0xNN: expected UTF-8 text" unless `text` is UTF-8.
void check_utf8(std::string_view text, const std::string& source, InputKind kind);

/// Throws OutputError when `output` is the same file as one of `inputs`.
void check_not_an_input(const std::filesystem::path& output, const std::vector<std::filesystem::path>& inputs);

/// The file an output to `file` replaces: `file` itself, or the target of the
/// symbolic link `file`. Throws OutputError when that is not a regular file
/// (a device, a folder, a FIFO) or the link points nowhere.
std::filesystem::path output_target(const std::filesystem::path& file);

}  // namespace mgsim
