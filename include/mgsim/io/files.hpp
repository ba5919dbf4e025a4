#pragma once
// Files in and out, made safe against what a user (or a fuzzer) may hand
// over. An input is a regular file, or "-" for standard input, read whole
// (or a buffer at a time: InputFile) and at most kMaxInputBytes long: a
// device, a FIFO or /dev/zero is refused, never waited on. Every input read
// is recorded in the command's ReadSet (main makes one per command and
// installs it with ReadSetScope); every output is checked against it, by
// device and inode and by canonical path, before anything is written, so an
// output never replaces an input of the same run, whatever name or link
// reaches it, nor a device or a folder; through a symbolic link it replaces
// the link's target. Failures throw the error type of the input kind, or
// OutputError, with a message that names the file.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <streambuf>
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

/// A file descriptor, closed when this goes (standard input stays open);
/// moved, never copied.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(Descriptor&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  Descriptor& operator=(Descriptor&&) = delete;
  ~Descriptor();

  int get() const { return fd_; }

 private:
  int fd_;
};

/// The whole of an input file ("-": standard input), recorded in the current ReadSet.
std::string read_input_file(const std::filesystem::path& file, InputKind kind);

/// An input file ("-": standard input) read a buffer at a time, with the
/// checks of read_input_file and recorded as it records: for an input too
/// large to hold whole (a Kineto trace), read through a std::istream on it.
/// A read that fails or passes kMaxInputBytes throws the input kind's
/// error naming the file, out of the call that read (an istream's own calls
/// rethrow it when its exceptions() include badbit).
class InputFile : public std::streambuf {
 public:
  InputFile(const std::filesystem::path& file, InputKind kind);
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  /// The next `count` bytes (fewer only where the input ends first), left unread.
  std::string_view look_ahead(std::size_t count);

 protected:
  int_type underflow() override;

 private:
  /// Reads up to `room` bytes into `into`; 0 at the end of the input.
  std::size_t read_into(char* into, std::size_t room);

  std::filesystem::path file_;
  InputKind kind_;
  Descriptor fd_;
  std::size_t read_ = 0;  ///< bytes read from the file so far
  std::vector<char> buffer_;
};

/// An input file ("-": standard input) as text, read as InputFile reads
/// it and decompressed as it is read where it holds gzip data: any input may
/// be a .json.gz, whatever its name. Failures throw as InputFile's do.
class InputText {
 public:
  InputText(const std::filesystem::path& file, InputKind kind);
  ~InputText();
  InputText(const InputText&) = delete;
  InputText& operator=(const InputText&) = delete;

  /// The text, a buffer at a time.
  std::streambuf& text() { return gunzipped_ ? *gunzipped_ : raw_; }

 private:
  InputFile raw_;
  std::unique_ptr<std::streambuf> gunzipped_;  ///< set where the file is gzip
};

/// Throws "<source>: line L, byte B: 0xNN: expected UTF-8 text" unless `text` is UTF-8.
void check_utf8(std::string_view text, const std::string& source, InputKind kind);

/// A file as the system knows it, to tell whether two names are one file:
/// its device and inode where it exists (whatever link, hard link or
/// spelling names it), else its absolute path with links resolved (a file
/// not written yet).
struct FileIdentity {
  std::filesystem::path canonical;
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  bool exists = false;

  /// `file`'s identity; "-" is standard input, by the file it is redirected from.
  static FileIdentity of(const std::filesystem::path& file);
  /// The same file: the same device and inode, or the same canonical path.
  bool operator==(const FileIdentity& other) const;
};

/// The files one command read, against which its outputs are checked.
/// Thread-safe: a sweep's workers may read while the main thread writes.
class ReadSet {
 public:
  /// Records the input `file`, opened as (device, inode), once however often
  /// it is read; a file already checked as an output of this command (read
  /// back to resume) is not an input.
  void add_input(const std::filesystem::path& file, std::uint64_t device, std::uint64_t inode);
  /// Throws OutputError when the file an output to `output` replaces is one
  /// of the inputs (same device and inode, or same canonical path), or not a
  /// regular file (output_target); else remembers it as an output.
  void check_output(const std::filesystem::path& output);
  /// Whether standard input is still unread: true once, for the input that
  /// reads it (red team: plan --trace - --cluster - blamed the second for
  /// ending early).
  bool claim_standard_input();

 private:
  struct Identity {
    std::filesystem::path name;  ///< as the command was given it
    FileIdentity file;
  };
  std::mutex mutex_;
  std::vector<Identity> inputs_;
  std::vector<Identity> outputs_;
  bool standard_input_read_ = false;
};

/// Makes `set` the read set that read_input_file records into and
/// check_output checks, while the scope lives (one per command, in main).
class ReadSetScope {
 public:
  explicit ReadSetScope(ReadSet& set);
  ~ReadSetScope();
  ReadSetScope(const ReadSetScope&) = delete;
  ReadSetScope& operator=(const ReadSetScope&) = delete;

 private:
  ReadSet* previous_;
};

/// Checks `output` against the current read set (ReadSet::check_output);
/// without one (a library caller), only that it is a regular file or new.
/// A command calls it for each of its outputs before writing any.
void check_output(const std::filesystem::path& output);

/// The file an output to `file` replaces: `file` itself, or the target of the
/// symbolic link `file`. Throws OutputError when that is not a regular file
/// (a device, a folder, a FIFO) or the link points nowhere.
std::filesystem::path output_target(const std::filesystem::path& file);

/// Writes `text` to `file` whole or not at all, after check_output: into a
/// new file of an unpredictable name in the target's folder, created
/// exclusively (O_EXCL | O_NOFOLLOW, mode 0666 less the umask), flushed to
/// disk (fsync), then renamed over the target; through a symbolic link it
/// replaces the link's target (output_target). Throws OutputError.
void write_file_atomically(const std::filesystem::path& file, std::string_view text);

/// From this call on, SIGINT, SIGTERM and SIGHUP (Ctrl-C, `timeout`, a closed
/// terminal) remove every temporary of a write not yet in place, then end the
/// process by the signal as before (red team: a killed export left its
/// .mgsim-*.tmp files). Call once, first thing in main, before any thread
/// starts: it blocks those signals in every thread and waits for them in one
/// of its own. A program this process starts must get an empty signal mask
/// (`mgsim profile`'s start_program).
void remove_temporaries_on_signal();

/// While one exists, a taken signal waits: steps that must not be cut apart
/// (StagedFiles::commit's renames; a sweep's partial file and its
/// fingerprint, its CSV and its sidecar) run whole or not at all. Nests.
class SignalsHeld {
 public:
  SignalsHeld();
  ~SignalsHeld();
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;
};

/// Several outputs of one command, all or none: add() writes each as
/// write_file_atomically does up to its rename; commit() renames them all
/// into place. Destroyed before commit() (a later output failed: a full disk,
/// a folder that cannot be written), it removes every temporary and leaves
/// each target as it was (red team: exit 2 after writing some of them).
class StagedFiles {
 public:
  StagedFiles() = default;
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;
  ~StagedFiles();
  /// Throws OutputError.
  void add(const std::filesystem::path& file, std::string_view text);
  /// Throws OutputError, the outputs not yet renamed removed.
  void commit();

 private:
  struct Staged {
    std::filesystem::path file, temporary, target;
  };
  std::vector<Staged> staged_;
};

}  // namespace mgsim
