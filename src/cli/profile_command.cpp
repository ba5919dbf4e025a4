// `mgsim profile layers|allreduce`: measure on this node's GPUs
// (docs/profiling.md). The CUDA parts live in profiler/ and are built only
// when CMake finds the CUDA toolkit with CUPTI: the CUPTI injection library
// and the training helper for `layers`, mgsim-allreduce-bench for
// `allreduce`. This file finds them, runs them, and turns what they record
// into a trace or a curve. Without a GPU it stops at once with
// "mgsim: error: no CUDA GPU found (...)" and exit code 2.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "mgsim/io/utf8.hpp"
#include "mgsim/counted.hpp"
#include "mgsim/io/report.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/profile/allreduce_bench.hpp"
#include "mgsim/profile/device.hpp"
#include "mgsim/profile/layer_profile.hpp"
#include "mgsim/profile/output.hpp"

extern char** environ;

namespace mgsim::cli {
namespace {

namespace fs = std::filesystem;

/// The profiler could not run (not built, a helper failed).
class ProfilerError : public Error {
 public:
  using Error::Error;
};

struct LayersOptions {
  std::string model;
  int batch_size = 0;
  std::string precision = "fp32";
  int warmup = 5;
  int iterations = 20;
  int device = 0;
  int gpus = 1;
  int seq_len = 128;
  std::string optimizer = "adam";
  std::string python = "python3";
  std::string output;
};

/// Highest CUDA device index profile takes.
constexpr int kMaxDevice = 1023;

/// Largest all-reduce message the bench is asked for: 1 TiB, past any GPU's memory.
constexpr std::int64_t kMaxMessageBytes = std::int64_t{1} << 40;

struct AllreduceOptions {
  int gpus = 0;
  std::int64_t min_bytes = 4;
  std::int64_t max_bytes = std::int64_t{1} << 30;
  int warmup = 5;
  int repetitions = 20;
  std::string output;
};

/// Where the CUDA parts are: $MGSIM_PROFILER_DIR, else the first folder of
/// MGSIM_PROFILER_DIRS (relative to this executable's folder, set by
/// profiler/CMakeLists.txt only when it built them) that exists: the
/// installed layout, then the build tree's.
fs::path profiler_dir() {
  if (const char* dir = std::getenv("MGSIM_PROFILER_DIR"); dir != nullptr && *dir != '\0') return dir;
#ifdef MGSIM_PROFILER_DIRS
  std::error_code error;
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (error) throw ProfilerError(fmt::format("cannot find this executable (/proc/self/exe): {}", error.message()));
  std::string tried;
  std::stringstream candidates(MGSIM_PROFILER_DIRS);
  for (std::string relative; std::getline(candidates, relative, ':');) {
    const fs::path dir = (executable.parent_path() / relative).lexically_normal();
    if (fs::is_directory(dir, error)) return dir;
    tried += (tried.empty() ? "" : ", ") + dir.string();
  }
  throw ProfilerError(fmt::format("the CUDA profiler's folder is not where it was installed or built ({}); "
                                  "set MGSIM_PROFILER_DIR",
                                  tried));
#else
  throw ProfilerError(
      "this mgsim was built without the CUDA profiler (CMake found no CUDA toolkit with CUPTI); "
      "rebuild where the toolkit is installed, or set MGSIM_PROFILER_DIR");
#endif
}

fs::path profiler_file(const char* name) {
  const fs::path file = profiler_dir() / name;
  if (!fs::exists(file)) throw ProfilerError(fmt::format("{} not found (is the profiler built?)", file.string()));
  return file;
}

/// Starts a program with extra environment variables; returns its pid.
/// Its stdout goes to stderr: stdout carries only what mgsim writes (`-o -`).
pid_t start_program(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env) {
  std::vector<std::string> env_strings(extra_env);
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  std::vector<char*> args, env;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  for (const std::string& e : env_strings) env.push_back(const_cast<char*>(e.c_str()));
  args.push_back(nullptr);
  env.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  posix_spawnattr_t attributes;  // the signals mgsim waits for itself (remove_temporaries_on_signal) reach the program
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), env.data());
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw ProfilerError(fmt::format("cannot start {}", argv[0]));
  return pid;
}

