// The input loaders (docs/trace-format.md, docs/config.md): every malformed
// trace, curve or run config is rejected with the error type of its file kind
// and a one-line message naming the file and the key path; valid inputs, the
// shipped configs and the shipped GoogleNet trace load.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mgsim/error.hpp"
#include "mgsim/app/run_grid.hpp"
#include "mgsim/io/json_document.hpp"
#include "mgsim/io/scenario.hpp"
#include "mgsim/io/trace_io.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// A fresh folder under the system temp folder, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    std::random_device random;
    path_ = fs::temp_directory_path() /
            ("mgsim-test-loaders-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
             std::to_string(stamp) + "-" + std::to_string(random()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }

  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path file = path_ / name;
    fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    REQUIRE(out.good());
    return file;
  }
  fs::path write(const std::string& name, const json& value) const { return write(name, value.dump(2)); }

 private:
  fs::path path_;
};

/// Runs `load` and returns the message of the `E` it throws; fails the test
/// when it throws nothing or another type.
template <typename E, typename F>
std::string load_message(F&& load) {
  try {
    load();
  } catch (const E& error) {
    return error.what();
  } catch (const std::exception& error) {
    FAIL("wrong exception type, message: " << error.what());
  }
  FAIL("no exception thrown");
  return {};
}

/// `load` throws an `E` whose message contains every fragment (the file, the
/// key path, ...) and is one line.
template <typename E, typename F>
void require_error(F&& load, std::initializer_list<std::string> fragments) {
  const std::string message = load_message<E>(std::forward<F>(load));
  INFO("message: " << message);
  CHECK(message.find('\n') == std::string::npos);
  for (const std::string& fragment : fragments) CHECK_THAT(message, Catch::Contains(fragment));
}

// ---- valid inputs the tests mutate -------------------------------------------------------------------------

json valid_trace() {
  return json::parse(R"({
    "format": "mgsim-trace",
    "version": 1,
    "model": "tiny",
    "batch_size": 8,
    "forward_time_s": 0.001,
    "provenance": {"kind": "synthetic", "note": "hand-made for the loader tests"},
    "layers": [
      {"name": "conv1", "params": [864, 32], "dtype_bytes": 4, "backward_time_s": 0.002,
       "grad_ready_s": [0.0015, 0.002]},
      {"name": "fc", "params": [4096, 10], "dtype_bytes": 4, "backward_time_s": 0.001}
    ]
  })");
}

json valid_curve() {
  return json::parse(R"({
    "format": "mgsim-curve",
    "version": 1,
    "collective": "allreduce",
    "provenance": {"kind": "measured", "tool": "osu_allreduce"},
    "points": [
      {"gpus": 2, "bytes": 4, "seconds": 3e-05, "spread_s": 1e-06},
      {"gpus": 2, "bytes": 1048576, "seconds": 0.002},
      {"gpus": 4, "bytes": 4, "seconds": 5e-05}
    ]
  })");
}

/// The acceptance config, verbatim.
constexpr const char* kAcceptanceConfig =
    R"({"trace": "t.json", "gpus": [4, 16, 2048], "gpus_per_node": 1, "collective": "ring", "network": {"alpha_us": 45.25, "beta_s_per_byte": 9.93e-10, "gamma_s_per_byte": 2.5e-9}, "schedules": ["wfbp", "single", "mgwfbp", "optimal", "ddp", "horovod"]})";

json valid_config() {
  return json::parse(R"({"trace": "t.json", "gpus": [4], "collective": "ring",
                         "network": {"alpha_us": 45.25, "beta_s_per_byte": 9.93e-10}, "schedules": ["wfbp"]})");
}

fs::path source_dir() { return fs::path(MGSIM_SOURCE_DIR); }

// ---- trace ---------------------------------------------------------------------------------------------

/// Writes `trace` as t.json in a fresh folder and requires load_trace to
/// reject it with a TraceError naming the file and every fragment.
void require_trace_error(const json& trace, std::initializer_list<std::string> fragments) {
  TempDir dir;
  const fs::path file = dir.write("t.json", trace);
  require_error<mgsim::TraceError>([&] { mgsim::load_trace(file); }, {file.string()});
  require_error<mgsim::TraceError>([&] { mgsim::load_trace(file); }, fragments);
}

TEST_CASE("trace loader accepts a valid trace", "[loaders][trace]") {
  TempDir dir;
  const mgsim::Trace trace = mgsim::load_trace(dir.write("t.json", valid_trace()));
  CHECK(trace.model == "tiny");
  CHECK(trace.batch_size == 8);
  CHECK(trace.forward_time_s == 0.001);
  REQUIRE(trace.layers.size() == 2);
  CHECK(trace.layers[0].name == "conv1");
  CHECK(trace.layers[0].params == std::vector<std::int64_t>{864, 32});
  CHECK(trace.layers[0].grad_ready_s == std::vector<double>{0.0015, 0.002});
  CHECK(trace.layers[1].grad_ready_s.empty());
  CHECK(trace.layers[1].backward_time_s == 0.001);
}

TEST_CASE("trace loader rejects an unreadable or malformed file", "[loaders][trace]") {
  TempDir dir;
  const fs::path missing = dir.path() / "no-such-trace.json";
  require_error<mgsim::TraceError>([&] { mgsim::load_trace(missing); }, {missing.string(), "cannot read"});

  const fs::path malformed = dir.write("bad.json", std::string(R"({"format": "mgsim-trace", "version": 1,)"));
  require_error<mgsim::TraceError>([&] { mgsim::load_trace(malformed); },
                                   {malformed.string(), "malformed JSON: the input ends before the document does"});
  // Cut inside a layer: said where, not blamed on the key being read (red team).
  const fs::path cut = dir.write("cut.json", std::string(R"({"format": "mgsim-trace", "layers": [{"name": "a", )"));
  require_error<mgsim::TraceError>([&] { mgsim::load_trace(cut); },
                                   {cut.string() + ": malformed JSON: the input ends inside layers[0] (cut short?)"});

  const fs::path nan_literal = dir.write("nan.json", std::string(R"({"forward_time_s": NaN})"));
  require_error<mgsim::TraceError>([&] { mgsim::load_trace(nan_literal); }, {nan_literal.string(), "malformed JSON"});

  const fs::path empty = dir.write("empty.json", std::string());
  require_error<mgsim::TraceError>([&] { mgsim::load_trace(empty); },
                                   {empty.string(), "malformed JSON: the input ends before the document does (empty"});

  const fs::path array = dir.write("array.json", std::string("[1, 2]"));
  require_error<mgsim::TraceError>([&] { mgsim::load_trace(array); }, {array.string(), "(top level)", "an object"});

  // Layers are read while the file is parsed; a key given twice inside one is still refused.
  const fs::path twice = dir.write("twice.json", std::string(R"({"format": "mgsim-trace", "version": 1,
    "layers": [{"name": "a", "params": [1], "dtype_bytes": 4, "backward_time_s": 0.1, "backward_time_s": 0.2}]})"));
  require_error<mgsim::TraceError>([&] { mgsim::load_trace(twice); },
                                   {twice.string() + ": layers[0].backward_time_s: malformed JSON", "\"backward_time_s\" given twice"});
  // A NUL byte is no JSON anywhere; nlohmann's lexer alone would take it for
  // the end of the input and ignore what follows (a whole trace, then junk).
  std::string whole = valid_trace().dump();
  const std::size_t length = whole.size();
  whole += std::string(1, '\0') + "junk";
  const fs::path nul = dir.write("nul.json", whole);
  require_error<mgsim::TraceError>([&] { mgsim::load_trace(nul); },
                                   {nul.string(), "malformed JSON", fmt::format("NUL byte (0x00) at byte {}", length + 1)});
}

