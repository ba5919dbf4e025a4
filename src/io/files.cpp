#include "mgsim/io/files.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/io/utf8.hpp"
#include "gunzip.hpp"

namespace mgsim {
namespace {

std::string_view file_type(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// Creates a new empty file of an unpredictable name in `folder` (O_EXCL:
/// never an existing file or a planted link) and returns its descriptor, or
/// -1 with errno set.
int create_temporary(const std::filesystem::path& folder, std::filesystem::path& name) {
  std::random_device random;
  for (int attempt = 0; attempt < 64; ++attempt) {
    const std::uint64_t tag = (std::uint64_t{random()} << 32) ^ random();
    name = folder / fmt::format(".mgsim-{:016x}.tmp", tag);
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

/// The read set of the running command (ReadSetScope), or null.
std::atomic<ReadSet*> current_read_set{nullptr};

/// The temporaries of writes not yet in place, removed on a signal
/// (remove_temporaries_on_signal), and their lock, held from a temporary's
/// creation to its registration and from its rename or removal to its
/// release, so the signal's thread never misses one. Never destroyed: a
/// signal may come while the process exits.
struct Temporaries {
  std::recursive_mutex lock;  // SignalsHeld nests, and a write inside one takes it again
  std::set<std::string> live;
};
Temporaries& temporaries() {
  static auto* const all = new Temporaries;
  return *all;
}

/// The signals remove_temporaries_on_signal takes over.
sigset_t taken_signals() {
  sigset_t taken;
  sigemptyset(&taken);
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&taken, signal_number);
  return taken;
}

/// Waits for a taken signal; removes every live temporary, then ends the
/// process by that signal, its default action restored.
void remove_temporaries_then_die() {
  const sigset_t taken = taken_signals();
  int signal_number = 0;
  while (sigwait(&taken, &signal_number) != 0) {
  }
  const std::lock_guard lock(temporaries().lock);  // held to the end: no write renames or starts after this
  for (const std::string& temporary : temporaries().live) ::unlink(temporary.c_str());
  std::signal(signal_number, SIG_DFL);
  sigset_t just_this;
  sigemptyset(&just_this);
  sigaddset(&just_this, signal_number);
  pthread_sigmask(SIG_UNBLOCK, &just_this, nullptr);
  std::raise(signal_number);
  std::_Exit(128 + signal_number);  // not reached: the default action of each taken signal ends the process
}

}  // namespace

SignalsHeld::SignalsHeld() { temporaries().lock.lock(); }
SignalsHeld::~SignalsHeld() { temporaries().lock.unlock(); }

void remove_temporaries_on_signal() {
  const sigset_t taken = taken_signals();
  pthread_sigmask(SIG_BLOCK, &taken, nullptr);  // every later thread inherits it
  std::thread(remove_temporaries_then_die).detach();
}

void throw_input_error(InputKind kind, const std::string& message) {
  switch (kind) {
    case InputKind::trace: throw TraceError(message);
    case InputKind::curve: throw CurveError(message);
    case InputKind::config: break;
  }
  throw ConfigError(message);
}

namespace {

/// Throws the input kind's error: "<file>: <what>".
[[noreturn]] void fail_reading(const std::filesystem::path& file, InputKind kind, std::string_view what) {
  throw_input_error(kind, fmt::format("{}: {}", file.string(), what));
}

/// The descriptor of an input file ("-": standard input) for reading,
/// after the checks of read_input_file, recorded in the current ReadSet.
Descriptor open_input(const std::filesystem::path& file, InputKind kind) {
  const auto fail = [&](std::string_view what) { fail_reading(file, kind, what); };
  const bool standard_input = file == "-";
  // O_NONBLOCK, kept: opening a FIFO must not wait for a writer (it is refused below), and reading a
  // kernel file that waits for data (/proc/kmsg, a regular file to stat) fails instead of blocking.
  Descriptor in{standard_input ? STDIN_FILENO : ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  struct stat info {};
  if (in.get() < 0 || ::fstat(in.get(), &info) != 0) fail(fmt::format("cannot read: {}", std::strerror(errno)));
  if (standard_input && ::isatty(STDIN_FILENO) == 1) {  // it would wait for typing, silently
    fail("standard input is a terminal: pipe the input in (< file), or name a file");
  }
  if (ReadSet* set = current_read_set.load(); standard_input && set != nullptr && !set->claim_standard_input()) {
    fail("standard input can be read once, and another input of this command read it: give the others as files");
  }
  if (!standard_input && !S_ISREG(info.st_mode)) {
    fail(fmt::format("expected a regular file (or - for standard input), got {}", file_type(info.st_mode)));
  }
  if (S_ISREG(info.st_mode) && static_cast<std::uint64_t>(info.st_size) > kMaxInputBytes) {  // refused unread
    fail(fmt::format("expected at most {} bytes (1 GiB), got {}", kMaxInputBytes, info.st_size));
  }
  // Standard input redirected from a file is an input too: no output of the run may replace that file.
  if (ReadSet* set = current_read_set.load(); set != nullptr && (!standard_input || S_ISREG(info.st_mode))) {
    set->add_input(file, static_cast<std::uint64_t>(info.st_dev), static_cast<std::uint64_t>(info.st_ino));
  }
  return in;
}

}  // namespace

InputFile::InputFile(const std::filesystem::path& file, InputKind kind)
    : file_(file), kind_(kind), fd_(open_input(file, kind)), buffer_(std::size_t{1} << 16) {}

Descriptor::~Descriptor() {
  if (fd_ >= 0 && fd_ != STDIN_FILENO) ::close(fd_);
}

std::size_t InputFile::read_into(char* into, std::size_t room) {
  for (;;) {
    const ssize_t got = ::read(fd_.get(), into, room);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && errno == EAGAIN) fail_reading(file_, kind_, "cannot read without waiting: not a file of data");
    if (got < 0) fail_reading(file_, kind_, fmt::format("cannot read: {}", std::strerror(errno)));
    read_ += static_cast<std::size_t>(got);
    if (read_ > kMaxInputBytes) {
      fail_reading(file_, kind_, fmt::format("expected at most {} bytes (1 GiB), got more", kMaxInputBytes));
    }
    return static_cast<std::size_t>(got);
  }
}

InputFile::int_type InputFile::underflow() {
  if (gptr() == egptr()) {
    const std::size_t got = read_into(buffer_.data(), buffer_.size());
    setg(buffer_.data(), buffer_.data(), buffer_.data() + got);
  }
  return gptr() == egptr() ? traits_type::eof() : traits_type::to_int_type(*gptr());
}

std::string_view InputFile::look_ahead(std::size_t count) {
  count = std::min(count, buffer_.size());
  std::size_t have = gptr() == nullptr ? 0 : static_cast<std::size_t>(egptr() - gptr());
  if (have < count) {
    if (have > 0) std::memmove(buffer_.data(), gptr(), have);
    for (std::size_t got = 1; have < count && got > 0; have += got) {
      got = read_into(buffer_.data() + have, buffer_.size() - have);
    }
    setg(buffer_.data(), buffer_.data(), buffer_.data() + have);
  }
  return {gptr(), std::min(count, have)};
}

InputText::InputText(const std::filesystem::path& file, InputKind kind) : raw_(file, kind) {
  if (is_gzip(raw_.look_ahead(2))) gunzipped_ = std::make_unique<GunzipBuffer>(raw_, file.string(), kind);
}

InputText::~InputText() = default;

std::string read_input_file(const std::filesystem::path& file, InputKind kind) {
  InputText in(file, kind);
  std::string text;
  char buffer[1 << 16];
  while (const std::streamsize got = in.text().sgetn(buffer, sizeof buffer)) {
    text.append(buffer, static_cast<std::size_t>(got));
  }
  return text;
}

void check_utf8(std::string_view text, const std::string& source, InputKind kind) {
  if (const auto bad = find_invalid_utf8(text)) {
    throw_input_error(kind, fmt::format("{}: {}: expected UTF-8 text", source, describe_byte(text, *bad)));
  }
}

FileIdentity FileIdentity::of(const std::filesystem::path& file) {
  FileIdentity identity{file};
  if (file == "-") {  // standard input: the file it is redirected from, if any
    struct stat info {};
    if (::fstat(STDIN_FILENO, &info) == 0 && S_ISREG(info.st_mode)) {
      identity.device = static_cast<std::uint64_t>(info.st_dev);
      identity.inode = static_cast<std::uint64_t>(info.st_ino);
      identity.exists = true;
    }
    return identity;
  }
  std::error_code error;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(std::filesystem::absolute(file), error);
  if (!error) identity.canonical = canonical;
  struct stat info {};
  if (::stat(file.c_str(), &info) == 0) {
    identity.device = static_cast<std::uint64_t>(info.st_dev);
    identity.inode = static_cast<std::uint64_t>(info.st_ino);
    identity.exists = true;
  }
  return identity;
}

bool FileIdentity::operator==(const FileIdentity& other) const {
  return (exists && other.exists && device == other.device && inode == other.inode) || canonical == other.canonical;
}

void ReadSet::add_input(const std::filesystem::path& file, std::uint64_t device, std::uint64_t inode) {
  {
    const std::lock_guard lock(mutex_);  // read again (each prediction of a calibration reads its curves)
    for (const Identity& input : inputs_) {
      if (input.file.device == device && input.file.inode == inode) return;
    }
  }
  Identity input = file == "-" ? Identity{"standard input", {}} : Identity{file, FileIdentity::of(file)};  // stdin: by inode alone
  input.file.device = device;  // the file opened, even if the name was replaced since
  input.file.inode = inode;
  input.file.exists = true;
  const std::lock_guard lock(mutex_);
  for (const Identity& output : outputs_) {
    if (output.file == input.file) return;
  }
  inputs_.push_back(std::move(input));
}

bool ReadSet::claim_standard_input() {
  const std::lock_guard lock(mutex_);
  return !std::exchange(standard_input_read_, true);
}

void ReadSet::check_output(const std::filesystem::path& output) {
  Identity identity{output, FileIdentity::of(output_target(output))};
  const std::lock_guard lock(mutex_);
  for (const Identity& input : inputs_) {
    if (input.file == identity.file) {
      throw OutputError(fmt::format("{}: is an input of this run ({}): refusing to overwrite it", output.string(),
                                    input.name.string()));
    }
  }
  outputs_.push_back(std::move(identity));
}

ReadSetScope::ReadSetScope(ReadSet& set) : previous_(current_read_set.exchange(&set)) {}

ReadSetScope::~ReadSetScope() { current_read_set.store(previous_); }

void check_output(const std::filesystem::path& output) {
  if (ReadSet* set = current_read_set.load()) {
    set->check_output(output);
  } else {
    output_target(output);
  }
}

std::filesystem::path output_target(const std::filesystem::path& file) {
  std::error_code error;
  const auto link = std::filesystem::symlink_status(file, error);
  if (error || !std::filesystem::exists(link)) {
    // A new file: its folder must be there, so a command with several outputs refuses before writing any.
    const std::filesystem::path folder = file.parent_path().empty() ? "." : file.parent_path();
    struct stat info {};
    int why = ::stat(folder.c_str(), &info) != 0 ? errno : S_ISDIR(info.st_mode) ? 0 : ENOTDIR;
    // A name past the folder's limit, refused before any output is written (red team: an export wrote ranks
    // 0-9 and failed at 10, whose name was one character longer).
    const long most = why == 0 ? ::pathconf(folder.c_str(), _PC_NAME_MAX) : -1;
    if (most > 0 && file.filename().string().size() > static_cast<std::size_t>(most)) why = ENAMETOOLONG;
    if (why != 0) throw OutputError(fmt::format("{}: cannot write: {}", file.string(), std::strerror(why)));
    return file;
  }
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

void write_file_atomically(const std::filesystem::path& file, std::string_view text) {
  StagedFiles staged;
  staged.add(file, text);
  staged.commit();
}

StagedFiles::~StagedFiles() {
  const std::lock_guard lock(temporaries().lock);
  for (const Staged& s : staged_) {
    ::unlink(s.temporary.c_str());
    temporaries().live.erase(s.temporary.string());
  }
}

void StagedFiles::add(const std::filesystem::path& file, std::string_view text) {
  check_output(file);
  const std::filesystem::path target = output_target(file);
  const auto fail = [&](std::string_view why) {
    throw OutputError(fmt::format("{}: cannot write: {}", file.string(), why));
  };
  std::filesystem::path temporary;
  std::unique_lock lock(temporaries().lock);
  const Descriptor out{create_temporary(target.parent_path(), temporary)};
  if (out.get() < 0) fail(std::strerror(errno));
  staged_.push_back({file, temporary, target});  // removed by the destructor unless committed
  temporaries().live.insert(temporary.string());
  lock.unlock();
  for (std::string_view rest = text; !rest.empty();) {
    const ssize_t written = ::write(out.get(), rest.data(), rest.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) fail(std::strerror(errno));
    rest.remove_prefix(static_cast<std::size_t>(written));
  }
  if (::fsync(out.get()) != 0) fail(std::strerror(errno));
}

void StagedFiles::commit() {
  // A signal waits for the last rename, so it leaves all the outputs in place or none (red team: SIGINT between
  // renames left 14 of an export's 2048 rank files beside 2034 older ones).
  const SignalsHeld held;
  for (std::size_t done = 0; done < staged_.size(); ++done) {
    const Staged& s = staged_[done];
    if (::rename(s.temporary.c_str(), s.target.c_str()) != 0) {
      const std::string message = fmt::format("{}: cannot write: {}", s.file.string(), std::strerror(errno));
      staged_.erase(staged_.begin(), staged_.begin() + static_cast<std::ptrdiff_t>(done));  // in place: not removed
      throw OutputError(message);
    }
    temporaries().live.erase(s.temporary.string());
  }
  staged_.clear();
}

}  // namespace mgsim