/// Runs a program to its end; returns its exit status.
int run_program(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env) {
  const pid_t pid = start_program(argv, extra_env);
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) throw ProfilerError(fmt::format("lost {}", argv[0]));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// A TCP port on the loopback that nothing listens on now, for the
/// processes' rendezvous (MASTER_PORT).
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  const bool found = fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                     getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  if (fd >= 0) close(fd);
  if (!found) throw ProfilerError("cannot find a free loopback port for the processes' rendezvous");
  return ntohs(address.sin_port);
}

/// A fresh folder for the run's intermediate files, removed afterwards.
class WorkDir {
 public:
  WorkDir() {
    std::string pattern = (fs::temp_directory_path() / "mgsim-profile-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw ProfilerError("cannot create a temporary folder");
    path_ = pattern;
  }
  ~WorkDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void warn(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) std::fprintf(stderr, "mgsim: warning: %s\n", w.c_str());
}

void profile_layers(const LayersOptions& o, const std::string& command) {
  // Arguments before GPUs: a bad one is refused on any machine (red team).
  if (o.device + o.gpus - 1 > kMaxDevice) {
    throw ConfigError(fmt::format("--device {} with --gpus {} asks for devices {}..{}: expected at most device {}",
                                  o.device, o.gpus, o.device, o.device + o.gpus - 1, kMaxDevice));
  }
  check_outputs({o.output});
  const profile::CudaDevices devices = profile::probe_cuda_devices();
  const int present = static_cast<int>(devices.names.size());
  if (o.device + o.gpus > present) {
    throw profile::DeviceError(fmt::format("no CUDA GPU found (devices {}..{} asked, {} present)", o.device,
                                           o.device + o.gpus - 1, present));
  }
  const fs::path injection = profiler_file("libmgsim_cupti.so");
  const fs::path helper = profiler_file("mgsim_profile_model.py");
  const WorkDir work;
  const std::string port = std::to_string(o.gpus > 1 ? free_port() : 0);
  // One process per GPU; rank r writes records.r.tsv and model.r.json.
  const auto rank_file = [&](const char* stem, int rank, const char* ext) {
    return work.path() / fmt::format("{}.{}.{}", stem, rank, ext);
  };
  std::string rank0_command;  // for provenance: the others differ only in --device and their files
  std::vector<pid_t> running;
  for (int rank = 0; rank < o.gpus; ++rank) {
    const std::vector<std::string> argv = {o.python,
            helper.string(),
            "--model",
            o.model,
            "--batch",
            std::to_string(o.batch_size),
            "--precision",
            o.precision,
            "--warmup",
            std::to_string(o.warmup),
            "--iterations",
            std::to_string(o.iterations),
            "--device",
            std::to_string(o.device + rank),
            "--seq-len",
            std::to_string(o.seq_len),
            "--optimizer",
            o.optimizer,
            "--describe",
            rank_file("model", rank, "json").string()};
    std::vector<std::string> env = {"CUDA_INJECTION64_PATH=" + injection.string(),
                                    "NVTX_INJECTION64_PATH=" + injection.string(),
                                    "MGSIM_CUPTI_RECORDS=" + rank_file("records", rank, "tsv").string()};
    if (o.gpus > 1) {
      env.insert(env.end(), {fmt::format("RANK={}", rank), fmt::format("LOCAL_RANK={}", rank),
                             fmt::format("WORLD_SIZE={}", o.gpus), "MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + port});
    }
    running.push_back(start_program(argv, env));
    if (rank == 0) rank0_command = fmt::format("{}", fmt::join(argv, " "));
  }
  // A rank that fails leaves the others waiting for it at the rendezvous: stop them.
  int failed = 0;
  for (std::size_t left = running.size(); left > 0; --left) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) throw ProfilerError(fmt::format("lost {}", o.python));
    std::erase(running, pid);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (code != 0 && failed == 0) {
      failed = code;
      for (const pid_t other : running) kill(other, SIGTERM);
    }
  }
  if (failed != 0) throw ProfilerError(fmt::format("the training helper failed with exit status {}", failed));
  std::vector<profile::RecordSet> records;
  for (int rank = 0; rank < o.gpus; ++rank) records.push_back(profile::read_record_file(rank_file("records", rank, "tsv")));
  const profile::LayerProfile result = profile::assemble_layer_profile(
      profile::read_model_description(rank_file("model", 0, "json")), records, command);
  warn(result.warnings);
  nlohmann::json provenance = result.provenance;
  provenance["helper_command"] = rank0_command;
  emit(format_trace_json(result.trace, provenance), o.output);
  if (o.output == kStdout) return;
  const double backward = backward_time_s(result.trace);
  fmt::print("wrote {}: {}, forward {:.3f} ms, backward {:.3f} ms (medians of {} iterations)", printable(o.output),
             counted(std::ssize(result.trace.layers), "layer"), result.trace.forward_time_s * 1e3, backward * 1e3,
             result.provenance["statistics"]["iterations"].get<int>());
  if (result.provenance.contains("optimizer_step")) {
    fmt::print(", {} step {:.3f} ms", o.optimizer,
               result.provenance["optimizer_step"]["measured_step_s"].get<double>() * 1e3);
  }
  if (o.gpus > 1) fmt::print(", {} observed in situ on {} GPUs", counted(std::ssize(result.trace.insitu_allreduce), "all-reduce"), o.gpus);
  fmt::print("\n");
}

void profile_allreduce(const AllreduceOptions& o, const std::string& command) {
  if (o.min_bytes > o.max_bytes) {  // arguments before GPUs, as profile_layers
    throw ConfigError(fmt::format("--min-bytes {} is above --max-bytes {}: expected min <= max", o.min_bytes,
                                  o.max_bytes));
  }
  check_outputs({o.output});
  const profile::CudaDevices devices = profile::probe_cuda_devices();
  const int present = static_cast<int>(devices.names.size());
  if (present < 2) {
    throw profile::DeviceError(
        fmt::format("only {} CUDA GPU on this node ({}): an all-reduce needs at least 2, so no "
                    "collective can be measured",
                    present, devices.names.front()));
  }
  const int gpus = o.gpus > 0 ? o.gpus : present;
  if (gpus > present) throw profile::DeviceError(fmt::format("{} GPUs asked, {} present", gpus, present));
  const fs::path bench = profiler_file("mgsim-allreduce-bench");
  const WorkDir work;
  const fs::path raw = work.path() / "allreduce.tsv";
  const std::vector<std::string> argv = {bench.string(),
                                         "--gpus",
                                         std::to_string(gpus),
                                         "--min-bytes",
                                         std::to_string(o.min_bytes),
                                         "--max-bytes",
                                         std::to_string(o.max_bytes),
                                         "--warmup",
                                         std::to_string(o.warmup),
                                         "--repetitions",
                                         std::to_string(o.repetitions),
                                         "--output",
                                         raw.string()};
  if (const int status = run_program(argv, {}); status != 0) {
    throw ProfilerError(fmt::format("mgsim-allreduce-bench failed with exit status {}", status));
  }
  std::ifstream in(raw);
  const profile::BenchOutput output = profile::read_bench_output(in, raw.string());
  nlohmann::json provenance = {{"kind", "measured"},
                               {"tool",
                                "mgsim profile allreduce (NCCL in-place all-reduce of floats, one process, "
                                "kernel times from CUPTI)"},
                               {"metric",
                                "median over repetitions of first NCCL kernel start to last kernel end "
                                "across the GPUs; spread = max - min"},
                               {"repetitions", o.repetitions},
                               {"warmup", o.warmup},
                               {"date", profile::today_utc()},
                               {"mgsim_command", command}};
  for (const auto& [key, value] : output.info) provenance[key] = value;
  const std::vector<CurveSample> curve = profile::summarize_bench(output);
  emit(format_curve_json(curve, provenance), o.output);
  if (o.output != kStdout) fmt::print("wrote {}: {} on {}\n", printable(o.output), counted(std::ssize(curve), "size"), counted(gpus, "GPU"));
}

}  // namespace