TEST_CASE("malformed JSON is named at the key the parser was in", "[loaders][json]") {
  const auto at = [](const std::string& text) {
    std::istringstream in(text);
    try {
      mgsim::parse_json(in);
    } catch (const mgsim::JsonSyntaxError& error) {
      return error.at();
    }
    FAIL("parsed: " << text);
    return std::string();
  };
  // The element being read of each open array, the key being read of each open object.
  CHECK(at(R"({"a": [1, {"b": 1e999}]})") == "a[1].b");
  CHECK(at(R"({"a": [1, [2, 3, ]]})") == "a[1][2]");
  CHECK(at(R"({"a": {"b": 1, "b": 2}})") == "a.b");
  // Between an object's keys the object itself; at the top level nothing.
  CHECK(at(R"({"a": {"b": 1,}})") == "a");
  CHECK(at(R"({"a": 1,})").empty());
  CHECK(at("[1, 2") == "[2]");
  // Nine levels deep: eight shown.
  CHECK(at(R"({"a": [[[[[[[[1e999]]]]]]]]})") == "a[0][0][0][0][0][0][0]...");
  // A streamed array's elements are handed out and cleared: counted all the same.
  std::istringstream in(R"({"layers": [{"x": 1}, {"x": 2}, {"x": 1e999}]})");
  std::size_t taken = 0;
  const mgsim::StreamedArray streamed{"layers", [&](const json&, std::size_t) { ++taken; }};
  try {
    mgsim::parse_json(in, &streamed);
    FAIL("parsed");
  } catch (const mgsim::JsonSyntaxError& error) {
    CHECK(error.at() == "layers[2].x");
    CHECK(taken == 2);
  }
}

TEST_CASE("trace loader rejects a wrong header", "[loaders][trace]") {
  json trace = valid_trace();
  SECTION("wrong format name") {
    trace["format"] = "mgsim-curve";
    require_trace_error(trace, {"format", "\"mgsim-trace\"", "mgsim-curve"});
  }
  SECTION("format not a string") {
    trace["format"] = 7;
    require_trace_error(trace, {"format", "\"mgsim-trace\""});
  }
  SECTION("missing format") {
    trace.erase("format");
    require_trace_error(trace, {"format", "missing"});
  }
  SECTION("version 3") {
    trace["version"] = 3;
    require_trace_error(trace, {"version", "got 3"});
  }
  SECTION("version 1.5 is not an integer (1.0 is 1, as every whole number reads)") {
    trace["version"] = 1.5;
    require_trace_error(trace, {"version", "an integer", "got 1.5"});
  }
  SECTION("missing provenance") {
    trace.erase("provenance");
    require_trace_error(trace, {"provenance", "missing"});
  }
  SECTION("provenance not an object") {
    trace["provenance"] = "measured";
    require_trace_error(trace, {"provenance", "an object"});
  }
  SECTION("provenance without kind") {
    trace["provenance"].erase("kind");
    require_trace_error(trace, {"provenance.kind", "missing"});
  }
  SECTION("provenance.kind neither measured nor synthetic") {
    trace["provenance"]["kind"] = "estimated";
    require_trace_error(trace, {"provenance.kind", "\"measured\" or \"synthetic\"", "estimated"});
  }
  SECTION("unknown top-level key") {
    trace["layer"] = json::array();
    require_trace_error(trace, {"layer", "unknown key"});
  }
  SECTION("missing model") {
    trace.erase("model");
    require_trace_error(trace, {"model", "missing"});
  }
  SECTION("empty model") {
    trace["model"] = "";
    require_trace_error(trace, {"model", "non-empty string"});
  }
  SECTION("batch_size 0") {
    trace["batch_size"] = 0;
    require_trace_error(trace, {"batch_size"});
  }
  SECTION("negative forward_time_s") {
    trace["forward_time_s"] = -0.5;
    require_trace_error(trace, {"forward_time_s", "-0.5"});
  }
}

TEST_CASE("trace loader rejects a wrong layer", "[loaders][trace]") {
  json trace = valid_trace();
  SECTION("unknown layer key") {
    trace["layers"][1]["backward_s"] = 0.1;
    require_trace_error(trace, {"layers[1].backward_s", "unknown key"});
  }
  SECTION("negative backward_time_s") {
    trace["layers"][1]["backward_time_s"] = -0.001;
    require_trace_error(trace, {"layers[1].backward_time_s", "-0.001"});
  }
  SECTION("string where a number is expected") {
    trace["layers"][1]["backward_time_s"] = "NaN";
    require_trace_error(trace, {"layers[1].backward_time_s", "a finite number", "\"NaN\""});
  }
  SECTION("null where a number is expected") {
    trace["layers"][0]["backward_time_s"] = nullptr;
    require_trace_error(trace, {"layers[0].backward_time_s", "a finite number"});
  }
  SECTION("missing backward_time_s") {
    trace["layers"][0].erase("backward_time_s");
    require_trace_error(trace, {"layers[0].backward_time_s", "missing"});
  }
  SECTION("layer not an object") {
    trace["layers"][1] = 5;
    require_trace_error(trace, {"layers[1]", "an object"});
  }
  SECTION("zero layers") {
    trace["layers"] = json::array();
    require_trace_error(trace, {"layers", "non-empty array"});
  }
  SECTION("layers not an array") {
    trace["layers"] = json::object();
    require_trace_error(trace, {"layers", "non-empty array"});
  }
  SECTION("empty layer name") {
    trace["layers"][0]["name"] = "";
    require_trace_error(trace, {"layers[0].name", "non-empty string"});
  }
  SECTION("empty params") {
    trace["layers"][1]["params"] = json::array();
    require_trace_error(trace, {"layers[1].params", "non-empty array"});
  }
  SECTION("params element 0") {
    trace["layers"][1]["params"] = {4096, 0};
    require_trace_error(trace, {"layers[1].params[1]", "an integer in [1,"});
  }
  SECTION("negative params element") {
    trace["layers"][0]["params"] = {-864, 32};
    require_trace_error(trace, {"layers[0].params[0]", "-864"});
  }
  SECTION("non-integer params") {
    trace["layers"][1]["params"] = {1.5, 10};
    require_trace_error(trace, {"layers[1].params[0]", "an integer", "1.5"});
  }
  SECTION("params too large") {
    trace["layers"][1]["params"] = {mgsim::kMaxTensorElements + 1, 10};
    require_trace_error(trace, {"layers[1].params[0]"});
  }
  SECTION("dtype_bytes 0") {
    trace["layers"][0]["dtype_bytes"] = 0;
    require_trace_error(trace, {"layers[0].dtype_bytes", "[1, 8]", "got 0"});
  }
  SECTION("dtype_bytes 9, past fp64") {
    trace["layers"][0]["dtype_bytes"] = 9;
    require_trace_error(trace, {"layers[0].dtype_bytes", "[1, 8]"});
  }
  SECTION("grad_ready_s with the wrong length") {
    trace["layers"][0]["grad_ready_s"] = {0.001};
    require_trace_error(trace, {"layers[0].grad_ready_s", "one time per tensor (2), got 1"});
  }
  SECTION("grad_ready_s later than backward_time_s") {
    trace["layers"][0]["grad_ready_s"] = {0.001, 0.0025};
    require_trace_error(trace, {"layers[0].grad_ready_s[1]", "backward_time_s", "0.0025"});
  }
  SECTION("negative grad_ready_s") {
    trace["layers"][0]["grad_ready_s"] = {-0.001, 0.002};
    require_trace_error(trace, {"layers[0].grad_ready_s[0]"});
  }
  SECTION("all-zero compute") {
    trace["forward_time_s"] = 0;
    trace["layers"][0]["backward_time_s"] = 0;
    trace["layers"][0].erase("grad_ready_s");
    trace["layers"][1]["backward_time_s"] = 0;
    require_trace_error(trace, {"compute", "forward_time_s"});
  }
}

