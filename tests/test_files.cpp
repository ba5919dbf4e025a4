// Input files are regular files (or "-") read with a size limit; outputs never
// replace an input, a device or a folder, and go through symbolic links.

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <string>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/io/files.hpp"
#include "mgsim/io/report.hpp"
#include "test_sweep_support.hpp"

namespace {

using mgsim::test::SweepTempDir;

std::string message_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const mgsim::Error& error) {
    return error.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("read_input_file returns a regular file whole", "[files]") {
  SweepTempDir dir;
  const auto file = dir.write("in.json", "{\"a\": 1}\n");
  CHECK(mgsim::read_input_file(file, mgsim::InputKind::config) == "{\"a\": 1}\n");
}

TEST_CASE("an input read a buffer at a time gives the bytes read_input_file gives", "[files]") {
  SweepTempDir dir;
  // 200,000 bytes: past three 64 KiB buffers.
  std::string text;
  for (int i = 0; text.size() < 200000; ++i) text += fmt::format("{},", i);
  const auto file = dir.write("big.json", text);
  mgsim::InputFile in(file, mgsim::InputKind::trace);
  CHECK(in.look_ahead(6) == "0,1,2,");  // left unread
  CHECK(std::string(std::istreambuf_iterator<char>(&in), {}) == text);
  CHECK(mgsim::read_input_file(file, mgsim::InputKind::trace) == text);
  mgsim::InputFile empty(dir.write("empty.json", ""), mgsim::InputKind::trace);
  CHECK(empty.look_ahead(2).empty());
  CHECK_THROWS_AS(mgsim::InputFile(dir.path() / "missing", mgsim::InputKind::curve), mgsim::CurveError);
}

TEST_CASE("a device, a FIFO and a folder are refused as inputs without reading or waiting", "[files]") {
  SweepTempDir dir;
  const auto fifo = dir.path() / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Opening a FIFO without a writer would block forever; it must be refused at once.
  CHECK_THAT(message_of([&] { mgsim::read_input_file(fifo, mgsim::InputKind::trace); }),
             Catch::Contains("expected a regular file (or - for standard input), got a FIFO"));
  CHECK_THROWS_AS(mgsim::read_input_file(fifo, mgsim::InputKind::trace), mgsim::TraceError);
  CHECK_THAT(message_of([&] { mgsim::read_input_file("/dev/zero", mgsim::InputKind::config); }),
             Catch::Contains("/dev/zero: expected a regular file (or - for standard input), got a device"));
  CHECK_THAT(message_of([&] { mgsim::read_input_file(dir.path(), mgsim::InputKind::curve); }),
             Catch::Contains("got a folder"));
  CHECK_THAT(message_of([&] { mgsim::read_input_file(dir.path() / "missing", mgsim::InputKind::curve); }),
             Catch::Contains("cannot read: No such file or directory"));
}

TEST_CASE("check_utf8 names the line and byte of the first invalid byte", "[files][utf8]") {
  CHECK_NOTHROW(mgsim::check_utf8("# caf\xC3\xA9\n", "log.txt", mgsim::InputKind::curve));
  CHECK(message_of([] { mgsim::check_utf8("ok\n# Ex\xE9mple\n", "log.txt", mgsim::InputKind::curve); }) ==
        "log.txt: line 2, byte 5: 0xe9: expected UTF-8 text");
}

TEST_CASE("an output that is a file the command read is refused, by any name or link", "[files]") {
  SweepTempDir dir;
  const auto input = dir.write("c.json", "{}");
  std::filesystem::create_symlink(input, dir.path() / "alias.json");
  std::filesystem::create_hard_link(input, dir.path() / "hard.json");
  mgsim::ReadSet read;
  const mgsim::ReadSetScope scope(read);
  mgsim::read_input_file(input, mgsim::InputKind::config);
  CHECK_THROWS_AS(mgsim::check_output(input), mgsim::OutputError);
  CHECK_THROWS_AS(mgsim::check_output(dir.path() / "alias.json"), mgsim::OutputError);  // the same canonical path
  CHECK_THROWS_AS(mgsim::check_output(dir.path() / "hard.json"), mgsim::OutputError);   // the same inode
  CHECK_THROWS_AS(mgsim::check_output(dir.path() / "sub" / ".." / "c.json"), mgsim::OutputError);
  CHECK_THAT(message_of([&] { mgsim::write_file_atomically(input, "x"); }),
             Catch::Contains("c.json: is an input of this run"));
  CHECK(dir.read("c.json") == "{}");
  CHECK_NOTHROW(mgsim::check_output(dir.path() / "new.json"));
}

TEST_CASE("a checked output read back (a sweep resuming) stays an output, not an input", "[files]") {
  SweepTempDir dir;
  const auto sidecar = dir.write("out.csv.fingerprint", "old\n");
  mgsim::ReadSet read;
  const mgsim::ReadSetScope scope(read);
  mgsim::check_output(sidecar);
  CHECK(mgsim::read_input_file(sidecar, mgsim::InputKind::config) == "old\n");
  mgsim::write_file_atomically(sidecar, "new\n");
  CHECK(dir.read("out.csv.fingerprint") == "new\n");
}

TEST_CASE("the temporary file of an output is a new file: a planted link is not followed", "[files]") {
  SweepTempDir dir;
  const auto victim = dir.write("victim.txt", "keep");
  // The old temporary name was predictable (TARGET.tmp.PID); plant links at every such name of this process.
  std::filesystem::create_symlink(victim, dir.path() / fmt::format("out.txt.tmp.{}", ::getpid()));
  mgsim::write_file_atomically(dir.path() / "out.txt", "written");
  CHECK(dir.read("victim.txt") == "keep");
  CHECK(dir.read("out.txt") == "written");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++files;
  CHECK(files == 3);  // victim, the planted link, out.txt: no temporary left
}

TEST_CASE("an output is created with the mode of a new file under the umask", "[files]") {
  SweepTempDir dir;
  const mode_t old = ::umask(022);
  mgsim::write_file_atomically(dir.path() / "out.txt", "x");
  ::umask(old);
  struct stat info {};
  REQUIRE(::stat((dir.path() / "out.txt").c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0644);  // 0666 less 022
}

TEST_CASE("an output through a symbolic link replaces the link's target and keeps the link", "[files]") {
  SweepTempDir dir;
  const auto target = dir.write("target.txt", "old");
  const auto link = dir.path() / "link.txt";
  std::filesystem::create_symlink(target, link);
  mgsim::write_file_atomically(link, "new");
  CHECK(std::filesystem::is_symlink(link));
  CHECK(dir.read("target.txt") == "new");
}

TEST_CASE("an output is never a device, a folder or a dangling link", "[files]") {
  SweepTempDir dir;
  std::filesystem::create_symlink(dir.path() / "nowhere", dir.path() / "dangling");
  CHECK_THAT(message_of([] { mgsim::write_file_atomically("/dev/null", "x"); }),
             Catch::Contains("/dev/null: is a device, not a regular file: refusing to replace it"));
  CHECK_THAT(message_of([&] { mgsim::write_file_atomically(dir.path(), "x"); }), Catch::Contains("is a folder"));
  CHECK_THAT(message_of([&] { mgsim::write_file_atomically(dir.path() / "dangling", "x"); }),
             Catch::Contains("is a symbolic link to a missing file"));
  struct stat info {};
  REQUIRE(::stat("/dev/null", &info) == 0);
  CHECK(S_ISCHR(info.st_mode));  // still the device
}

TEST_CASE("staged files are all put in place, or none when one cannot be written", "[files]") {
  SweepTempDir dir;
  const auto a = dir.path() / "a.txt";
  {
    mgsim::StagedFiles staged;
    staged.add(a, "first");
    CHECK_THROWS_AS(staged.add(dir.path() / "missing" / "b.txt", "second"), mgsim::OutputError);
  }  // never committed: nothing in place, no temporary left
  CHECK_FALSE(std::filesystem::exists(a));
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator{}) == 0);
  mgsim::StagedFiles staged;
  staged.add(a, "first");
  staged.add(dir.path() / "b.txt", "second");
  CHECK_FALSE(std::filesystem::exists(a));  // staged, not yet in place
  staged.commit();
  CHECK(mgsim::read_input_file(a, mgsim::InputKind::config) == "first");
  CHECK(mgsim::read_input_file(dir.path() / "b.txt", mgsim::InputKind::config) == "second");
}

TEST_CASE("a signal removes the temporaries of staged files and ends the process by that signal", "[files]") {
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    SweepTempDir dir;
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // a command killed between writing its outputs and putting them in place
      mgsim::remove_temporaries_on_signal();
      mgsim::StagedFiles staged;
      staged.add(dir.path() / "a.txt", "first");
      staged.add(dir.path() / "b.txt", "second");
      ::kill(::getpid(), signal_number);
      ::pause();
      std::_Exit(0);  // not reached: the signal ends the process
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == signal_number);
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator{}) == 0);
  }
}

TEST_CASE("a signal waits while SignalsHeld exists, then ends the process", "[files]") {
  // A sweep's CSV and its sidecar, or an export's rank files, are renamed under one: all or none (red team).
  SweepTempDir dir;
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    mgsim::remove_temporaries_on_signal();
    {
      const mgsim::SignalsHeld held;
      ::kill(::getpid(), SIGTERM);
      ::usleep(200000);  // the signal's thread has it by now, and waits
      mgsim::write_file_atomically(dir.path() / "done.txt", "written while the signal waited");
    }
    ::pause();
    std::_Exit(0);  // not reached
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(std::filesystem::exists(dir.path() / "done.txt"));
}
