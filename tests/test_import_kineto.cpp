// `mgsim import kineto`: a PyTorch profiler Chrome trace -> per-layer backward
// times. tests/data/kineto-two-linear-steps.json is hand-built in Kineto's
// documented event format (tests/data/README.md): two ProfilerSteps of
// Sequential(Linear(8,16), ReLU, Linear(16,4)), times in us, GPU stream 7,
// the autograd thread 200, and an all-reduce on thread 300 / stream 13.

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>

#include "mgsim/error.hpp"
#include "mgsim/profile/import_files.hpp"

namespace {

using namespace mgsim;
using namespace mgsim::profile;

const std::string kSample = std::string(MGSIM_SOURCE_DIR) + "/tests/data/kineto-two-linear-steps.json";

nlohmann::json sample() {
  std::ifstream in(kSample);
  return nlohmann::json::parse(in);
}

ImportedTrace import(const nlohmann::json& document, int skip = 0) {
  return import_kineto(document, "trace.json", {"two-linear", 64, skip});
}

TEST_CASE("import: kineto per-layer times from AccumulateGrad, kernels and modules", "[import]") {
  const ImportedTrace imported = import_kineto_file(kSample, {"two-linear", 64, 0});
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
  CHECK(imported.provenance["statistics"]["iterations"] == 2);
  CHECK(imported.provenance["statistics"]["backward_spread_s"].get<double>() == Approx(4e-6));
  CHECK(imported.provenance["hardware"][0] == "Example GPU");
  CHECK(imported.warnings.empty());
}

TEST_CASE("import: kineto warm-up steps can be skipped", "[import]") {
  const ImportedTrace imported = import(sample(), 1);
  // Step 2 only: Linear_0 ends at 112 us, so it runs 112 - 60 = 52 us.
  CHECK(imported.trace.layers[0].backward_time_s == Approx(52e-6));
  CHECK(imported.provenance["statistics"]["iterations"] == 1);
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
  const Trace streamed = import_kineto_file(kSample, {"two-linear", 64, 0}).trace;
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

TEST_CASE("import: malformed kineto traces are refused", "[import]") {
  CHECK_THROWS_WITH(import(nlohmann::json{{"events", 1}}), Catch::Contains("expected a Chrome trace"));
  CHECK_THROWS_WITH(import(nlohmann::json{{"traceEvents", nlohmann::json::array({1})}}),
                    Catch::Contains("traceEvents[0]: expected an object"));
  CHECK_THROWS_WITH(import(nlohmann::json{{"traceEvents", {{{"ph", "X"}, {"name", "x"}, {"dur", 1}}}}}),
                    Catch::Contains("traceEvents[0]: expected a number \"ts\""));
  nlohmann::json no_shapes = sample();
  for (auto& e : no_shapes["traceEvents"]) {
    if (e.contains("args")) e["args"].erase("Input Dims");
  }
  CHECK_THROWS_WITH(import(no_shapes), Catch::Contains("record_shapes=True"));
  nlohmann::json forward_only = sample();
  auto& events = forward_only["traceEvents"];
  events.erase(std::remove_if(events.begin(), events.end(),
                              [](const nlohmann::json& e) {
                                return e.value("name", "").starts_with("autograd::engine::evaluate_function");
                              }),
               events.end());
  CHECK_THROWS_WITH(import(forward_only), Catch::Contains("no AccumulateGrad"));
  CHECK_THROWS_WITH(import_kineto(sample(), "trace.json", {"m", 0, 0}), Catch::Contains("batch size"));
}

}  // namespace
