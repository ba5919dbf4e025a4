// The one trace and curve writer (io): what it writes, the loaders read back
// exactly; every producer (profiler, importers, fit, model zoo) uses it.

#include <catch2/catch.hpp>

#include "mgsim/error.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/version.hpp"
#include "test_sweep_support.hpp"

using namespace mgsim;
using namespace mgsim::test;

TEST_CASE("a written trace loads back exactly, grad_ready_s included", "[trace_io]") {
  // Times that have no short decimal form (1/3, 0.1 + 0.2) must survive the text.
  Trace trace;
  trace.model = "round-trip";
  trace.batch_size = 32;
  trace.forward_time_s = 1.0 / 3.0;
  trace.layers = {{"conv1", {864, 32}, 4, 0.1 + 0.2, {0.1, 0.1 + 0.2}},
                  {"conv2", {18432}, 2, 2e-3 / 7.0, {}},
                  {"fc", {40960, 10, 7}, 4, 1.5e-3, {1e-3 / 3.0, 1.2e-3, 1.5e-3}}};
  SweepTempDir dir;
  const auto file = dir.write("t.json", format_trace_json(trace, {{"kind", "synthetic"}, {"note", "test"}}));
  const Trace loaded = load_trace(file);
  CHECK(loaded.model == trace.model);
  CHECK(loaded.batch_size == trace.batch_size);
  CHECK(loaded.forward_time_s == trace.forward_time_s);
  REQUIRE(loaded.layers.size() == trace.layers.size());
  for (std::size_t l = 0; l < trace.layers.size(); ++l) {
    CHECK(loaded.layers[l].name == trace.layers[l].name);
    CHECK(loaded.layers[l].params == trace.layers[l].params);
    CHECK(loaded.layers[l].dtype_bytes == trace.layers[l].dtype_bytes);
    CHECK(loaded.layers[l].backward_time_s == trace.layers[l].backward_time_s);
    CHECK(loaded.layers[l].grad_ready_s == trace.layers[l].grad_ready_s);
  }
}

TEST_CASE("a written curve loads back exactly, sorted by GPU count then size", "[trace_io]") {
  const std::vector<CurveSample> points{{4, 1024, 1e-4 / 3.0, 1e-6}, {2, 4096, 0.1 + 0.2, std::nullopt},
                                        {2, 8, 2e-5, std::nullopt}};
  SweepTempDir dir;
  const auto file = dir.write("c.json", format_curve_json(points, {{"kind", "measured"}}));
  const std::vector<CurvePoint> loaded = load_curve(file);
  REQUIRE(loaded.size() == 3);
  CHECK(loaded[0].gpus == 2);
  CHECK(loaded[0].bytes == 8);
  CHECK(loaded[0].seconds == 2e-5);
  CHECK(loaded[1].bytes == 4096);
  CHECK(loaded[1].seconds == 0.1 + 0.2);
  CHECK(loaded[2].gpus == 4);
  CHECK(loaded[2].seconds == 1e-4 / 3.0);
}

TEST_CASE("the writers refuse a provenance without a kind", "[trace_io]") {
  CHECK_THROWS_AS(format_trace_json(Trace{}, {{"note", "no kind"}}), OutputError);
  CHECK_THROWS_AS(format_curve_json({}, nlohmann::ordered_json::array()), OutputError);
}

TEST_CASE("written traces and curves name the mgsim that wrote them, in their provenance", "[trace_io]") {
  // A provenance copied from an older file gets this writer's version, not the old one.
  const nlohmann::ordered_json provenance = {{"kind", "synthetic"}, {"mgsim_version", "0.0.1-gdeadbee"}};
  Trace trace;
  trace.model = "one";
  trace.batch_size = 1;
  trace.forward_time_s = 1e-3;
  trace.layers = {{"fc", {10}, 4, 1e-3, {}}};
  const auto written_trace = nlohmann::ordered_json::parse(format_trace_json(trace, provenance));
  const auto written_curve = nlohmann::ordered_json::parse(format_curve_json({{2, 8, 2e-5, std::nullopt}}, provenance));
  for (const auto& written : {written_trace, written_curve}) {
    CHECK(written.at("provenance").at("mgsim_version") == std::string(version()));
    CHECK(written.at("provenance").at("kind") == "synthetic");
    CHECK(written.at("version") == 1);
  }
}