// nlohmann::json reports a literal that overflows a double ("1e999") as
// out_of_range, not parse_error: the reader must turn both into a TraceError.
TEST_CASE("trace loader rejects a number literal that overflows", "[loaders][trace]") {
  std::string text = valid_trace().dump();
  const std::string from = "\"backward_time_s\":0.001";
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), "\"backward_time_s\":1e999");
  TempDir dir;
  const fs::path file = dir.write("t.json", text);
  // Either the parser refuses the literal or the loader refuses infinity.
  const std::string message = load_message<mgsim::TraceError>([&] { mgsim::load_trace(file); });
  CHECK_THAT(message, Catch::Contains(file.string()));
  CHECK_THAT(message, Catch::Contains("layers[1].backward_time_s") || Catch::Contains("malformed JSON"));
}

TEST_CASE("the shipped H200 and H100 traces load, with the models' tensors and their measured times", "[loaders][trace]") {
  // Parameter tensors and elements of the models as torchvision and
  // transformers build them (traces/README.md): ResNet-50 161 / 25,557,032,
  // VGG-16 32 / 138,357,544; BERT-base and GPT-2 small for sequence
  // classification add a 2-class head to the encoder (BERT-base 199 tensors
  // and 109,482,240 elements + classifier 768 x 2 + 2; GPT-2 small 148 and
  // 124,439,808 + score 768 x 2 without bias).
  struct Shipped {
    std::string file;
    std::size_t tensors;
    std::int64_t elements;
    std::string gpu;
    int batch;
  };
  const std::int64_t bert_base = 109'482'240 + 768 * 2 + 2;
  std::vector<Shipped> shipped{{"h200-resnet50-bs64-bf16.json", 161, 25'557'032, "NVIDIA H200", 64},
                               {"h200-resnet50-bs128-fp32.json", 161, 25'557'032, "NVIDIA H200", 128},
                               {"h200-vgg16-bs64-bf16.json", 32, 138'357'544, "NVIDIA H200", 64},
                               {"h200-bert-base-bs32-seq128-bf16.json", 201, bert_base, "NVIDIA H200", 32},
                               {"h200-gpt2-bs16-seq512-bf16.json", 149, 124'439'808 + 768 * 2, "NVIDIA H200", 16}};
  for (int batch : {8, 16, 32, 64, 128, 256}) {
    shipped.push_back({fmt::format("h100-resnet50-bs{}-bf16.json", batch), 161, 25'557'032, "NVIDIA H100 80GB HBM3", batch});
  }
  for (int batch : {4, 8, 16, 32, 64, 128}) {
    shipped.push_back({fmt::format("h100-bert-base-bs{}-seq128-bf16.json", batch), 201, bert_base, "NVIDIA H100 80GB HBM3", batch});
  }
  for (const Shipped& s : shipped) {
    INFO(s.file);
    const fs::path file = source_dir() / "traces" / s.file;
    const mgsim::Trace trace = mgsim::load_trace(file);
    std::size_t tensors = 0;
    std::int64_t elements = 0;
    for (const mgsim::Layer& layer : trace.layers) {
      tensors += layer.params.size();
      elements = std::accumulate(layer.params.begin(), layer.params.end(), elements);
    }
    CHECK(tensors == s.tensors);
    CHECK(elements == s.elements);
    CHECK(trace.batch_size == s.batch);
    CHECK(make_profile(trace).compute_time() > 0);
    const nlohmann::json provenance = nlohmann::json::parse(std::ifstream(file))["provenance"];
    CHECK(provenance["kind"] == "measured");
    CHECK(provenance["gpu"] == s.gpu);
  }
}

TEST_CASE("trace loader reads the shipped GoogleNet K80 trace", "[loaders][trace]") {
  const mgsim::Trace trace = mgsim::load_trace(source_dir() / "traces" / "googlenet-k80.json");
  CHECK(trace.model == "googlenet");
  CHECK(trace.batch_size == 64);
  REQUIRE(trace.layers.size() == 64);
  std::size_t tensors = 0;
  std::int64_t elements = 0;
  for (const mgsim::Layer& layer : trace.layers) {
    tensors += layer.params.size();
    elements = std::accumulate(layer.params.begin(), layer.params.end(), elements);
    CHECK(layer.dtype_bytes == 4);
  }
  CHECK(tensors == 128);
  // B-Caffe all-reduces counts padded to multiples of 64 elements
  // (13,378,280 exact), and the trace records what was sent.
  CHECK(elements == 13'379'136);
  CHECK(trace.layers.front().name == "conv1/7x7_s2");
  CHECK(trace.layers.front().params == std::vector<std::int64_t>{9408, 64});
  CHECK(mgsim::total_gradient_bytes(trace) == 13'379'136 * 4);
}

// ---- curve ---------------------------------------------------------------------------------------------

void require_curve_error(const json& curve, std::initializer_list<std::string> fragments) {
  TempDir dir;
  const fs::path file = dir.write("c.json", curve);
  require_error<mgsim::CurveError>([&] { mgsim::load_curve(file); }, {file.string()});
  require_error<mgsim::CurveError>([&] { mgsim::load_curve(file); }, fragments);
}