void add_profile_command(CLI::App& app) {
  auto layers = std::make_shared<LayersOptions>();
  auto allreduce = std::make_shared<AllreduceOptions>();
  CLI::App* command = app.add_subcommand("profile",
                                         "measure per-layer backward times or all-reduce curves on this "
                                         "node's GPUs (needs a CUDA GPU)");
  command->require_subcommand(1);
  add_examples(command, {"mgsim profile layers --model resnet50 --batch 64 -o resnet50.json",
                         "mgsim profile allreduce -o allreduce.json"});

  CLI::App* l = command->add_subcommand("layers", "per-layer backward times of a PyTorch model -> trace");
  l->add_option("--model", layers->model, "torchvision or transformers model name, or module:function")
      ->required()
      ->check(name_text("a model name"));
  l->add_option("--batch", layers->batch_size, "samples per iteration")->required()->check(whole_in(1, 1 << 20));
  l->add_option("--precision", layers->precision, "fp32, fp16 or bf16 (autocast)")
      ->capture_default_str()
      ->check(one_of("precision", {"fp32", "fp16", "bf16"}));
  l->add_option("--warmup", layers->warmup, "iterations run before measuring")
      ->capture_default_str()
      ->check(whole_in(0, 100000));
  l->add_option("--iterations", layers->iterations, "measured iterations")
      ->capture_default_str()
      ->check(whole_in(1, 100000));
  l->add_option("--device", layers->device, "CUDA device index (the first, with --gpus)")
      ->capture_default_str()
      ->check(whole_in(0, kMaxDevice));
  l->add_option("--gpus", layers->gpus,
                "train on N GPUs under DDP (one process each) and record the all-reduces in situ")
      ->capture_default_str()
      ->check(whole_in(1, 1024));
  l->add_option("--seq-len", layers->seq_len, "sequence length for transformers models")
      ->capture_default_str()
      ->check(whole_in(1, 1 << 20));
  l->add_option("--optimizer", layers->optimizer,
                "sgd, momentum or adam: the optimizer to train with; its step, timed, becomes the trace's "
                "optimizer_bytes_per_s (a run config naming the same one times the step as measured)")
      ->capture_default_str()
      ->check(one_of("optimizer", {"sgd", "momentum", "adam"}));
  l->add_option("--python", layers->python, "Python with PyTorch")->capture_default_str()->check(name_text("a program"));
  l->add_option("-o,--output", layers->output, "trace file to write (-: stdout)")->required()
      ->check(output_name());
  add_examples(l, {"mgsim profile layers --model resnet50 --batch 64 --precision bf16 -o resnet50.json"});
  l->callback([layers] {
    profile_layers(*layers, fmt::format("mgsim profile layers --model {} --batch {} --precision {} --optimizer {} "
                                        "--warmup {} --iterations {} --gpus {}",
                                        layers->model, layers->batch_size, layers->precision, layers->optimizer,
                                        layers->warmup, layers->iterations, layers->gpus));
  });

  CLI::App* a = command->add_subcommand("allreduce", "NCCL all-reduce latency over message sizes -> curve");
  a->add_option("--gpus", allreduce->gpus, "GPUs to use (default: all)")->check(whole_in(2, 1024));
  a->add_option("--min-bytes", allreduce->min_bytes, "smallest message")
      ->capture_default_str()
      ->check(whole_in(1, kMaxMessageBytes));
  a->add_option("--max-bytes", allreduce->max_bytes, "largest message (sizes double)")
      ->capture_default_str()
      ->check(whole_in(1, kMaxMessageBytes));
  a->add_option("--warmup", allreduce->warmup, "untimed repetitions per size")
      ->capture_default_str()
      ->check(whole_in(0, 100000));
  a->add_option("--repetitions", allreduce->repetitions, "timed repetitions per size")
      ->capture_default_str()
      ->check(whole_in(1, 100000));
  a->add_option("-o,--output", allreduce->output, "curve file to write (-: stdout)")->required()
      ->check(output_name());
  add_examples(a, {"mgsim profile allreduce --gpus 4 --max-bytes 268435456 -o node-4gpu.json"});
  a->callback([allreduce] {
    profile_allreduce(*allreduce, fmt::format("mgsim profile allreduce --gpus {} --min-bytes {} --max-bytes {}",
                                              allreduce->gpus, allreduce->min_bytes, allreduce->max_bytes));
  });
}

}  // namespace mgsim::cli
