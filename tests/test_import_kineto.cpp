// `mgsim import kineto`: a PyTorch profiler Chrome trace -> per-layer backward
// times. tests/data/kineto-two-linear-steps.json is hand-built in Kineto's
// documented event format (tests/data/README.md): two ProfilerSteps of
// Sequential(Linear(8,16), ReLU, Linear(16,4)), times in us, GPU stream 7,
// the autograd thread 200, and an all-reduce on thread 300 / stream 13.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string_view>

#include <fmt/format.h>
#include <zlib.h>

#include "mgsim/error.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/model_memory.hpp"
#include "mgsim/profile/import_files.hpp"
#include "mgsim/zoo/models.hpp"
#include "test_data.hpp"

namespace {

using namespace mgsim;
using namespace mgsim::profile;

const std::string kSample = mgsim::test::kTestData + "kineto-two-linear-steps.json";

nlohmann::json sample() {
  std::ifstream in(kSample);
  return nlohmann::json::parse(in);
}

ImportedTrace import(const nlohmann::json& document, int skip = 0) {
  return import_kineto(document, "trace.json", {"two-linear", 64, skip, {}, {}});
}

TEST_CASE("import: kineto per-layer times from AccumulateGrad, kernels and modules", "[import]") {
  const ImportedTrace imported = import_kineto_file(kSample, {"two-linear", 64, 0, {}, {}});
  const Trace& t = imported.trace;
  // Step base B. Forward GPU work starts at B+30, the first backward kernel
  // (launched by SumBackward0) at B+210: forward 180 us.
  CHECK(t.forward_time_s == Approx(180e-6));
  REQUIRE(t.layers.size() == 2);
  // Linear_1 (backward first): bias ready when the bias-sum kernel (launched
  // B+225) ends at B+265 -> 55 us after B+210; weight after the copy kernel
  // (launched B+248, inside its AccumulateGrad) ends at B+270 -> 60 us.
  const Layer& l1 = t.layers[1];
  CHECK(l1.name == "Linear_1");
  CHECK(l1.params == std::vector<std::int64_t>{64, 4});  // weight [4,16], bias [4]
  CHECK(l1.backward_time_s == Approx(60e-6));
  CHECK(l1.grad_ready_s[0] == Approx(60e-6));
  CHECK(l1.grad_ready_s[1] == Approx(55e-6));
  // Linear_0: both gradients wait for the bias-sum kernel ending at B+318 in
  // step 1 and B+322 in step 2: 108 and 112 us, median 110; its backward
  // starts at 60: 50 us. The all-reduce of thread 300 (until B+400) is ignored.
  const Layer& l0 = t.layers[0];
  CHECK(l0.name == "Linear_0");
  CHECK(l0.params == std::vector<std::int64_t>{128, 16});
  CHECK(l0.backward_time_s == Approx(50e-6));
  CHECK(l0.grad_ready_s[0] == Approx(50e-6));
  CHECK(l0.dtype_bytes == 4);
  // Forward per layer: nn.Module Linear_0 ends at B+40 (CPU); the last kernel
  // its thread launched before (at B+20) ends at B+60: 30 us after the
  // forward's start. Linear_1, the last layer, takes the rest: 150 us.
  CHECK(l0.forward_time_s == Approx(30e-6));
  CHECK(l1.forward_time_s == Approx(150e-6));
  CHECK(imported.provenance["statistics"]["iterations"] == 2);
  CHECK(imported.provenance["statistics"]["backward_spread_s"].get<double>() == Approx(4e-6));
  CHECK(imported.provenance["hardware"][0] == "Example GPU");
  // The two ncclDevKernel_AllReduce kernels (150 us each) are communication, not compute.
  REQUIRE(imported.warnings.size() == 2);
  CHECK_THAT(imported.warnings[0], Catch::Contains("2 communication kernels (nccl*, 0.300 ms in all)"));
  CHECK(imported.provenance["communication_kernels"]["count"] == 2);
  // Both ProfilerStep windows last 1000 us.
  REQUIRE(imported.step_time_s.has_value());
  CHECK(*imported.step_time_s == Approx(1e-3));
  // The GPU work launched in each (no NCCL kernel) never overlaps: forward
  // 30 + 10 + 28 + 5 = 73 us, backward 5 + 24 + 20 + 5 + 4 + 10 + 30 + 8 =
  // 106 us in step 1 (the last reduce 12 us in step 2): 179 and 183 of
  // 1000 us, median 18.1%, far below the 80% under which the import warns.
  REQUIRE(imported.gpu_busy_fraction);
  CHECK(*imported.gpu_busy_fraction == Approx(0.181));
  CHECK_THAT(imported.warnings[1], Catch::Contains("the GPU was busy 18% of the median step"));
}

TEST_CASE("import: the GPU's busy time is cut to its step, and every optimizer of a step is timed", "[import]") {
  nlohmann::json document = sample();
  auto& events = document["traceEvents"];
  // Step 1's last kernel (reduce_kernel, correlation 1013, from 1310) runs
  // 5000 us instead of 8: only its 690 us up to the step's end (2000) count,
  // so step 1 is busy 179 - 8 + 690 = 861 us of 1000, step 2 still 183.
  for (auto& e : events) {
    if (e.value("cat", "") == "kernel" && e["args"].value("correlation", 0) == 1013) e["dur"] = 5000;
  }
  // Two optimizers step in step 1 (50 us each on the CPU, no GPU work), one
  // in step 2 (40 us): 100 and 40 us, median 70 us.
  const auto optimizer = [](double ts, double dur) {
    return nlohmann::json{{"ph", "X"}, {"cat", "user_annotation"}, {"name", "Optimizer.step#SGD.step"},
                          {"pid", 42}, {"tid", 100}, {"ts", ts}, {"dur", dur}};
  };
  events.push_back(optimizer(1400, 50));
  events.push_back(optimizer(1500, 50));
  events.push_back(optimizer(3400, 40));
  const ImportedTrace imported = import(document);
  REQUIRE(imported.gpu_busy_fraction);
  CHECK(*imported.gpu_busy_fraction == Approx((0.861 + 0.183) / 2));
  REQUIRE(imported.optimizer_step_s);
  CHECK(*imported.optimizer_step_s == Approx(70e-6));
  // Adam (the default) streams 28 bytes for each of the 212 elements.
  CHECK(imported.trace.optimizer_bytes_per_s == Approx(28.0 * 212 / 70e-6));
}

TEST_CASE("import: NCCL all-reduces named by record_param_comms become in-situ observations", "[import]") {
  // PyTorch >= 2.1 wraps each collective in a record_param_comms operator.
  // Around the launch of the first NCCL kernel (thread 300, 1250 us; the
  // kernel runs 150 us): an all-reduce of 84 floats over 2 ranks.
  nlohmann::json document = sample();
  document["traceEvents"].push_back({{"ph", "X"}, {"cat", "cpu_op"}, {"name", "record_param_comms"}, {"pid", 42},
                                     {"tid", 300}, {"ts", 1249}, {"dur", 6},
                                     {"args", {{"Collective name", "allreduce"}, {"In msg nelems", 84},
                                               {"dtype", "Float"}, {"Group size", 2}}}});
  const ImportedTrace imported = import(document);
  REQUIRE(imported.trace.insitu_allreduce.size() == 1);
  CHECK(imported.trace.insitu_allreduce[0].gpus == 2);
  CHECK(imported.trace.insitu_allreduce[0].bytes == 336);
  CHECK(imported.trace.insitu_allreduce[0].seconds == Approx(150e-6));
  CHECK(imported.provenance["communication_kernels"]["insitu_allreduce"] == 1);
  // Written with the trace, they read back as its in-situ observations.
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "mgsim-test-insitu.json";
  std::ofstream(file) << format_trace_json(imported.trace, {{"kind", "measured"}});
  CHECK(load_trace(file).insitu_allreduce.size() == 1);
  std::filesystem::remove(file);
  CHECK(import(sample()).trace.insitu_allreduce.empty());  // no record_param_comms: sizes unknown
}

TEST_CASE("import: a gzip-compressed kineto trace reads as the plain one", "[import]") {
  // kineto-two-linear-steps.json.gz is the .json compressed (gzip -9n).
  const Trace plain = import_kineto_file(kSample, {"two-linear", 64, 0, {}, {}}).trace;
  const Trace packed = import_kineto_file(kSample + ".gz", {"two-linear", 64, 0, {}, {}}).trace;
  REQUIRE(packed.layers.size() == plain.layers.size());
  CHECK(packed.layers[1].params == plain.layers[1].params);
  CHECK(packed.layers[0].backward_time_s == plain.layers[0].backward_time_s);
  const std::filesystem::path cut = std::filesystem::temp_directory_path() / "mgsim-test-cut.json.gz";
  {
    std::ifstream in(kSample + ".gz", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  }
  CHECK_THROWS_WITH(import_kineto_file(cut, {"two-linear", 64, 0, {}, {}}),
                    Catch::Contains("mgsim-test-cut.json.gz: gzip data is truncated"));
  std::filesystem::remove(cut);
}

/// `text` as one gzip member (zlib's default level).
std::string gzip_member(std::string_view text) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST_CASE("import: a .json.gz of several gzip members reads as their joined content", "[import]") {
  // gzip -c a b > c.gz writes one member per file; gunzip joins them.
  std::ifstream in(kSample, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "mgsim-test-members.json.gz";
  std::ofstream(file, std::ios::binary) << gzip_member(text.substr(0, text.size() / 2))
                                        << gzip_member(text.substr(text.size() / 2));
  const Trace plain = import_kineto_file(kSample, {"two-linear", 64, 0, {}, {}}).trace;
  const Trace joined = import_kineto_file(file, {"two-linear", 64, 0, {}, {}}).trace;
  std::filesystem::remove(file);
  REQUIRE(joined.layers.size() == plain.layers.size());
  CHECK(joined.layers[1].params == plain.layers[1].params);
  CHECK(joined.layers[0].backward_time_s == plain.layers[0].backward_time_s);
}

/// Every parameter of every layer of `trace`.
std::int64_t parameters(const Trace& trace) {
  std::int64_t total = 0;
  for (const Layer& layer : trace.layers) {
    for (const std::int64_t p : layer.params) total += p;
  }
  return total;
}

/// The sample without the events `drop` selects.
nlohmann::json without(const std::function<bool(const std::string&)>& drop) {
  nlohmann::json document = sample();
  auto& events = document["traceEvents"];
  events.erase(std::remove_if(events.begin(), events.end(),
                              [&](const nlohmann::json& e) { return drop(e.value("name", "")); }),
               events.end());
  return document;
}

TEST_CASE("import: a folder of per-rank traces imports each rank, ordered by distributedInfo", "[import]") {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / "mgsim-test-ranks";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  for (const int rank : {1, 0}) {
    nlohmann::json document = sample();
    document["distributedInfo"] = {{"rank", rank}, {"world_size", 2}};
    std::ofstream(folder / fmt::format("a{}.json", 1 - rank)) << document.dump();
  }
  std::ofstream(folder / "notes.txt") << "not a trace";
  const std::vector<RankTrace> ranks = import_kineto_folder(folder, {"two-linear", 64, 0, {}, {}});
  REQUIRE(ranks.size() == 2);
  CHECK(ranks[0].rank == 0);
  CHECK(ranks[0].file.filename() == "a1.json");
  CHECK(ranks[1].imported.provenance["world_size"] == 2);
  CHECK(ranks[1].imported.trace.layers[1].params == std::vector<std::int64_t>{64, 4});
  std::filesystem::remove(folder / "a1.json");
  std::ofstream(folder / "b.json") << [] {
    nlohmann::json document = sample();
    document["distributedInfo"] = {{"rank", 1}};
    return document.dump();
  }();
  CHECK_THROWS_WITH(import_kineto_folder(folder, {"two-linear", 64, 0, {}, {}}),
                    Catch::Contains("b.json: rank 1 (its distributedInfo) is also that of a0.json (its "
                                    "distributedInfo)"));
  std::filesystem::remove_all(folder);
}

TEST_CASE("import: PyTorch 1.8/1.9 traces, without evaluate_function wrappers, give the same layers", "[import]") {
  // Before PyTorch 1.10 the autograd nodes ran without the
  // "autograd::engine::evaluate_function: X" span around them.
  const ImportedTrace bare =
      import(without([](const std::string& name) { return name.starts_with("autograd::engine::evaluate_function"); }));
  const ImportedTrace wrapped = import(sample());
  REQUIRE(bare.trace.layers.size() == 2);
  for (std::size_t l = 0; l < 2; ++l) {
    CHECK(bare.trace.layers[l].name == wrapped.trace.layers[l].name);
    CHECK(bare.trace.layers[l].params == wrapped.trace.layers[l].params);
  }
  CHECK(bare.trace.forward_time_s == Approx(wrapped.trace.forward_time_s));
  CHECK(bare.provenance["backward_nodes_from"] == "node operators without evaluate_function (PyTorch 1.8, 1.9)");
}

TEST_CASE("import: an operator that only read the sequence counter before the forward does not take its node",
          "[import]") {
  // PyTorch stamps every operator with the autograd sequence counter, which
  // only the operator that creates a node advances: a data loader's copy to
  // the GPU just before the forward carries the number of the first layer's
  // node (aten::stack and aten::to share TBackward's 22 in the real
  // PyTorch 1.8 trace). Here an aten::to outside any module, before
  // Linear_0, carries the 1 of Linear_0's AddmmBackward0.
  nlohmann::json document = sample();
  document["traceEvents"].push_back({{"ph", "X"}, {"cat", "cpu_op"}, {"name", "aten::to"}, {"pid", 42}, {"tid", 100},
                                     {"ts", 1002}, {"dur", 5}, {"args", {{"Sequence number", 1}}}});
  const ImportedTrace imported = import(document);
  REQUIRE(imported.trace.layers.size() == 2);
  CHECK(imported.trace.layers[0].name == "Linear_0");
  CHECK(imported.trace.layers[0].params == std::vector<std::int64_t>{128, 16});
}

/// One step of `count` layers, each a Linear inside its own Block, the
/// blocks siblings inside one Net, all on thread 100 (times in us): Block_i
/// runs [b, b+9] with b = 1 + 10i, Linear_i [b, b+5] (the same start, listed
/// after its Block), its aten::linear [b+1, b+4] with sequence number i+1
/// and one kernel. The backward (thread 200) runs the layers last to first:
/// AddmmBackward0 (sequence i+1, one kernel), then the AccumulateGrad of a
/// parameter of i+1 elements. A module on thread 300 spans the whole step.
nlohmann::json nested_modules_trace(int count) {
  nlohmann::json events = nlohmann::json::array();
  const auto span = [&](const char* cat, const std::string& name, int tid, int ts, int dur, nlohmann::json args) {
    nlohmann::json e{{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", 1}, {"tid", tid}, {"ts", ts}, {"dur", dur}};
    if (!args.is_null()) e["args"] = std::move(args);
    events.push_back(std::move(e));
  };
  const auto launch = [&](int tid, int ts, int correlation) {
    span("cuda_runtime", "cudaLaunchKernel", tid, ts, 1, {{"correlation", correlation}});
    span("kernel", "gemm", 0, ts + 1, 1, {{"correlation", correlation}, {"device", 0}, {"stream", 7}});
  };
  const int backward = 10 * count + 20;
  span("user_annotation", "ProfilerStep#1", 100, 0, backward + 10 * count + 10, nullptr);
  span("python_function", "nn.Module: Net", 100, 1, 10 * count, nullptr);
  span("python_function", "nn.Module: Elsewhere", 300, 2, backward, nullptr);
  for (int i = 0; i < count; ++i) {
    const int b = 1 + 10 * i;
    span("python_function", fmt::format("nn.Module: Block_{}", i), 100, b, 9, nullptr);
    span("python_function", fmt::format("nn.Module: Linear_{}", i), 100, b, 5, nullptr);
    span("cpu_op", "aten::linear", 100, b + 1, 3, {{"Sequence number", i + 1}});
    launch(100, b + 2, 1000 + i);
  }
  for (int i = count - 1; i >= 0; --i) {
    const int c = backward + 10 * (count - 1 - i);
    span("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", 200, c, 4, nullptr);
    span("cpu_op", "AddmmBackward0", 200, c + 1, 2, {{"Sequence number", i + 1}});
    launch(200, c + 1, 100000 + i);
    span("cpu_op", "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 200, c + 5, 3, nullptr);
    span("cpu_op", "torch::autograd::AccumulateGrad", 200, c + 6, 1, {{"Input Dims", {{i + 1}}}});
  }
  return {{"traceEvents", events}};
}

TEST_CASE("import: kineto names each gradient after the innermost nn.Module of its forward, among many siblings",
          "[import]") {
  // By construction the innermost module around aten::linear #i is
  // Linear_i: Net and Block_i hold it too but start no later (Net first,
  // at b = 1 for i = 0), the earlier blocks (its siblings) ended before it,
  // and Elsewhere, though it starts later than Net, runs on another thread.
  const int count = 300;
  const ImportedTrace imported = import(nested_modules_trace(count));
  REQUIRE(imported.trace.layers.size() == static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const Layer& layer = imported.trace.layers[static_cast<std::size_t>(i)];
    CHECK(layer.name == fmt::format("Linear_{}", i));
    CHECK(layer.params == std::vector<std::int64_t>{i + 1});
  }
  CHECK(imported.provenance["layers_from"] == "nn.Module events through sequence numbers");
}

TEST_CASE("import: kineto without record_shapes takes the parameter sizes from a list", "[import]") {
  nlohmann::json no_shapes = sample();
  for (auto& e : no_shapes["traceEvents"]) {
    if (e.contains("args")) e["args"].erase("Input Dims");
  }
  // Sequential(Linear(8,16), ReLU, Linear(16,4)) in state_dict order:
  // 16x8 weight, 16 bias, 4x16 weight, 4 bias = 212 parameters.
  KinetoOptions options{"two-linear", 64, 0, {128, 16, 64, 4}, "sizes.txt"};
  const ImportedTrace imported = import_kineto(no_shapes, "trace.json", options);
  CHECK(parameters(imported.trace) == 212);
  CHECK(imported.trace.layers[0].params == std::vector<std::int64_t>{128, 16});
  CHECK(imported.trace.layers[1].params == std::vector<std::int64_t>{64, 4});
  options.param_elements = {128, 16, 64};
  CHECK_THROWS_WITH(import_kineto(no_shapes, "trace.json", options),
                    Catch::Contains("ProfilerStep#1 accumulates 4 gradients, but sizes.txt lists 3 parameter tensors"));
  CHECK_THROWS_WITH(import(no_shapes), Catch::Contains("give them with --zoo MODEL or --param-sizes FILE"));

  const std::filesystem::path list = std::filesystem::temp_directory_path() / "mgsim-test-sizes.txt";
  std::ofstream(list) << "# name elements\n0.weight 128\n0.bias 16\n\n2.weight 64\n2.bias 4\n";
  CHECK(read_param_sizes(list) == std::vector<std::int64_t>{128, 16, 64, 4});
  std::ofstream(list) << "0.weight 128\n0.bias sixteen\n";
  CHECK_THROWS_WITH(read_param_sizes(list), Catch::Contains("mgsim-test-sizes.txt: line 2: expected a tensor's element "
                                                            "count in [1, 68719476736] at the end of the line, got "
                                                            "\"sixteen\""));
  std::filesystem::remove(list);
}

TEST_CASE("import: kineto warm-up steps can be skipped", "[import]") {
  const ImportedTrace imported = import(sample(), 1);
  // Step 2 only: Linear_0 ends at 112 us, so it runs 112 - 60 = 52 us.
  CHECK(imported.trace.layers[0].backward_time_s == Approx(52e-6));
  CHECK(imported.provenance["statistics"]["iterations"] == 1);
}

TEST_CASE("import: a damaged first step does not decide the model: the gradient count most steps share does", "[import]") {
  // ProfilerStep#1 loses its last gradient (Linear_0's weight, at 1297 us):
  // 3 gradients against step 2's 4. On a tie the larger count is the model,
  // so step 2 alone is imported (as with --skip-steps 1): Linear_0 ends at
  // 112 us, 52 us after the backward's start at 60 us, and the model keeps
  // its 212 parameters.
  nlohmann::json document = sample();
  auto& events = document["traceEvents"];
  events.erase(std::remove_if(events.begin(), events.end(),
                              [](const nlohmann::json& e) {
                                const double ts = e.value("ts", 0.0);
                                return ts == 1296 || ts == 1297;
                              }),
               events.end());
  const ImportedTrace imported = import(document);
  CHECK(imported.provenance["statistics"]["iterations"] == 1);
  CHECK(parameters(imported.trace) == 212);
  CHECK(imported.trace.layers[0].backward_time_s == Approx(52e-6));
  CHECK(std::count(imported.warnings.begin(), imported.warnings.end(),
                   "ProfilerStep#1 accumulates 3 gradients, ProfilerStep#2 4: skipped") == 1);
}

/// The sample with `count` steps: steps 3 to `count` are step 2's events
/// again, 2000 us apart, their correlation and external ids moved past the others.
nlohmann::json steps(int count) {
  nlohmann::json document = sample();
  nlohmann::json& events = document["traceEvents"];
  const std::size_t given = events.size();
  for (int step = 3; step <= count; ++step) {
    const double shift = 2000.0 * (step - 2);
    for (std::size_t i = 0; i < given; ++i) {
      const double ts = events[i].value("ts", -1.0);
      if (ts < 3000 || ts >= 5000) continue;
      nlohmann::json copy = events[i];
      copy["ts"] = ts + shift;
      if (copy["name"] == "ProfilerStep#2") copy["name"] = fmt::format("ProfilerStep#{}", step);
      for (const char* id : {"correlation", "External id"}) {
        if (copy.contains("args") && copy["args"].contains(id)) {
          copy["args"][id] = copy["args"][id].get<int>() + 100000 * (step - 2);
        }
      }
      events.push_back(copy);
    }
  }
  return document;
}

TEST_CASE("import: steps without gradients do not outvote the step that has them", "[import]") {
  // Steps 1 and 2 lose every AccumulateGrad: two steps of 0 gradients, one
  // (step 3, step 2's events again) of 4. The model is step 3's, 212
  // parameters; the two empty steps are skipped, said.
  nlohmann::json document = steps(3);
  auto& events = document["traceEvents"];
  events.erase(std::remove_if(events.begin(), events.end(),
                              [](const nlohmann::json& e) {
                                return e.value("ts", 0.0) < 5000 &&
                                       e.value("name", "").find("AccumulateGrad") != std::string::npos;
                              }),
               events.end());
  const ImportedTrace imported = import(document);
  CHECK(imported.provenance["statistics"]["iterations"] == 1);
  CHECK(parameters(imported.trace) == 212);
  CHECK(std::count(imported.warnings.begin(), imported.warnings.end(),
                   "ProfilerStep#1 accumulates 0 gradients, ProfilerStep#3 4: skipped") == 1);
}

TEST_CASE("import: many skipped steps are said in four lines: the first three and how many more", "[import]") {
  // Seven steps, the first five without their AccumulateGrad events (ts < 11000: steps 1 to 5): five
  // skipped, two imported.
  nlohmann::json document = steps(7);
  auto& events = document["traceEvents"];
  events.erase(std::remove_if(events.begin(), events.end(),
                              [](const nlohmann::json& e) {
                                return e.value("ts", 0.0) < 11000 &&
                                       e.value("name", "").find("AccumulateGrad") != std::string::npos;
                              }),
               events.end());
  const ImportedTrace imported = import(document);
  CHECK(imported.provenance["statistics"]["iterations"] == 2);
  std::vector<std::string> skips;
  for (const std::string& w : imported.warnings) {
    if (w.find("skipped") != std::string::npos) skips.push_back(w);
  }
  REQUIRE(skips.size() == 4);
  CHECK(skips[0] == "ProfilerStep#1 accumulates 0 gradients, ProfilerStep#6 4: skipped");
  CHECK(skips[2] == "ProfilerStep#3 accumulates 0 gradients, ProfilerStep#6 4: skipped");
  CHECK(skips[3] == "2 more step windows skipped, 5 of the 7 in all (2 imported)");
}

TEST_CASE("import: a node's forward is the operator of its sequence number before it, not a later step's", "[import]") {
  // Every step numbers its operators from the same sequence numbers. With
  // step 3's Linear_1 module event lost, steps 1 and 2 still find theirs:
  // the reference step (1) names the layer Linear_1, nothing unmapped.
  nlohmann::json document = steps(3);
  auto& events = document["traceEvents"];
  events.erase(std::remove_if(events.begin(), events.end(),
                              [](const nlohmann::json& e) {
                                return e.value("name", "") == "nn.Module: Linear_1" && e.value("ts", 0.0) >= 5000;
                              }),
               events.end());
  const ImportedTrace imported = import(document);
  CHECK(imported.provenance["statistics"]["iterations"] == 3);
  REQUIRE(imported.trace.layers.size() == 2);
  CHECK(imported.trace.layers[1].name == "Linear_1");
  for (const std::string& w : imported.warnings) CHECK_THAT(w, !Catch::Contains("could not be traced"));
}

TEST_CASE("import: a step whose recorded gradient sizes differ from the reference step's is skipped, said", "[import]") {
  // Step 2's first gradient to arrive (Linear_1's bias, [4]) recorded as [5]:
  // another model's step, or two runs in one file. Step 1 alone: Linear_0
  // ends at 108 us, so it runs 108 - 60 = 48 us.
  nlohmann::json document = sample();
  for (auto& e : document["traceEvents"]) {
    if (e.value("ts", 0.0) == 3234 && e.value("name", "") == "torch::autograd::AccumulateGrad") {
      e["args"]["Input Dims"] = {{5}};
    }
  }
  const ImportedTrace imported = import(document);
  CHECK(imported.provenance["statistics"]["iterations"] == 1);
  CHECK(imported.trace.layers[0].backward_time_s == Approx(48e-6));
  // The same step with the gradient's shape but another type, or no shape at all: skipped too.
  for (const nlohmann::json& args : {nlohmann::json{{"Input Dims", {{4}}}, {"Input type", {"double"}}},
                                     nlohmann::json{{"Input Dims", nlohmann::json::array()}}}) {
    nlohmann::json changed = sample();
    for (auto& e : changed["traceEvents"]) {
      if (e.value("ts", 0.0) == 3234 && e.value("name", "") == "torch::autograd::AccumulateGrad") e["args"] = args;
    }
    INFO(args.dump());
    CHECK(import(changed).provenance["statistics"]["iterations"] == 1);
  }
  CHECK(std::count_if(imported.warnings.begin(), imported.warnings.end(), [](const std::string& w) {
          return w.find("ProfilerStep#2 accumulates gradients unlike ProfilerStep#1's (gradient 1 to arrive has 5 "
                        "elements of 4 bytes, 4 of 4 in ProfilerStep#1): skipped") != std::string::npos;
        }) == 1);
}

TEST_CASE("import: kineto without module events names layers after their backward node", "[import]") {
  nlohmann::json document = sample();
  auto& events = document["traceEvents"];
  events.erase(std::remove_if(events.begin(), events.end(),
                              [](const nlohmann::json& e) { return e.value("cat", "") == "python_function"; }),
               events.end());
  const ImportedTrace imported = import(document);
  // TBackward0 only transposes: the weights go with the AddmmBackward0 before it.
  REQUIRE(imported.trace.layers.size() == 2);
  CHECK(imported.trace.layers[0].name == "AddmmBackward0#1");
  CHECK(imported.trace.layers[1].name == "AddmmBackward0#4");
  CHECK(imported.trace.layers[1].params == std::vector<std::int64_t>{64, 4});
  CHECK(imported.provenance["layers_from"] == "backward node names (no nn.Module events)");
}

TEST_CASE("import: a gradient outside every module event is named as without module events", "[import]") {
  // Linear_0's module events lost: its weight's gradient comes through
  // TBackward0 (aten::t), its bias's through AddmmBackward0 (aten::addmm),
  // both inside one aten::linear. Named as without module events, they are
  // one layer after the AddmmBackward0 (sequence number 1), not a layer
  // "TBackward0#0" of a weight alone.
  nlohmann::json document = sample();
  auto& events = document["traceEvents"];
  events.erase(std::remove_if(events.begin(), events.end(),
                              [](const nlohmann::json& e) { return e.value("name", "") == "nn.Module: Linear_0"; }),
               events.end());
  const ImportedTrace imported = import(document);
  REQUIRE(imported.trace.layers.size() == 2);
  CHECK(imported.trace.layers[0].name == "AddmmBackward0#1");
  CHECK(imported.trace.layers[0].params == std::vector<std::int64_t>{128, 16});
  CHECK(imported.trace.layers[1].name == "Linear_1");
  CHECK(std::count_if(imported.warnings.begin(), imported.warnings.end(), [](const std::string& w) {
          return w.starts_with("2 gradients could not be traced to an nn.Module");
        }) == 1);
}

TEST_CASE("import: kineto half-precision gradients are 2 bytes", "[import]") {
  nlohmann::json document = sample();
  for (auto& e : document["traceEvents"]) {
    if (e.value("name", "") == "torch::autograd::AccumulateGrad") e["args"]["Input type"] = {"c10::BFloat16"};
  }
  CHECK(import(document).trace.layers[0].dtype_bytes == 2);
}

TEST_CASE("import: a kineto file read as a stream gives what the whole document gives", "[import]") {
  // import_kineto_file hands the events over one by one while parsing;
  // import_kineto reads them from a document parsed whole by nlohmann.
  const Trace streamed = import_kineto_file(kSample, {"two-linear", 64, 0, {}, {}}).trace;
  const Trace whole = import(sample()).trace;
  REQUIRE(streamed.layers.size() == whole.layers.size());
  CHECK(streamed.forward_time_s == whole.forward_time_s);
  for (std::size_t l = 0; l < whole.layers.size(); ++l) {
    CHECK(streamed.layers[l].name == whole.layers[l].name);
    CHECK(streamed.layers[l].params == whole.layers[l].params);
    CHECK(streamed.layers[l].backward_time_s == whole.layers[l].backward_time_s);
    CHECK(streamed.layers[l].grad_ready_s == whole.layers[l].grad_ready_s);
  }
}

TEST_CASE("import: a trace without steps whose gradients repeat is said to hold several iterations", "[import]") {
  // Without its two ProfilerStep# events the sample is one window of two
  // backward passes: 8 gradients, the 4 sizes (128, 16, 64, 4) twice.
  nlohmann::json two = without([](const std::string& name) { return name.starts_with("ProfilerStep#"); });
  const ImportedTrace merged = import(two);
  CHECK(std::count_if(merged.warnings.begin(), merged.warnings.end(), [](const std::string& w) {
          return w.find("its 8 gradients are the same 4 sizes 2 times over") != std::string::npos;
        }) == 1);
  // Only the first step's events (before 2000 us): 4 gradients, no repeat, no warning.
  nlohmann::json one = two;
  auto& events = one["traceEvents"];
  events.erase(std::remove_if(events.begin(), events.end(),
                              [](const nlohmann::json& e) { return e.value("ts", 0.0) >= 2000; }),
               events.end());
  for (const std::string& w : import(one).warnings) CHECK_THAT(w, !Catch::Contains("times over"));
}

TEST_CASE("import: a step window whose gradients repeat is said to hold several backward passes", "[import]") {
  // ProfilerStep#1 stretched over both backward passes (1000-4000 us) and #2
  // dropped: one window of 8 gradients, the 4 sizes twice (accumulation).
  nlohmann::json one_window = without([](const std::string& name) { return name == "ProfilerStep#2"; });
  for (nlohmann::json& e : one_window["traceEvents"]) {
    if (e.value("name", "") == "ProfilerStep#1") e["dur"] = 3000;
  }
  const ImportedTrace merged = import(one_window);
  CHECK(std::count_if(merged.warnings.begin(), merged.warnings.end(), [](const std::string& w) {
          return w.find("ProfilerStep#1's 8 gradients are the same 4 sizes 2 times over: if it holds 2 backward passes") !=
                 std::string::npos;
        }) == 1);
  for (const std::string& w : import(sample()).warnings) CHECK_THAT(w, !Catch::Contains("times over"));
}

TEST_CASE("import: malformed kineto traces are refused", "[import]") {
  CHECK_THROWS_WITH(import(nlohmann::json{{"events", 1}}), Catch::Contains("expected a Chrome trace"));
  CHECK_THROWS_WITH(import(nlohmann::json{{"traceEvents", nlohmann::json::array({1})}}),
                    Catch::Contains("traceEvents[0]: expected an object"));
  CHECK_THROWS_WITH(import(nlohmann::json{{"traceEvents", {{{"ph", "X"}, {"name", "x"}, {"dur", 1}}}}}),
                    Catch::Contains("traceEvents[0]: expected a number \"ts\""));
  // A kernel without its phase is damaged: refused, never dropped (the step would lose its time).
  nlohmann::json no_phase = sample();
  no_phase["traceEvents"][3].erase("ph");
  CHECK_THROWS_WITH(import(no_phase), Catch::Contains("traceEvents[3]: expected a string \"ph\""));
  no_phase["traceEvents"][3]["ph"] = "X ";
  CHECK_THROWS_WITH(import(no_phase), Catch::Contains("traceEvents[3]: expected a Chrome trace phase"));
  nlohmann::json no_shapes = sample();
  for (auto& e : no_shapes["traceEvents"]) {
    if (e.contains("args")) e["args"].erase("Input Dims");
  }
  CHECK_THROWS_WITH(import(no_shapes), Catch::Contains("record_shapes=True"));
  const nlohmann::json forward_only = without([](const std::string& name) {
    return name.starts_with("autograd::engine::evaluate_function") || name.find("Backward") != std::string::npos ||
           name == "torch::autograd::AccumulateGrad";
  });
  CHECK_THROWS_WITH(import(forward_only), Catch::Contains("no AccumulateGrad"));
  CHECK_THROWS_WITH(import_kineto(sample(), "trace.json", {"m", 0, 0, {}, {}}), Catch::Contains("batch size"));
}

TEST_CASE("import: a real kineto excerpt of PyTorch 1.12 or 1.13, a backward node and no gradient, is refused",
          "[import]") {
  // tests/data/kineto-hta-backward-thread.json is real: HTA's test trace
  // tests/data/call_stack/backward_thread.json, a 2022 training trace cut by
  // its authors to seven events (tests/data/README.md): ProfilerStep#552, one
  // autograd node (evaluate_function: AddmmBackward0, with its AddmmBackward0
  // and aten::mm) on the autograd thread 24922, the kernel it launched, and no
  // AccumulateGrad. Nothing can be imported; the one line says why.
  const std::string path = mgsim::test::kTestData + "kineto-hta-backward-thread.json";
  const std::string why = "1 autograd node (AddmmBackward0) but no AccumulateGrad node";
  CHECK_THROWS_WITH(import_kineto_file(path, {"excerpt", 1, 0, {}, {}}), Catch::StartsWith(path) && Catch::Contains(why));
  std::ifstream in(path);
  CHECK_THROWS_WITH(import_kineto(nlohmann::json::parse(in), "excerpt.json", {"excerpt", 1, 0, {}, {}}),
                    Catch::Contains(why) && !Catch::Contains("\n"));
  // Sizes given from elsewhere cannot stand in for gradients the step lacks.
  KinetoOptions sized{"excerpt", 1, 0, {2048 * 256}, "sizes.txt"};
  CHECK_THROWS_WITH(import_kineto_file(path, sized),
                    Catch::Contains("accumulates 0 gradients, but sizes.txt lists 1 parameter tensor"));
}

// tests/data/kineto-vgg16-t4-backward.json is real (tests/data/README.md):
// the backward pass of one training step of a VGG-16 for CIFAR-100 on a
// Tesla T4 (PyTorch 2.0 era, no record_shapes), with the kernels the
// autograd thread 2509 launched. Its parameters, from the authors' vgg16.py
// (3x3 convolutions 3-64-64, 128-128, 256 x3, 512 x3, 512 x3; Linear
// 512-4096-4096-100; weight and bias each), in state_dict order: 34,006,948.
std::vector<std::int64_t> vgg16_cifar100() {
  std::vector<std::int64_t> sizes;
  const int channels[] = {3, 64, 64, 128, 128, 256, 256, 256, 512, 512, 512, 512, 512, 512};
  for (int c = 0; c < 13; ++c) {
    sizes.push_back(std::int64_t{channels[c + 1]} * channels[c] * 9);
    sizes.push_back(channels[c + 1]);
  }
  const int features[] = {512, 4096, 4096, 100};
  for (int f = 0; f < 3; ++f) {
    sizes.push_back(std::int64_t{features[f + 1]} * features[f]);
    sizes.push_back(features[f + 1]);
  }
  return sizes;
}
const std::string kVgg = mgsim::test::kTestData + "kineto-vgg16-t4-backward.json";

TEST_CASE("import: a real kineto VGG-16 backward of PyTorch 2.0 gives its 16 layers and their times", "[import]") {
  const std::vector<std::int64_t> sizes = vgg16_cifar100();
  REQUIRE(sizes.size() == 32);
  const ImportedTrace imported = import_kineto_file(kVgg, {"vgg16-cifar100", 128, 0, sizes, "vgg16.py"});
  const Trace& t = imported.trace;
  // Times in us after 1683924250000000. The backward starts with the first
  // kernel the autograd thread launched (a fill, at 678521). A layer's
  // gradients are ready when the last kernel launched before its
  // AccumulateGrad ended ends; its time is that minus the previous layer's.
  // By hand: fc3 (AddmmBackward0 #6549), AccumulateGrads ending at 664634
  // and 664683, last launch before them the bias-sum reduce_kernel
  // (launched 664529), ending at 678641 + 18 = 678659: 138 us. conv1_1
  // (ConvolutionBackward0 #6508), AccumulateGrads ending at 672281 and
  // 672294, last launch the bias-sum reduce_kernel at 672235, ending at
  // 705244 + 87 = 705331: 26810 us, 660 after conv1_2's 26150 (its
  // reduce_kernel launched at 671933 ends at 704584 + 87). The other layers
  // were computed from the file by a separate script applying the same rule.
  // Timestamps of ~1.7e15 us must not lose ns on the way (a double would be
  // off by up to 128 ns per time): hence margins of 1 ns.
  const std::vector<double> backward_us = {660,  3526, 1364, 2079, 988,  1618, 2011, 1301,
                                           2278, 2860, 1829, 1826, 2284, 330,  1718, 138};
  const std::vector<int> sequence = {6508, 6510, 6513, 6515, 6518, 6520, 6522, 6525,
                                     6527, 6529, 6532, 6534, 6536, 6541, 6545, 6549};
  REQUIRE(t.layers.size() == 16);
  std::int64_t parameters = 0;
  for (std::size_t l = 0; l < 16; ++l) {
    const std::string node = l < 13 ? "ConvolutionBackward0" : "AddmmBackward0";
    CHECK(t.layers[l].name == fmt::format("{}#{}", node, sequence[l]));
    CHECK(t.layers[l].params == std::vector<std::int64_t>{sizes[2 * l], sizes[2 * l + 1]});
    CHECK(t.layers[l].backward_time_s == Approx(backward_us[l] * 1e-6).margin(1e-9));
    for (std::int64_t p : t.layers[l].params) parameters += p;
  }
  CHECK(parameters == 34006948);
  CHECK(imported.provenance["statistics"]["backward_s"].get<double>() == Approx(26810e-6).margin(1e-9));
  CHECK(imported.provenance["hardware"][0] == "Tesla T4");
  CHECK(imported.provenance["layers_from"] == "backward node names (no nn.Module events)");
}

TEST_CASE("import: a real kineto trace without record_shapes needs the sizes, as many as its gradients", "[import]") {
  CHECK_THROWS_WITH(import_kineto_file(kVgg, {"vgg16-cifar100", 128, 0, {}, {}}),
                    Catch::Contains("no \"Input Dims\"") && Catch::Contains("--param-sizes FILE"));
  // 32 AccumulateGrad nodes: 16 layers, weight and bias each; a list without
  // fc3's bias is refused.
  std::vector<std::int64_t> sizes = vgg16_cifar100();
  sizes.pop_back();
  CHECK_THROWS_WITH(import_kineto_file(kVgg, {"vgg16-cifar100", 128, 0, sizes, "sizes.txt"}),
                    Catch::Contains("accumulates 32 gradients, but sizes.txt lists 31 parameter tensors"));
}

// tests/data/kineto-pt18-mlp-v100-step.json is real and whole
// (tests/data/README.md): pytorch/kineto's tb_plugin test input of May 2021,
// PyTorch 1.8/1.9 (category "Operator", no evaluate_function wrappers), one
// ProfilerStep#2 on a V100: two nn.Linear on a 3-D input with clamp between
// them, an MSE loss and SGD. Each aten::linear runs t + matmul + add_, so its
// bias gradient comes through AddBackward1 and its weight's through
// MmBackward (after TBackward): 4 AccumulateGrad, 2 layers. The trace holds
// no shapes; the sizes below are placeholders in state_dict order
// (linear1.weight, linear1.bias, linear2.weight, linear2.bias).
const std::string kPt18 = mgsim::test::kTestData + "kineto-pt18-mlp-v100-step.json";

TEST_CASE("import: a real PyTorch 1.8 kineto step gives its two Linear layers, times and step time", "[import]") {
  const ImportedTrace imported = import_kineto_file(kPt18, {"mlp", 2, 0, {100, 10, 20, 2}, "sizes.txt"});
  const Trace& t = imported.trace;
  CHECK(imported.provenance["backward_nodes_from"] == "node operators without evaluate_function (PyTorch 1.8, 1.9)");
  // Times in us after 1621401187000000, read from the file by hand. Forward:
  // the first GPU work of the step, the input's memcpy, at 224556; backward:
  // the first kernel the autograd thread 24610 launched (a fill at 228962,
  // launched 228932 inside MseLossBackward, which starts at 228516): 4406.
  CHECK(t.forward_time_s == Approx(4406e-6).margin(1e-9));
  // Gradients, in the order they arrive, at the end of the last kernel the
  // thread launched before each AccumulateGrad ended:
  //   linear2.bias   AccumulateGrad ends 230256, add kernel 230162+1 -> 1201
  //   linear2.weight AccumulateGrad ends 232663, add kernel 232603+1 -> 3642
  //   linear1.bias   AccumulateGrad ends 234501, add kernel 234445+1 -> 5484
  //   linear1.weight AccumulateGrad ends 235614, add kernel 235555+1 -> 6594
  // The Linear of the bias (AddBackward1 #31 from aten::add_ in the second
  // aten::linear) takes the weight (MmBackward #29 from aten::mm in it).
  REQUIRE(t.layers.size() == 2);
  CHECK(t.layers[1].name == "AddBackward1#31");
  CHECK(t.layers[1].params == std::vector<std::int64_t>{20, 2});
  CHECK(t.layers[1].backward_time_s == Approx(3642e-6).margin(1e-9));
  CHECK(t.layers[1].grad_ready_s[0] == Approx(3642e-6).margin(1e-9));
  CHECK(t.layers[1].grad_ready_s[1] == Approx(1201e-6).margin(1e-9));
  CHECK(t.layers[0].name == "AddBackward1#25");
  CHECK(t.layers[0].params == std::vector<std::int64_t>{100, 10});
  CHECK(t.layers[0].backward_time_s == Approx((6594 - 3642) * 1e-6).margin(1e-9));
  CHECK(t.layers[0].grad_ready_s[0] == Approx((6594 - 3642) * 1e-6).margin(1e-9));
  CHECK(t.layers[0].grad_ready_s[1] == Approx((5484 - 3642) * 1e-6).margin(1e-9));
  // Forward per layer, without module events: the first aten::linear (the
  // forward call of AddBackward1 #25) ends at 225571 on thread 24572; the
  // last kernel it launched before (at 225512) ends at 225532: 976 us after
  // the forward's start (224556). The second layer takes the rest: 3430 us.
  CHECK(t.layers[0].forward_time_s == Approx(976e-6).margin(1e-9));
  CHECK(t.layers[1].forward_time_s == Approx(3430e-6).margin(1e-9));
  // ProfilerStep#2 lasts 13410 us: the step time compared with forward +
  // backward (11000 us; the rest is data loading, zero_grad and SGD.step).
  REQUIRE(imported.step_time_s);
  CHECK(*imported.step_time_s == Approx(13410e-6).margin(1e-9));
  // Optimizer.step#SGD.step runs 235935 to 236598 on the CPU (663 us) and
  // launches 4 add kernels, from 236158 to 236502 on the GPU (344 us): the
  // step is launch-bound, 663 us. Written for the default optimizer (Adam,
  // 28 bytes for each of the 132 fp32 elements): 3696 bytes in 663 us, so
  // that a run of the same optimizer times it as measured.
  REQUIRE(imported.optimizer_step_s);
  CHECK(*imported.optimizer_step_s == Approx(663e-6).margin(1e-9));
  CHECK(t.optimizer_bytes_per_s == Approx(3696 / 663e-6));
  CHECK(trace_optimizer_step_bytes(t, Optimizer::adam, 0, 1) / t.optimizer_bytes_per_s == Approx(663e-6));
  CHECK(imported.provenance["optimizer_step"]["optimizer"] == "adam");
  for (const std::string& warning : imported.warnings) CHECK_THAT(warning, !Catch::Contains("no forward pass"));
  // PyTorch 1.8/1.9 name the devices under "computeProperties".
  CHECK(imported.provenance["hardware"] == std::vector<std::string>(4, "Tesla V100-DGXS-32GB"));
  CHECK_THROWS_WITH(import_kineto_file(kPt18, {"mlp", 2, 0, {100, 10, 20}, "sizes.txt"}),
                    Catch::Contains("accumulates 4 gradients, but sizes.txt lists 3 parameter tensors"));
}

TEST_CASE("import: an optimizer step inside another or written again counts once (their union)", "[import]") {
  // The pt18 step's Optimizer.step#SGD.step runs 235935 to 236598 us (663 us, above). A copy 1 us later on
  // another thread (red team: summed, the step doubled to 1326 us) makes the union 235935 to 236599: 664 us.
  // A wrapper's step 10 us around it (as a ZeroRedundancyOptimizer's around its inner optimizer's) makes it
  // 235925 to 236608: 683 us.
  const auto with_extra = [](const std::string& name, double shift_us, double longer_us, int tid) {
    nlohmann::json document = nlohmann::json::parse(std::ifstream(kPt18));
    auto& events = document["traceEvents"];
    const auto step = std::find_if(events.begin(), events.end(), [](const nlohmann::json& e) {
      return e.value("name", "").starts_with("Optimizer.step#");
    });
    REQUIRE(step != events.end());
    nlohmann::json extra = *step;
    extra["name"] = name;
    extra["ts"] = (*step)["ts"].get<double>() + shift_us;
    extra["dur"] = (*step)["dur"].get<double>() + longer_us;
    extra["tid"] = tid;
    events.push_back(extra);
    const std::filesystem::path file = std::filesystem::temp_directory_path() / "mgsim-test-optimizer-steps.json";
    std::ofstream(file) << document.dump();
    return file;
  };
  const KinetoOptions sizes{"mlp", 2, 0, {100, 10, 20, 2}, "sizes.txt"};
  const ImportedTrace copied = import_kineto_file(with_extra("Optimizer.step#SGD.step", 1, 0, 7), sizes);
  REQUIRE(copied.optimizer_step_s);
  CHECK(*copied.optimizer_step_s == Approx(664e-6).margin(1e-9));
  const ImportedTrace wrapped = import_kineto_file(with_extra("Optimizer.step#Wrapper.step", -10, 20, 7), sizes);
  REQUIRE(wrapped.optimizer_step_s);
  CHECK(*wrapped.optimizer_step_s == Approx(683e-6).margin(1e-9));
}

// tests/data/kineto-resnet50-bottleneck-t4-backward.json is real, trimmed
// (tests/data/README.md): the backward of one training step of the
// authors' ResNet-50 with bottleneck blocks on a Tesla T4 (PyTorch 2.0,
// no record_shapes), every autograd node kept, but of the GPU work only the
// first and the last kernel the autograd thread launched. The model, from
// resnet.py of the same repository (resnet50_bottleneck(), large_mode
// False): a 7x7 stem convolution 3-64 and its BatchNorm, then stages of
// [3, 4, 6, 3] Bottleneck blocks with output channels 64, 128, 256, 512
// (inner width a quarter of that: 1x1, 3x3, 1x1 convolutions, each followed
// by a BatchNorm), a 1x1 convolution + BatchNorm downsample in the first
// block of every stage whose input channels differ (stages 2 to 4), and a
// Linear(512, 1000). Every Conv2d keeps its bias (the default): weight and
// bias each, 52 convolutions, 52 BatchNorms and the Linear, 210 tensors in
// state_dict order.
std::vector<std::int64_t> resnet50_bottleneck_small() {
  std::vector<std::int64_t> sizes;
  const auto conv = [&](std::int64_t in, std::int64_t out, std::int64_t k) {
    sizes.push_back(out * in * k * k);
    sizes.push_back(out);
  };
  const auto bn = [&](std::int64_t c) {
    sizes.push_back(c);
    sizes.push_back(c);
  };
  conv(3, 64, 7);
  bn(64);
  std::int64_t in = 64;
  const std::int64_t outs[] = {64, 128, 256, 512};
  const int blocks[] = {3, 4, 6, 3};
  for (int stage = 0; stage < 4; ++stage) {
    const std::int64_t out = outs[stage], width = out / 4;
    for (int b = 0; b < blocks[stage]; ++b) {
      const std::int64_t block_in = b == 0 ? in : out;
      conv(block_in, width, 1);
      bn(width);
      conv(width, width, 3);
      bn(width);
      conv(width, out, 1);
      bn(out);
      if (block_in != out) {
        conv(block_in, out, 1);
        bn(out);
      }
    }
    in = out;
  }
  sizes.push_back(1000 * 512);
  sizes.push_back(1000);
  return sizes;
}
const std::string kResnet = mgsim::test::kTestData + "kineto-resnet50-bottleneck-t4-backward.json";

TEST_CASE("import: a real kineto ResNet-50 (bottleneck) backward gives its 105 layers and 210 gradients", "[import]") {
  const std::vector<std::int64_t> sizes = resnet50_bottleneck_small();
  REQUIRE(sizes.size() == 210);
  // By hand: stem 9,472 + 128; stage 1 3 x 4,640; stage 2 24,512 +
  // 3 x 17,984; stage 3 96,128 + 5 x 70,784; stage 4 380,672 + 2 x 280,832;
  // Linear 513,000.
  std::int64_t total = 0;
  for (const std::int64_t s : sizes) total += s;
  CHECK(total == 2007368);
  const ImportedTrace imported = import_kineto_file(kResnet, {"resnet50-bottleneck", 64, 0, sizes, "resnet.py"});
  const Trace& t = imported.trace;
  // Layers in forward order, one per convolution and BatchNorm (its bias
  // and weight, or its two affine tensors, in one layer) and the Linear:
  // each named after its backward node and sequence number, which grow
  // along the forward (6113 for the stem convolution, 6285 for the Linear,
  // read from the file).
  std::vector<std::string> kinds = {"ConvolutionBackward0", "CudnnBatchNormBackward0"};
  const int blocks[] = {3, 4, 6, 3};
  for (int stage = 0; stage < 4; ++stage) {
    for (int b = 0; b < blocks[stage]; ++b) {
      const int pairs = b == 0 && stage > 0 ? 4 : 3;  // conv1..conv3 (+ downsample), each with its BatchNorm
      for (int p = 0; p < pairs; ++p) {
        kinds.push_back("ConvolutionBackward0");
        kinds.push_back("CudnnBatchNormBackward0");
      }
    }
  }
  kinds.push_back("AddmmBackward0");
  REQUIRE(kinds.size() == 105);
  REQUIRE(t.layers.size() == 105);
  int previous = 0;
  std::int64_t parameters = 0;
  for (std::size_t l = 0; l < 105; ++l) {
    const Layer& layer = t.layers[l];
    INFO(layer.name);
    REQUIRE(layer.name.starts_with(kinds[l] + "#"));
    const int sequence = std::stoi(layer.name.substr(kinds[l].size() + 1));
    CHECK(sequence > previous);
    previous = sequence;
    // Within a layer the gradients' order is the engine's; the sizes are the model's.
    std::vector<std::int64_t> got = layer.params, want = {sizes[2 * l], sizes[2 * l + 1]};
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    CHECK(got == want);
    for (const std::int64_t p : layer.params) parameters += p;
  }
  CHECK(t.layers.front().name == "ConvolutionBackward0#6113");
  CHECK(t.layers.back().name == "AddmmBackward0#6285");
  CHECK(parameters == 2007368);
  // The backward spans the GPU work the autograd thread launched: the fill
  // of NllLossBackward0 starting at 479466 us to the stem convolution's
  // bias-sum ending at 495787 + 29 (after 1683922620000000): 16350 us. (With
  // only those two kernels kept, the split among the layers is not the
  // measured one; tests/data/README.md.)
  CHECK(imported.provenance["statistics"]["backward_s"].get<double>() == Approx(16350e-6).margin(1e-9));
  CHECK(imported.provenance["backward_nodes_from"] == "autograd::engine::evaluate_function events (PyTorch >= 1.10)");
  CHECK(imported.provenance["hardware"][0] == "Tesla T4");
  // The fixture keeps the backward only: the forward's absence is said.
  CHECK_THAT(imported.warnings, Catch::VectorContains(std::string(
                                    "the trace holds no forward pass (forward time 0): predictions from it leave the "
                                    "forward out; profile a whole step, or set \"forward_time_s\" in the written trace")));
  std::vector<std::int64_t> fewer = sizes;
  fewer.pop_back();
  CHECK_THROWS_WITH(import_kineto_file(kResnet, {"resnet50-bottleneck", 64, 0, fewer, "sizes.txt"}),
                    Catch::Contains("accumulates 210 gradients, but sizes.txt lists 209 parameter tensors"));
}

// tests/data/kineto-resnet50-h200-pt211-step.json.gz is measured here, one
// step kept (tests/data/README.md): scripts/kineto_capture.py on an NVIDIA
// H200 with PyTorch 2.11 and record_shapes, torchvision's ResNet-50, batch
// 64, bf16 autocast, SGD with momentum. PyTorch 2 files the record_function
// ranges ProfilerStep# and Optimizer.step# as "user_annotation", with copies
// on the GPU's timeline as "gpu_user_annotation".
const std::string kH200 = mgsim::test::kTestData + "kineto-resnet50-h200-pt211-step.json.gz";

TEST_CASE("import: a PyTorch 2.11 step on an H200 gives ResNet-50's tensors, its step and its optimizer step",
          "[import]") {
  KinetoOptions options{"resnet50", 64, 0, {}, {}};
  options.optimizer = Optimizer::momentum;
  const ImportedTrace imported = import_kineto_file(kH200, options);
  // The GPU copies of ProfilerStep#1 and Optimizer.step# are no step windows.
  for (const std::string& warning : imported.warnings) CHECK_THAT(warning, !Catch::Contains("step window"));
  CHECK(imported.provenance["statistics"]["iterations"] == 1);
  // 161 AccumulateGrad with their shapes: torchvision's resnet50 has 161
  // parameter tensors and 25,557,032 parameters.
  std::int64_t elements = 0, tensors = 0;
  for (const Layer& layer : imported.trace.layers) {
    tensors += std::ssize(layer.params);
    for (const std::int64_t e : layer.params) elements += e;
  }
  CHECK(tensors == 161);
  CHECK(elements == 25'557'032);
  // ProfilerStep#1 (user_annotation) lasts 40035.799 us.
  REQUIRE(imported.step_time_s);
  CHECK(*imported.step_time_s == Approx(40035.799e-6).margin(1e-9));
  // Optimizer.step#SGD.step (user_annotation, thread 766) spans 1790.932 us
  // on the CPU; the 9 kernels it launches span 286.751 us on the GPU: the
  // step is launch-bound, 1790.932 us. Momentum streams 20 bytes for each of
  // the 25,557,032 fp32 elements: 511,140,640 bytes in that time.
  REQUIRE(imported.optimizer_step_s);
  CHECK(*imported.optimizer_step_s == Approx(1790.932e-6).margin(1e-9));
  CHECK(imported.trace.optimizer_bytes_per_s == Approx(511'140'640 / 1790.932e-6));
  // The 999 kernels and sets launched inside the step keep the GPU busy for
  // 26265.464 us of it (the union of their intervals cut at the step's end,
  // summed by a script apart; the last ones run past it): 65.6% of the
  // step, so the run waited for its launches.
  REQUIRE(imported.gpu_busy_fraction);
  CHECK(*imported.gpu_busy_fraction == Approx(26265.464 / 40035.799).epsilon(1e-5));
  CHECK(std::count_if(imported.warnings.begin(), imported.warnings.end(), [](const std::string& w) {
          return w.find("the GPU was busy 66% of the median step") != std::string::npos;
        }) == 1);
}

TEST_CASE("import: --zoo on a trace with recorded shapes checks the sizes as a whole, not tensor by tensor",
          "[import]") {
  // torchvision's ResNet-50 records fc.weight's gradient (2048 x 1000) before
  // fc.bias's (1000), the reverse of the zoo's state_dict order read from the
  // end: the same model, refused while the check went tensor by tensor.
  const std::vector<std::int64_t> zoo_sizes = mgsim::zoo::build_model("resnet50", {}).tensor_sizes();
  KinetoOptions options{"resnet50", 64, 0, zoo_sizes, "zoo model resnet50"};
  const ImportedTrace with_list = import_kineto_file(kH200, options);
  const ImportedTrace recorded = import_kineto_file(kH200, {"resnet50", 64, 0, {}, {}});
  REQUIRE(with_list.trace.layers.size() == recorded.trace.layers.size());
  for (std::size_t i = 0; i < recorded.trace.layers.size(); ++i) {
    CHECK(with_list.trace.layers[i].params == recorded.trace.layers[i].params);
  }
  // A 10-class head (2048 x 10 and 10) has the tensor count, not the sizes.
  std::vector<std::int64_t> cifar = zoo_sizes;
  cifar[cifar.size() - 2] = 20'480;
  cifar.back() = 10;
  options.param_elements = cifar;
  CHECK_THROWS_WITH(import_kineto_file(kH200, options),
                    Catch::Contains("zoo model resnet50 disagrees with the trace's recorded shapes: tensors of 10 "
                                    "elements: 0 in the trace, 1 in zoo model resnet50"));
}

}  // namespace

TEST_CASE("import: a sequence number past 2^63 or below 0 is no id, never a wrapped one", "[import]") {
  // Red team: 2^64 - 1 on AddmmBackward0 named a layer "AddmmBackward0#-1", 2^63 "#-9223372036854775808".
  for (const nlohmann::json& wrong : {nlohmann::json(18446744073709551615ULL), nlohmann::json(9223372036854775808ULL),
                                      nlohmann::json(-4)}) {
    nlohmann::json document = sample();
    for (nlohmann::json& event : document["traceEvents"]) {
      if (event.value("name", "") == "AddmmBackward0" && event.contains("args")) event["args"]["Sequence number"] = wrong;
    }
    for (const Layer& layer : import(document).trace.layers) {
      INFO(wrong.dump() << ": layer " << layer.name);
      CHECK(layer.name.find("#-") == std::string::npos);
    }
  }
}

TEST_CASE("import: GPU work no launch leads to is said with its time, not dropped silently", "[import]") {
  // Red team: without the launches of Linear_0's backward kernels its backward imported 5x too short, said nowhere.
  // Those kernels (correlations 1012, 1013, 1025, 1026) run 30 + 8 + 30 + 12 = 80 us.
  nlohmann::json document = sample();
  auto& events = document["traceEvents"];
  const auto launch_of_linear_0 = [](const nlohmann::json& e) {
    if (e.value("cat", "") != "cuda_runtime") return false;
    const int correlation = e["args"]["correlation"];
    return correlation == 1012 || correlation == 1013 || correlation == 1025 || correlation == 1026;
  };
  events.erase(std::remove_if(events.begin(), events.end(), launch_of_linear_0), events.end());
  const ImportedTrace imported = import(document);
  CHECK(std::count_if(imported.warnings.begin(), imported.warnings.end(), [](const std::string& w) {
          return w.starts_with("4 GPU kernels or copies (0.080 ms) whose launch") &&
                 w.find("left out of every layer's time") != std::string::npos;
        }) == 1);
  // Without args.correlation, the two of step 1 (30 + 8 us).
  nlohmann::json uncorrelated = sample();
  for (nlohmann::json& e : uncorrelated["traceEvents"]) {
    if (e.value("cat", "") == "kernel" && (e["args"]["correlation"] == 1012 || e["args"]["correlation"] == 1013)) {
      e["args"].erase("correlation");
    }
  }
  const ImportedTrace cut = import(uncorrelated);
  CHECK(std::count_if(cut.warnings.begin(), cut.warnings.end(), [](const std::string& w) {
          return w.starts_with("2 GPU kernels or copies (0.038 ms) without args.correlation");
        }) == 1);
  // Without it on every kernel of step 2 but the all-reduces (correlations from 1018), step 2 is skipped, said.
  nlohmann::json second = sample();
  for (nlohmann::json& e : second["traceEvents"]) {
    const auto& name = e.value("name", "");
    if (e.value("cat", "") == "kernel" && e["args"]["correlation"] >= 1018 && name.find("nccl") == std::string::npos) {
      e["args"].erase("correlation");
    }
  }
  const ImportedTrace one = import(second);
  CHECK(one.provenance["statistics"]["iterations"] == 1);
  CHECK(std::count(one.warnings.begin(), one.warnings.end(),
                   "1 step window skipped: no backward GPU work could be traced to its launches") == 1);
}