TEST_CASE("curve loader accepts a valid curve, in file order", "[loaders][curve]") {
  TempDir dir;
  const std::vector<mgsim::CurvePoint> points = mgsim::load_curve(dir.write("c.json", valid_curve()));
  REQUIRE(points.size() == 3);
  CHECK(points[0].gpus == 2);
  CHECK(points[0].bytes == 4);
  CHECK(points[0].seconds == 3e-05);
  CHECK(points[1].bytes == 1048576);
  CHECK(points[2].gpus == 4);
}

TEST_CASE("curve loader reads the shipped OSU curves", "[loaders][curve]") {
  const std::vector<mgsim::CurvePoint> points =
      mgsim::load_curve(source_dir() / "traces" / "googlenet-k80-allreduce.json");
  REQUIRE_FALSE(points.empty());
  for (const mgsim::CurvePoint& point : points) {
    CHECK((point.gpus == 2 || point.gpus == 4 || point.gpus == 8));
    CHECK(point.seconds > 0);
  }
}

TEST_CASE("curve loader rejects malformed curves", "[loaders][curve]") {
  json curve = valid_curve();
  SECTION("missing file") {
    TempDir dir;
    const fs::path missing = dir.path() / "no-such-curve.json";
    require_error<mgsim::CurveError>([&] { mgsim::load_curve(missing); }, {missing.string(), "cannot read"});
  }
  SECTION("malformed JSON") {
    TempDir dir;
    const fs::path file = dir.write("c.json", std::string(R"({"points": [)"));
    require_error<mgsim::CurveError>([&] { mgsim::load_curve(file); }, {file.string(), "malformed JSON"});
  }
  SECTION("top level not an object") {
    TempDir dir;
    const fs::path file = dir.write("c.json", std::string(R"("allreduce")"));
    require_error<mgsim::CurveError>([&] { mgsim::load_curve(file); }, {file.string(), "an object"});
  }
  SECTION("a trace without in-situ observations given as a curve") {
    require_curve_error(valid_trace(), {"insitu_allreduce", "expected in-situ all-reduce observations"});
  }
  SECTION("version 2") {
    curve["version"] = 2;
    require_curve_error(curve, {"version"});
  }
  SECTION("provenance.kind missing") {
    curve["provenance"] = json::object();
    require_curve_error(curve, {"provenance.kind", "missing"});
  }
  SECTION("provenance.kind not measured or synthetic") {
    curve["provenance"]["kind"] = "guessed";
    require_curve_error(curve, {"provenance.kind", "guessed"});
  }
  SECTION("collective not allreduce") {
    curve["collective"] = "broadcast";
    require_curve_error(curve, {"collective", "\"allreduce\"", "broadcast"});
  }
  SECTION("unknown top-level key") {
    curve["unit"] = "s";
    require_curve_error(curve, {"unit", "unknown key"});
  }
  SECTION("unknown point key") {
    curve["points"][2]["latency"] = 1e-5;
    require_curve_error(curve, {"points[2].latency", "unknown key"});
  }
  SECTION("no points") {
    curve["points"] = json::array();
    require_curve_error(curve, {"points", "non-empty array"});
  }
  SECTION("duplicate (gpus, bytes) point") {
    curve["points"].push_back({{"gpus", 2}, {"bytes", 1048576}, {"seconds", 0.003}});
    require_curve_error(curve, {"points[3]", "duplicate", "gpus 2", "bytes 1048576"});
  }
  SECTION("gpus 1") {
    curve["points"][1]["gpus"] = 1;
    require_curve_error(curve, {"points[1].gpus", "got 1"});
  }
  SECTION("bytes 0") {
    curve["points"][0]["bytes"] = 0;
    require_curve_error(curve, {"points[0].bytes"});
  }
  SECTION("seconds 0") {
    curve["points"][2]["seconds"] = 0;
    require_curve_error(curve, {"points[2].seconds", ">= 1e-09"});
  }
  SECTION("seconds 1e-300, which alone once decided a whole fit (red team)") {
    curve["points"][2]["seconds"] = 1e-300;
    require_curve_error(curve, {"points[2].seconds", ">= 1e-09"});
  }
  SECTION("seconds a string") {
    curve["points"][2]["seconds"] = "5e-05";
    require_curve_error(curve, {"points[2].seconds", "a finite number"});
  }
  SECTION("negative spread_s") {
    curve["points"][0]["spread_s"] = -1e-6;
    require_curve_error(curve, {"points[0].spread_s"});
  }
}

// ---- run config ------------------------------------------------------------------------------------------

/// What `mgsim run` reads: the scenario with one of each axis.
mgsim::Scenario load_run_config(const fs::path& file) {
  mgsim::Scenario scenario = mgsim::load_scenario(file);
  mgsim::require_one_of_each(scenario, "mgsim run");
  return scenario;
}

/// What `mgsim run` checks before it runs: the scenario read, its grid built
/// (traces loaded, every cost model asked at every GPU count).
void check_run_config(const fs::path& file) {
  mgsim::WorkloadCache cache;
  const mgsim::RunGrid grid(load_run_config(file), cache);
}

/// Writes `config` as run.json next to a valid t.json and requires
/// load_run_config to reject it with a ConfigError naming the file.
void require_config_error(const json& config, std::initializer_list<std::string> fragments) {
  TempDir dir;
  dir.write("t.json", valid_trace());
  dir.write("c.json", valid_curve());
  const fs::path file = dir.write("run.json", config);
  require_error<mgsim::ConfigError>([&] { check_run_config(file); }, {file.string()});
  require_error<mgsim::ConfigError>([&] { check_run_config(file); }, fragments);
}

TEST_CASE("config loader accepts the acceptance config as it stands", "[loaders][config]") {
  TempDir dir;
  dir.write("t.json", valid_trace());
  const fs::path file = dir.write("run.json", std::string(kAcceptanceConfig));
  const mgsim::Scenario config = load_run_config(file);
  CHECK(config.traces.front() == dir.path() / "t.json");
  CHECK(config.gpus == std::vector<int>{4, 16, 2048});
  CHECK(config.gpus_per_node.front() == 1);
  CHECK(config.collectives.front().name == "ring");
  CHECK(config.gpus_per_node.front() == 1);
  const mgsim::Network& network = config.networks.front().network;
  CHECK(network.inter.alpha_s == Approx(45.25e-6));
  CHECK(network.inter.beta_s_per_byte == 9.93e-10);
  CHECK(network.inter.gamma_s_per_byte == 2.5e-9);
  CHECK(network.intra.alpha_s == network.inter.alpha_s);
  CHECK(network.intra.beta_s_per_byte == network.inter.beta_s_per_byte);
  CHECK(config.curve.empty());
  const std::vector<std::string> names{"wfbp", "single", "mgwfbp", "optimal", "ddp", "horovod"};
  REQUIRE(config.schedules.size() == names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    CHECK(config.schedules[i].name == names[i]);
    CHECK(config.schedules[i].params.empty());  // default parameters
    CHECK(config.schedules[i].label() == names[i]);
  }
  // ... and its trace loads.
  CHECK(mgsim::load_trace(config.traces.front()).layers.size() == 2);
}

TEST_CASE("config loader resolves the trace against the config's folder", "[loaders][config]") {
  TempDir dir;
  dir.write("traces/t.json", valid_trace());
  json config = valid_config();
  config["trace"] = "../traces/t.json";
  const fs::path file = dir.write("configs/run.json", config);
  const mgsim::Scenario loaded = load_run_config(file);
  CHECK(loaded.traces.front() == dir.path() / "configs" / ".." / "traces" / "t.json");
  CHECK(fs::equivalent(loaded.traces.front(), dir.path() / "traces" / "t.json"));
  CHECK(mgsim::load_trace(loaded.traces.front()).model == "tiny");

  SECTION("an absolute trace path is kept") {
    config["trace"] = (dir.path() / "traces" / "t.json").string();
    const fs::path absolute = dir.write("configs/abs.json", config);
    CHECK(load_run_config(absolute).traces.front() == dir.path() / "traces" / "t.json");
  }
}

TEST_CASE("config loader reads schedule objects with parameters", "[loaders][config]") {
  TempDir dir;
  json config = valid_config();
  config["schedules"] = json::parse(
      R"(["ddp", {"name": "ddp", "bucket_cap_mb": 50}, {"name": "horovod", "copy_s_per_byte": 0}, {"name": "wfbp"}])");
  const mgsim::Scenario loaded = load_run_config(dir.write("run.json", config));
  REQUIRE(loaded.schedules.size() == 4);
  CHECK(loaded.schedules[0].label() == "ddp");
  CHECK(loaded.schedules[0].params.empty());
  CHECK(loaded.schedules[1].name == "ddp");
  CHECK(loaded.schedules[1].params == mgsim::ParamValues{{"bucket_cap_mb", 50.0}});
  CHECK(loaded.schedules[1].label() == "ddp(bucket_cap_mb=50)");
  CHECK(loaded.schedules[2].params == mgsim::ParamValues{{"copy_s_per_byte", 0.0}});
  CHECK(loaded.schedules[2].label() == "horovod");  // 0, Horovod's default copy cost (docs/config.md), names no other run
  CHECK(loaded.schedules[3].label() == "wfbp");
}

TEST_CASE("config loader refuses a schedule given twice, once with a parameter at its default", "[loaders][config]") {
  TempDir dir;
  json config = valid_config();
  // DDP's first bucket is 1 MiB by default: given as 1, it is the run of "ddp".
  config["schedules"] = json::parse(R"(["ddp", {"name": "ddp", "first_bucket_cap_mb": 1}])");
  const auto file = dir.write("run.json", config);
  REQUIRE_THROWS_WITH(load_run_config(file),
                      Catch::Contains(file.string() + ": schedules[1]: schedule 'ddp' given twice (entries, list values or file "
                                                      "names that build the same run)"));
  // However the values are written: a cap of 25 with a first bucket of 1 is plain DDP (red team: labelled
  // "ddp(first_bucket_cap_mb=1)", accepted beside "ddp" and scored as another run).
  config["schedules"] = json::parse(R"(["ddp", {"name": "ddp", "bucket_cap_mb": 25, "first_bucket_cap_mb": 1}])");
  CHECK_THROWS_WITH(load_run_config(dir.write("run.json", config)), Catch::Contains("schedule 'ddp' given twice"));
  // -0 is 0 (it was labelled "credit_params=-0", another run).
  config["schedules"] = json::parse(R"([{"name": "bytescheduler", "credit_params": 0},
      {"name": "bytescheduler", "credit_params": -0.0}])");
  CHECK_THROWS_WITH(load_run_config(dir.write("run.json", config)),
                    Catch::Contains("schedule 'bytescheduler(credit_params=0)' given twice"));
  // A cap given, even DDP's default 25 MiB, makes the first bucket that cap too (PyTorch's rule): another run,
  // whose label keeps the cap; the first bucket written out at the cap it follows adds nothing.
  config["schedules"] = json::parse(R"(["ddp", {"name": "ddp", "bucket_cap_mb": 25},
      {"name": "ddp", "bucket_cap_mb": 50, "first_bucket_cap_mb": 50}, {"name": "ddp", "bucket_cap_mb": 50,
      "first_bucket_cap_mb": 1}])");
  const mgsim::Scenario loaded = load_run_config(dir.write("run.json", config));
  REQUIRE(loaded.schedules.size() == 4);
  CHECK(loaded.schedules[1].label() == "ddp(bucket_cap_mb=25)");
  // The same run written by its first bucket alone (25 MiB, the cap's default): the same label.
  config["schedules"] = json::parse(R"([{"name": "ddp", "first_bucket_cap_mb": 25}, {"name": "ddp", "first_bucket_cap_mb": 5}])");
  const mgsim::Scenario first = load_run_config(dir.write("run.json", config));
  CHECK(first.schedules[0].label() == "ddp(bucket_cap_mb=25)");
  CHECK(first.schedules[1].label() == "ddp(first_bucket_cap_mb=5)");
  CHECK(loaded.schedules[2].label() == "ddp(bucket_cap_mb=50)");
  CHECK(loaded.schedules[3].label() == "ddp(bucket_cap_mb=50,first_bucket_cap_mb=1)");
}

TEST_CASE("config loader labels layer names and files so that no two read alike", "[loaders][config]") {
  TempDir dir;
  json config = valid_config();
  // One layer named "a=0.5,b" is not the layers "a" and "b" (red team: both read "lags(a=0.5,b=0.5)", so the
  // second was refused as given twice); a newline, a terminal escape (C0 or C1) or a right-to-left override in
  // a name is not printed raw; a layer named "density" is not the parameter.
  config["schedules"] = json::parse(R"([{"name": "lags", "layer_density": {"a=0.5,b": 0.5}},
      {"name": "lags", "layer_density": {"a": 0.5, "b": 0.5}}, {"name": "lags", "layer_density": {"x\ny\u001b[31m\u009b\u202e": 0.5}},
      {"name": "lags", "layer_density": {"conv1": 0.25}}, {"name": "lags", "layer_density": {"density": 0.5}},
      {"name": "lags", "density": 0.5}])");
  const mgsim::Scenario loaded = load_run_config(dir.write("run.json", config));
  REQUIRE(loaded.schedules.size() == 6);
  CHECK(loaded.schedules[0].label() == R"(lags("a=0.5,b"=0.5))");
  CHECK(loaded.schedules[1].label() == R"(lags("a"=0.5,"b"=0.5))");
  CHECK(loaded.schedules[2].label() == R"(lags("x\u000ay\u001b[31m\u009b\u202e"=0.5))");
  CHECK(loaded.schedules[3].label() == R"(lags("conv1"=0.25))");  // quoted, plain or not
  CHECK(loaded.schedules[4].label() == R"(lags("density"=0.5))");
  CHECK(loaded.schedules[5].label() == "lags(density=0.5)");
  // A layer at the schedule's own density is the run without it: one label, so given twice.
  config["schedules"] = json::parse(R"([{"name": "lags", "density": 0.01, "layer_density": {"conv1": 0.01}},
      {"name": "lags", "density": 0.01}])");
  CHECK_THROWS_WITH(load_run_config(dir.write("run.json", config)),
                    Catch::Contains("schedule 'lags(density=0.01)' given twice"));
}

TEST_CASE("config loader gives every dense schedule when none is named", "[loaders][config]") {
  // The eight dense schedules of docs/config.md; sparse ones are asked for by name.
  TempDir dir;
  json config = valid_config();
  config.erase("schedules");
  const mgsim::Scenario loaded = load_run_config(dir.write("run.json", config));
  const std::vector<std::string> dense{"wfbp", "single", "mgwfbp", "optimal", "ddp", "horovod", "p3", "bytescheduler"};
  REQUIRE(loaded.schedules.size() == dense.size());
  for (std::size_t i = 0; i < loaded.schedules.size(); ++i) {
    CHECK(loaded.schedules[i].name == dense[i]);
    CHECK(loaded.schedules[i].params.empty());
  }
}

TEST_CASE("config loader reads a two-level network and a description", "[loaders][config]") {
  TempDir dir;
  json config = valid_config();
  config["description"] = "two levels";
  config["gpus_per_node"] = 4;
  config["collective"] = "hierarchical";
  config["network"] = json::parse(R"({"intra": {"alpha_us": 1, "beta_s_per_byte": 1e-11},
                                      "inter": {"alpha_us": 10, "beta_s_per_byte": 1e-9, "gamma_s_per_byte": 1e-10}})");
  const mgsim::Scenario loaded = load_run_config(dir.write("run.json", config));
  CHECK(loaded.gpus_per_node.front() == 4);
  CHECK(loaded.gpus_per_node.front() == 4);
  CHECK(loaded.networks.front().network.intra.alpha_s == Approx(1e-6));
  CHECK(loaded.networks.front().network.intra.gamma_s_per_byte == 0.0);
  CHECK(loaded.networks.front().network.inter.beta_s_per_byte == 1e-9);
}

TEST_CASE("config loader loads the curves of collective measured", "[loaders][config][curve]") {
  TempDir dir;
  dir.write("curves/c.json", valid_curve());
  json config = valid_config();
  config.erase("network");
  config["collective"] = "measured";
  config["curves"] = {"curves/c.json"};
  const mgsim::Scenario loaded = load_run_config(dir.write("run.json", config));
  CHECK(loaded.curve.size() == 3);
  CHECK_THAT(loaded.curve_source, Catch::Contains("c.json"));
}

TEST_CASE("config loader takes all-gather curves for the sparse schedules, refuses reduce-scatter ones",
          "[loaders][config][curve]") {
  TempDir dir;
  dir.write("curves/c.json", valid_curve());
  json gather = valid_curve();
  gather["collective"] = "allgather";
  dir.write("curves/ag.json", gather);
  json config = valid_config();
  config.erase("network");
  config["collective"] = "measured";
  config["curves"] = {"curves/c.json", "curves/ag.json"};
  const mgsim::Scenario loaded = load_run_config(dir.write("run.json", config));
  CHECK(loaded.curve.size() == 3);
  CHECK(loaded.allgather_curve.size() == 3);
  // An all-gather curve is not an all-reduce curve, wherever one is asked for.
  require_error<mgsim::CurveError>([&] { mgsim::load_curve(dir.path() / "curves/ag.json"); },
                                   {"ag.json", "expected an \"allreduce\" curve here, got \"allgather\""});
  json scatter = valid_curve();
  scatter["collective"] = "reducescatter";
  dir.write("curves/rs.json", scatter);
  config["curves"] = {"curves/rs.json"};
  require_error<mgsim::ConfigError>([&] { load_run_config(dir.write("run.json", config)); },
                                    {"rs.json is a reduce-scatter curve: no schedule uses one"});
}

TEST_CASE("config loader loads the shipped configs", "[loaders][config]") {
  for (const char* name : {"googlenet-k80-ring.json", "googlenet-k80-measured.json"}) {
    INFO(name);
    const mgsim::Scenario config = load_run_config(source_dir() / "configs" / name);
    CHECK(fs::equivalent(config.traces.front(), source_dir() / "traces" / "googlenet-k80.json"));
    CHECK(config.schedules.size() == 6);
    CHECK_FALSE(config.gpus.empty());
    CHECK(mgsim::load_trace(config.traces.front()).layers.size() == 64);
  }
  const mgsim::Scenario measured = load_run_config(source_dir() / "configs" / "googlenet-k80-measured.json");
  CHECK(measured.collectives.front().name == "measured");
  CHECK(measured.gpus == std::vector<int>{2, 4, 8});
  CHECK_FALSE(measured.curve.empty());
  const mgsim::Scenario ring = load_run_config(source_dir() / "configs" / "googlenet-k80-ring.json");
  CHECK(ring.collectives.front().name == "ring");
  CHECK(ring.gpus.back() == 2048);
}

TEST_CASE("config loader rejects an unreadable or malformed file", "[loaders][config]") {
  TempDir dir;
  const fs::path missing = dir.path() / "no-such-config.json";
  require_error<mgsim::ConfigError>([&] { load_run_config(missing); }, {missing.string(), "cannot read"});
  const fs::path malformed = dir.write("bad.json", std::string(R"({"trace": "t.json" "gpus": [4]})"));
  require_error<mgsim::ConfigError>([&] { load_run_config(malformed); },
                                    {malformed.string(), "malformed JSON"});
  const fs::path array = dir.write("array.json", std::string("[]"));
  require_error<mgsim::ConfigError>([&] { load_run_config(array); }, {array.string(), "an object"});
}

TEST_CASE("config loader rejects wrong keys and GPU counts", "[loaders][config]") {
  json config = valid_config();
  SECTION("unknown key") {
    config["gpu"] = {4};
    require_config_error(config, {"gpu", "unknown key"});
  }
  SECTION("missing trace") {
    config.erase("trace");
    require_config_error(config, {"trace", "missing"});
  }
  SECTION("empty gpus") {
    config["gpus"] = json::array();
    require_config_error(config, {"gpus", "non-empty array"});
  }
  SECTION("gpus 0") {
    config["gpus"] = {4, 0};
    require_config_error(config, {"gpus[1]", "got 0"});
  }
  SECTION("gpus -4") {
    config["gpus"] = {-4};
    require_config_error(config, {"gpus[0]", "got -4"});
  }
  SECTION("gpus 1.5") {
    config["gpus"] = {1.5};
    require_config_error(config, {"gpus[0]", "an integer", "1.5"});
  }
  SECTION("gpus a string") {
    config["gpus"] = {"8"};
    require_config_error(config, {"gpus[0]", "an integer"});
  }
  SECTION("gpus too many") {
    config["gpus"] = {mgsim::kMaxGpus + 1};
    require_config_error(config, {"gpus[0]"});
  }
  SECTION("gpus_per_node 0") {
    config["gpus_per_node"] = 0;
    require_config_error(config, {"gpus_per_node"});
  }
}

TEST_CASE("config loader rejects wrong schedules", "[loaders][config]") {
  json config = valid_config();
  SECTION("unknown schedule lists the valid names") {
    config["schedules"] = {"wfbp", "fastest"};
    require_config_error(config, {"schedules[1]", "fastest", "wfbp", "single", "mgwfbp", "optimal", "ddp",
                                  "horovod"});
  }
  SECTION("unknown schedule in an object") {
    config["schedules"] = json::parse(R"([{"name": "gpipe"}])");
    require_config_error(config, {"schedules[0]", "gpipe", "wfbp", "horovod"});
  }
  SECTION("schedule object without a name") {
    config["schedules"] = json::parse(R"([{"bucket_cap_mb": 50}])");
    require_config_error(config, {"schedules[0].name", "missing"});
  }
  SECTION("schedule with an unknown parameter") {
    config["schedules"] = json::parse(R"([{"name": "ddp", "bucket_mb": 50}])");
    require_config_error(config, {"schedules[0]", "ddp", "bucket_mb", "bucket_cap_mb"});
  }
  SECTION("parameter of a schedule that has none") {
    config["schedules"] = json::parse(R"([{"name": "wfbp", "threshold": 1}])");
    require_config_error(config, {"schedules[0]", "wfbp", "threshold"});
  }
  SECTION("negative schedule parameter") {
    config["schedules"] = json::parse(R"([{"name": "horovod", "cycle_time_ms": -1}])");
    require_config_error(config, {"schedules[0].cycle_time_ms", "-1"});
  }
  SECTION("zero schedule parameter where zero is not allowed") {
    config["schedules"] = json::parse(R"([{"name": "ddp", "bucket_cap_mb": 0}])");
    require_config_error(config, {"schedules[0]", "bucket_cap_mb"});
  }
  SECTION("schedule parameter a string") {
    config["schedules"] = json::parse(R"([{"name": "ddp", "bucket_cap_mb": "50"}])");
    require_config_error(config, {"schedules[0].bucket_cap_mb", "a finite number"});
  }
  SECTION("the same schedule twice") {
    config["schedules"] = {"wfbp", "mgwfbp", "wfbp"};
    require_config_error(config, {"schedules[2]", "'wfbp'", "twice"});
  }
  SECTION("the same schedule twice, once as an object") {
    config["schedules"] = json::parse(R"(["ddp", {"name": "ddp"}])");
    require_config_error(config, {"schedules[1]", "'ddp'", "twice"});
  }
  SECTION("the same parameterised schedule twice") {
    config["schedules"] = json::parse(R"([{"name": "ddp", "bucket_cap_mb": 50}, {"name": "ddp", "bucket_cap_mb": 50}])");
    require_config_error(config, {"schedules[1]", "ddp(bucket_cap_mb=50)", "twice"});
  }
  SECTION("empty schedules") {
    config["schedules"] = json::array();
    require_config_error(config, {"schedules", "non-empty array"});
  }
  SECTION("schedule a number") {
    config["schedules"] = {3};
    require_config_error(config, {"schedules[0]"});
  }
}

TEST_CASE("config loader rejects wrong collectives and networks", "[loaders][config]") {
  json config = valid_config();
  SECTION("unknown collective lists the valid names") {
    config["collective"] = "butterfly";
    require_config_error(config, {"collective", "butterfly", "ring", "tree", "recursive-doubling", "rabenseifner",
                                  "double-binary-tree", "hierarchical", "measured"});
  }
  SECTION("network missing") {
    config.erase("network");
    require_config_error(config, {"network", "missing"});
  }
  SECTION("network missing beta_s_per_byte") {
    config["network"].erase("beta_s_per_byte");
    require_config_error(config, {"network.beta_s_per_byte", "missing"});
  }
  SECTION("network missing alpha_us") {
    config["network"].erase("alpha_us");
    require_config_error(config, {"network.alpha_us", "missing"});
  }
  SECTION("network with an unknown key") {
    config["network"]["alpha_s"] = 4.5e-5;
    require_config_error(config, {"network.alpha_s", "unknown key"});
  }
  SECTION("negative network constant") {
    config["network"]["beta_s_per_byte"] = -1e-9;
    require_config_error(config, {"network.beta_s_per_byte"});
  }
  SECTION("two-level network missing inter") {
    config["network"] = json::parse(R"({"intra": {"alpha_us": 1, "beta_s_per_byte": 1e-11}})");
    require_config_error(config, {"network.inter", "missing"});
  }
  SECTION("two-level network with a flat key too") {
    config["network"] = json::parse(R"({"intra": {"alpha_us": 1, "beta_s_per_byte": 1e-11},
                                        "inter": {"alpha_us": 1, "beta_s_per_byte": 1e-11}, "alpha_us": 3})");
    require_config_error(config, {"network.alpha_us", "unknown key"});
  }
  SECTION("unknown key inside a level") {
    config["network"] = json::parse(R"({"intra": {"alpha_us": 1, "beta_s_per_byte": 1e-11, "bw": 3},
                                        "inter": {"alpha_us": 1, "beta_s_per_byte": 1e-11}})");
    require_config_error(config, {"network.intra.bw", "unknown key"});
  }
  SECTION("curves given with a non-measured collective") {
    config["curves"] = {"c.json"};
    require_config_error(config, {"curves", "measured", "ring"});
  }
  SECTION("measured collective without curves") {
    config.erase("network");
    config["collective"] = "measured";
    require_config_error(config, {"curves", "missing"});
  }
  SECTION("measured collective with an empty curve list") {
    config.erase("network");
    config["collective"] = "measured";
    config["curves"] = json::array();
    require_config_error(config, {"curves", "non-empty array"});
  }
  SECTION("measured collective with a network") {
    config["collective"] = "measured";
    config["curves"] = {"c.json"};
    require_config_error(config, {"network", "measured"});
  }
}

TEST_CASE("config loader rejects a curve file that does not exist or is wrong", "[loaders][config][curve]") {
  TempDir dir;
  json config = valid_config();
  config.erase("network");
  config["collective"] = "measured";
  SECTION("missing curve file: the message names that file") {
    config["curves"] = {"no-such-curve.json"};
    const fs::path file = dir.write("run.json", config);
    const std::string message = load_message<mgsim::CurveError>([&] { load_run_config(file); });
    CHECK_THAT(message, Catch::Contains((dir.path() / "no-such-curve.json").string()));
  }
  SECTION("a bad curve file is a CurveError naming the curve file and key") {
    json curve = valid_curve();
    curve["points"][1]["seconds"] = -1;
    const fs::path curve_file = dir.write("c.json", curve);
    config["curves"] = {"c.json"};
    const fs::path file = dir.write("run.json", config);
    require_error<mgsim::CurveError>([&] { load_run_config(file); },
                                     {curve_file.string(), "points[1].seconds"});
  }
}

}  // namespace

// ---- sparse schedule options ---------------------------------------------------------------------------

json selection_curve_file() {
  return json::parse(R"({"format": "mgsim-selection-curve", "version": 1, "provenance": {"kind": "synthetic"},
                         "points": [{"elements": 1000, "seconds": 1e-4}, {"elements": 100, "seconds": 2e-5}]})");
}

TEST_CASE("config loader reads per-layer densities and a selection curve for sparse schedules", "[loaders][config]") {
  TempDir dir;
  dir.write("topk.json", selection_curve_file());
  json config = valid_config();
  config["schedules"] = json::parse(
      R"([{"name": "lags", "density": 0.01, "layer_density": {"conv1": 0.5}, "selection_curve": "topk.json"}])");
  const mgsim::Scenario loaded = load_run_config(dir.write("run.json", config));
  REQUIRE(loaded.schedules.size() == 1);
  const mgsim::ScheduleSpec& spec = loaded.schedules[0];
  CHECK(spec.sparse.layer_density.at("conv1") == 0.5);
  REQUIRE(spec.sparse.selection_curve.size() == 2);
  CHECK(spec.sparse.selection_curve[1].elements == 100);
  CHECK(spec.sparse.selection_curve[1].seconds == 2e-5);
  CHECK(spec.label() == R"(lags(density=0.01,"conv1"=0.5,selection_curve=topk.json))");
  // Two curves of one name in two folders are two schedules, each labelled
  // by its path as given (the file name alone once refused them as one).
  json other = selection_curve_file();
  other["points"][0]["seconds"] = 3e-4;
  dir.write("a/sel.json", selection_curve_file());
  dir.write("b/sel.json", other);
  config["schedules"] = json::parse(
      R"([{"name": "topk", "selection_curve": "a/sel.json"},
                 {"name": "topk", "selection_curve": "b/sel.json"}])");
  const mgsim::Scenario two = load_run_config(dir.write("run.json", config));
  REQUIRE(two.schedules.size() == 2);
  CHECK(two.schedules[0].label() == "topk(selection_curve=a/sel.json)");
  CHECK(two.schedules[1].label() == "topk(selection_curve=b/sel.json)");
  CHECK(two.schedules[1].sparse.selection_curve[0].seconds == 3e-4);
}

TEST_CASE("config loader rejects bad sparse options", "[loaders][config]") {
  TempDir dir;
  dir.write("topk.json", selection_curve_file());
  const auto reject = [&](const char* schedules, std::initializer_list<std::string> fragments) {
    json config = valid_config();
    config["schedules"] = json::parse(schedules);
    const fs::path file = dir.write("run.json", config);
    require_error<mgsim::ConfigError>([&] { load_run_config(file); }, fragments);
  };
  reject(R"([{"name": "wfbp", "layer_density": {"conv1": 0.5}}])", {"schedules[0]", "sparse schedules only"});
  reject(R"([{"name": "lags", "layer_density": {"conv1": 0}}])", {"schedules[0].layer_density.conv1", "> 0"});
  reject(R"([{"name": "lags", "layer_density": {"conv1": 1.5}}])", {"schedules[0]", "(0, 1]"});
  reject(R"([{"name": "lags", "layer_density": []}])", {"schedules[0].layer_density", "object"});
  json config = valid_config();
  config["schedules"] = json::parse(R"([{"name": "lags", "selection_curve": "missing.json"}])");
  const fs::path file = dir.write("run.json", config);
  require_error<mgsim::CurveError>([&] { load_run_config(file); }, {"missing.json", "cannot read"});
  json duplicate = selection_curve_file();
  duplicate["points"][1]["elements"] = 1000;
  const fs::path curve = dir.write("dup.json", duplicate);
  require_error<mgsim::CurveError>([&] { mgsim::load_selection_curve(curve); }, {"dup.json", "points[1]", "duplicate"});
}

TEST_CASE("config loader reads variability and iterations", "[loaders][config][variability]") {
  TempDir dir;
  dir.write("t.json", valid_trace());
  json config = valid_config();
  config["gpus"] = {4, 8};
  config["iterations"] = 250;
  config["variability"] = json::parse(R"({"law": "bernoulli", "probability": 0.25, "per": "layer", "seed": 7,
                                          "stragglers": {"ranks": [3, 0], "speed": 0.5}})");
  const mgsim::Scenario loaded = load_run_config(dir.write("c.json", config));
  CHECK(loaded.iterations == 250);
  const mgsim::Variability& v = loaded.variability;
  CHECK(v.law == "bernoulli");
  CHECK(v.params == mgsim::ParamValues{{"probability", 0.25}});  // slowdown keeps its default
  CHECK(v.per == mgsim::DelayUnit::layer);
  CHECK(v.seed == 7);
  CHECK(v.stragglers.ranks == std::vector<int>{3, 0});
  CHECK(v.stragglers.speed == 0.5);

  const mgsim::Scenario plain = load_run_config(dir.write("p.json", valid_config()));
  CHECK(plain.variability.none());
  CHECK(plain.iterations == 100);  // the documented default
}

TEST_CASE("config loader rejects bad variability with the file and the key", "[loaders][config][variability]") {
  json config = valid_config();
  config["variability"] = json::parse(R"({"law": "exponential", "mean_s": 0.01})");
  SECTION("unknown law lists the laws") {
    config["variability"]["law"] = "gamma";
    require_config_error(config, {"variability.law", "gamma", "exponential", "pareto", "bernoulli"});
  }
  SECTION("negative scale") {
    config["variability"]["mean_s"] = -0.01;
    require_config_error(config, {"variability.mean_s", ">= 0", "-0.01"});
  }
  SECTION("probability above 1") {
    config["variability"] = json::parse(R"({"law": "bernoulli", "probability": 1.5})");
    require_config_error(config, {"variability.probability", "<= 1", "1.5"});
  }
  SECTION("a parameter of another law") {
    config["variability"]["sigma"] = 0.5;
    require_config_error(config, {"variability.sigma", "unknown key", "mean_s"});
  }
  SECTION("unknown unit") {
    config["variability"]["per"] = "batch";
    require_config_error(config, {"variability.per", "\"iteration\" or \"layer\""});
  }
  SECTION("empty straggler ranks") {
    config["variability"]["stragglers"] = json::parse(R"({"ranks": [], "speed": 0.5})");
    require_config_error(config, {"variability.stragglers.ranks", "non-empty array"});
  }
  SECTION("a straggler rank beyond the smallest GPU count") {
    config["variability"]["stragglers"] = json::parse(R"({"ranks": [4], "speed": 0.5})");
    require_config_error(config, {"variability.stragglers.ranks[0]", "not below the smallest GPU count, 4"});
  }
  SECTION("iterations 0") {
    config["iterations"] = 0;
    require_config_error(config, {"iterations", "got 0"});
  }
  SECTION("speed classes stay a top-level key: an empty list is refused") {
    config["speed_classes"] = json::array();
    require_config_error(config, {"speed_classes", "non-empty array"});
  }
}
