// Chakra execution traces (docs/chakra.md): the framing against real ET files
// of public repositories, the node structure of an export worked by hand, the
// exact round trip export -> import on the shipped trace and random traces for
// every schedule, and the generic import of a hand-built PyTorch-like ET.

#include <algorithm>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "et_stream.hpp"
#include "mgsim/chakra/chakra.hpp"
#include "mgsim/error.hpp"
#include "mgsim/io/scenario.hpp"
#include "mgsim/io/trace_io.hpp"
#include "test_data.hpp"
#include "test_support.hpp"

namespace {

using namespace mgsim;
using chakra::decode_et;
using chakra::encode_et;

const std::string kChakraData = mgsim::test::kTestData + "chakra/";

std::string bytes_of(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const ChakraProtoMsg::AttributeProto& attr(const ChakraProtoMsg::Node& node, const std::string& name) {
  for (const auto& a : node.attr()) {
    if (a.name() == name) return a;
  }
  FAIL("no attribute " << name);
  throw;
}

void require_same_trace(const Trace& got, const Trace& want) {
  REQUIRE(got.model == want.model);
  REQUIRE(got.batch_size == want.batch_size);
  REQUIRE(got.forward_time_s == want.forward_time_s);
  REQUIRE(got.optimizer_bytes_per_s == want.optimizer_bytes_per_s);
  REQUIRE(got.insitu_allreduce.size() == want.insitu_allreduce.size());
  for (std::size_t i = 0; i < want.insitu_allreduce.size(); ++i) {
    REQUIRE(got.insitu_allreduce[i].gpus == want.insitu_allreduce[i].gpus);
    REQUIRE(got.insitu_allreduce[i].bytes == want.insitu_allreduce[i].bytes);
    REQUIRE(got.insitu_allreduce[i].seconds == want.insitu_allreduce[i].seconds);
  }
  REQUIRE(got.layers.size() == want.layers.size());
  for (std::size_t l = 0; l < want.layers.size(); ++l) {
    REQUIRE(got.layers[l].name == want.layers[l].name);
    REQUIRE(got.layers[l].params == want.layers[l].params);
    REQUIRE(got.layers[l].dtype_bytes == want.layers[l].dtype_bytes);
    REQUIRE(got.layers[l].backward_time_s == want.layers[l].backward_time_s);
    REQUIRE(got.layers[l].grad_ready_s == want.layers[l].grad_ready_s);
    REQUIRE(got.layers[l].forward_time_s == want.layers[l].forward_time_s);
  }
}

void require_same_plan(const Plan& got, const Plan& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t m = 0; m < want.size(); ++m) {
    CHECK(got[m].begin == want[m].begin);
    CHECK(got[m].end == want[m].end);
    CHECK(got[m].bytes == want[m].bytes);
    CHECK(got[m].sent_bytes == want[m].sent_bytes);
    CHECK(got[m].duration == want[m].duration);
    CHECK(got[m].not_before == want[m].not_before);
    CHECK(got[m].selection == want[m].selection);
    CHECK(got[m].kind == want[m].kind);
  }
}

/// Every schedule of the registry with its defaults plans `trace`; each plan
/// exported and imported gives back the trace and the plan.
void round_trip_every_schedule(const Trace& trace, const Collective& collective, int gpus) {
  const test::Setup setup(trace, collective, gpus);
  for (const ScheduleInfo& info : schedule_registry()) {
    if (info.sharded) {  // export refuses their plans
      CHECK_THROWS_AS(chakra::export_rank(setup.workload, make_schedule(info.name, {})->plan(setup.problem), {}),
                      ConfigError);
      continue;
    }
    for (MessageUnit unit : {MessageUnit::tensor, MessageUnit::layer}) {
      INFO("schedule " << info.name);
      const Plan plan = make_schedule(info.name, {}, {}, unit)->plan(setup.problem);
      const std::string bytes = chakra::export_rank(setup.workload, plan, {"test", R"({"kind":"synthetic"})"});
      const chakra::Imported back = chakra::import_et(bytes, "export");
      REQUIRE(back.from_mgsim);
      REQUIRE(back.warnings.empty());
      REQUIRE(back.provenance == R"({"kind":"synthetic"})");
      require_same_trace(back.trace, trace);
      require_same_plan(back.messages, plan);
    }
  }
}

/// A node of `et`: its id, name, type, duration and data dependencies.
ChakraProtoMsg::Node& add_node(chakra::EtFile& et, std::uint64_t id, const char* name, ChakraProtoMsg::NodeType type,
                               std::uint64_t us, const std::vector<std::uint64_t>& deps) {
  ChakraProtoMsg::Node& node = et.nodes.emplace_back();
  node.set_id(id);
  node.set_name(name);
  node.set_type(type);
  node.set_duration_micros(us);
  for (auto d : deps) node.add_data_deps(d);
  return node;
}

/// A collective of `et` of 7 us: its comm_type and comm_size.
void add_collective(chakra::EtFile& et, std::uint64_t id, std::int64_t type, std::int64_t size,
                    const std::vector<std::uint64_t>& deps) {
  ChakraProtoMsg::Node& node = add_node(et, id, "nccl", ChakraProtoMsg::COMM_COLL_NODE, 7, deps);
  for (const auto& [name, value] : {std::pair{"comm_type", type}, std::pair{"comm_size", size}}) {
    auto* attr = node.add_attr();
    attr->set_name(name);
    attr->set_int64_val(value);
  }
}

}  // namespace

TEST_CASE("Real ASTRA-sim ET files decode to the fields of their bytes and re-encode to the same bytes") {
  // astra-sim examples/workload/microbenchmarks/all_reduce/4npus_1MB/all_reduce.1.et, read by hand from
  // its 83 bytes: 07 | 0a 05 "0.0.4" (metadata), 4a | 08 01 (id 1) 12 14 "all_reduce_4npus_1MB"
  // 18 07 (COMM_COLL_NODE) and three attributes: is_cpu_op bool false, comm_type int64 0,
  // comm_size int64 80 80 40 = 0x40 << 14 = 1048576.
  for (const auto& [file, comm_type] : {std::pair{"astra-sim-all_reduce-4npus-1MB.1.et", 0},
                                        std::pair{"astra-sim-all_gather-4npus-1MB.1.et", 2}}) {
    const std::string bytes = bytes_of(kChakraData + file);
    const chakra::EtFile et = decode_et(bytes, file);
    REQUIRE(et.metadata.version() == "0.0.4");
    REQUIRE(et.nodes.size() == 1);
    const ChakraProtoMsg::Node& node = et.nodes[0];
    CHECK(node.id() == 1);
    CHECK(node.type() == ChakraProtoMsg::COMM_COLL_NODE);
    CHECK(attr(node, "is_cpu_op").bool_val() == false);
    CHECK(attr(node, "comm_type").int64_val() == comm_type);
    CHECK(attr(node, "comm_size").int64_val() == 1048576);
    CHECK(et.offsets == std::vector<std::size_t>{8});
    REQUIRE(encode_et(et) == bytes);
  }
}

TEST_CASE("A real PyTorch ET converted by Chakra decodes node by node and re-encodes to the same bytes") {
  // The first 7 records of chakra's tests/data feeder trace (tests/data/README.md). Ids, types,
  // durations and record offsets as protoc --decode=ChakraProtoMsg.Node lists them.
  const std::string bytes = bytes_of(kChakraData + "chakra-feeder-pytorch-head.0.et");
  const chakra::EtFile et = decode_et(bytes, "head");
  REQUIRE(et.nodes.size() == 6);
  const std::vector<std::uint64_t> ids{216, 217, 430, 432, 433, 435};
  const std::vector<std::uint64_t> micros{318, 28, 4, 85, 79, 28};
  const std::vector<std::size_t> offsets{95, 6045, 11998, 18144, 18743, 19346};
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(et.nodes[i].id() == ids[i]);
    CHECK(et.nodes[i].duration_micros() == micros[i]);
    CHECK(et.nodes[i].type() == (i < 3 ? ChakraProtoMsg::COMP_NODE : ChakraProtoMsg::COMM_COLL_NODE));
  }
  CHECK(et.offsets == offsets);
  CHECK(et.metadata.attr(0).name() == "schema");
  CHECK(et.metadata.attr(0).string_val() == "1.0.1");
  REQUIRE(encode_et(et) == bytes);
  // Its collectives are broadcasts (node 435, comm_type 5) and two without comm_type: no gradient message.
  REQUIRE_THROWS_WITH(chakra::import_et(bytes, "head"), Catch::Contains("no ALL_REDUCE or ALL_GATHER"));
}

TEST_CASE("An ET of collectives only is refused as a training step") {
  REQUIRE_THROWS_WITH(chakra::import_et(bytes_of(kChakraData + "astra-sim-all_reduce-4npus-1MB.1.et"), "ar"),
                      Catch::Contains("no GPU compute"));
}

TEST_CASE("An export splits a layer's backward where its gradients become ready") {
  // forward 1 ms; layer a (1 tensor, 2 ms); layer b (tensors of 10 and 20 floats, 3 ms, ready at 1 and 3 ms).
  Trace trace = test::make_trace({2e-3, 3e-3}, {5, 0}, 1e-3);
  trace.layers[1].params = {10, 20};
  trace.layers[1].dtype_bytes = 4;
  trace.layers[1].grad_ready_s = {1e-3, 3e-3};
  const test::LinearCost cost(1e-4, 0);
  const test::Setup setup(trace, cost, 2);
  // Backward order: tensor 0 = b's 20 floats (3 ms), 1 = b's 10 floats (1 ms), 2 = a's.
  const Plan plan{make_message(setup.problem, 0, 2), make_message(setup.problem, 2, 3)};
  const chakra::EtFile et = decode_et(chakra::export_rank(setup.workload, plan, {"test", "{}"}), "t");
  REQUIRE(et.nodes.size() == 6);
  const std::vector<std::string> names{"forward", "backward:layer2:0", "backward:layer2:1", "backward:layer1",
                                       "all_reduce:0", "all_reduce:1"};
  const std::vector<std::uint64_t> micros{1000, 1000, 2000, 2000, 100, 100};
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(et.nodes[i].id() == i);
    CHECK(et.nodes[i].name() == names[i]);
    CHECK(et.nodes[i].duration_micros() == micros[i]);
  }
  CHECK(et.nodes[1].data_deps(0) == 0);
  // Message 0 waits for both spans of b (its tensors are ready after nodes 1 and 2); message 1 for a.
  CHECK(std::vector<std::uint64_t>(et.nodes[4].data_deps().begin(), et.nodes[4].data_deps().end()) ==
        std::vector<std::uint64_t>{1, 2});
  CHECK(et.nodes[4].ctrl_deps_size() == 0);
  CHECK(std::vector<std::uint64_t>(et.nodes[5].data_deps().begin(), et.nodes[5].data_deps().end()) ==
        std::vector<std::uint64_t>{3});
  CHECK(et.nodes[5].ctrl_deps(0) == 4);
  CHECK(attr(et.nodes[4], "comm_size").int64_val() == 120);  // 30 floats
  CHECK(attr(et.nodes[5], "comm_size").int64_val() == 5);
}

TEST_CASE("Export then import gives back the shipped trace and every schedule's plan") {
  const Scenario config = load_scenario(std::string(MGSIM_SOURCE_DIR) + "/configs/googlenet-k80-ring.json");
  const auto ring =
      find_collective("ring").make(config.collective_settings(config.collectives.at(0), config.networks.at(0).network, 1));
  const Trace trace = load_trace(config.traces.front());
  REQUIRE(!trace.insitu_allreduce.empty());  // they come back too
  for (int gpus : {4, 64}) round_trip_every_schedule(trace, *ring, gpus);
}

TEST_CASE("Export then import gives back random traces with ready offsets and every schedule's plan") {
  const Scenario config = load_scenario(std::string(MGSIM_SOURCE_DIR) + "/configs/googlenet-k80-ring.json");
  const auto ring =
      find_collective("ring").make(config.collective_settings(config.collectives.at(0), config.networks.at(0).network, 1));
  std::mt19937_64 rng(29);
  for (int i = 0; i < 20; ++i) {
    Trace trace = test::random_trace(rng, 12, i % 2 == 0);
    if (i % 3 == 0) {  // per-layer forward times (version 2) and an optimizer step come back too
      trace.forward_time_s = 0;
      for (Layer& layer : trace.layers) trace.forward_time_s += layer.forward_time_s = 1e-3 * (1 + layer.params.size());
      trace.optimizer_bytes_per_s = 1e12;
    }
    round_trip_every_schedule(trace, *ring, 8);
  }
}

TEST_CASE("Export then import gives back a plan whose messages wait past an hour into the iteration") {
  // A layer of 3600 s of backward (an hour, the most a step takes) then one of 10 s: Horovod's cycle sends the
  // second layer's gradients after 3610 s, a not_before past an hour, which the import once refused.
  const Scenario config = load_scenario(std::string(MGSIM_SOURCE_DIR) + "/configs/googlenet-k80-ring.json");
  const auto ring =
      find_collective("ring").make(config.collective_settings(config.collectives.at(0), config.networks.at(0).network, 1));
  const Trace trace = test::make_trace({3600.0, 10.0}, {40, 40}, 1.0);
  round_trip_every_schedule(trace, *ring, 2);
}

TEST_CASE("A PyTorch-like ET maps to one layer per gradient collective, the rest reported") {
  chakra::EtFile et;
  const auto add = [&](std::uint64_t id, const char* name, ChakraProtoMsg::NodeType type, std::uint64_t us,
                       const std::vector<std::uint64_t>& deps) -> ChakraProtoMsg::Node& {
    return add_node(et, id, name, type, us, deps);
  };
  const auto coll = [&](std::uint64_t id, std::int64_t type, std::int64_t size, const std::vector<std::uint64_t>& deps) {
    add_collective(et, id, type, size, deps);
  };
  add(10, "aten::conv2d", ChakraProtoMsg::COMP_NODE, 100, {});
  add(11, "autograd::engine::evaluate_function: LinearBackward0", ChakraProtoMsg::COMP_NODE, 300, {10});
  coll(12, ChakraProtoMsg::ALL_REDUCE, 4096, {11});
  add(13, "ConvolutionBackward0", ChakraProtoMsg::COMP_NODE, 200, {11});
  coll(14, ChakraProtoMsg::ALL_REDUCE, 1024, {13, 99});  // 99: not in the file
  add(15, "Optimizer.step", ChakraProtoMsg::COMP_NODE, 50, {13});
  auto* cpu = add(16, "aten::empty", ChakraProtoMsg::COMP_NODE, 999, {}).add_attr();
  cpu->set_name("is_cpu_op");
  cpu->set_bool_val(true);
  add(17, "load", ChakraProtoMsg::MEM_LOAD_NODE, 5, {});
  coll(18, ChakraProtoMsg::BROADCAST, 64, {});
  for (std::size_t i = 0; i < et.nodes.size(); ++i) et.offsets.push_back(i);
  const chakra::Imported got = chakra::import_et(encode_et(et), "pt");
  REQUIRE_FALSE(got.from_mgsim);
  // forward = the 100 us before the first *backward* node; layers in forward order: the
  // conv (200 us, 1024 bytes) then the linear (300 us, 4096 bytes).
  CHECK(got.trace.forward_time_s == Approx(100e-6).epsilon(1e-12));
  REQUIRE(got.trace.layers.size() == 2);
  CHECK(got.trace.layers[0].backward_time_s == Approx(200e-6).epsilon(1e-12));
  CHECK(got.trace.layers[0].params == std::vector<std::int64_t>{1024});
  CHECK(got.trace.layers[1].backward_time_s == Approx(300e-6).epsilon(1e-12));
  CHECK(got.trace.layers[1].params == std::vector<std::int64_t>{4096});
  REQUIRE(got.messages.size() == 2);
  CHECK(got.messages[0].bytes == 4096);
  CHECK(got.messages[1].duration == 7000);
  // CPU op, MEM_LOAD node, BROADCAST, the optimizer's 50 us after the last collective, the dangling dep.
  REQUIRE(got.warnings.size() == 5);
  CHECK_THAT(got.warnings[0], Catch::Contains("1 BROADCAST collectives not mapped"));
  CHECK_THAT(got.warnings[1], Catch::Contains("1 CPU ops"));
  CHECK_THAT(got.warnings[2], Catch::Contains("1 MEM_LOAD_NODE nodes"));
  CHECK_THAT(got.warnings[3], Catch::Contains("1 compute nodes (0.050 ms) after the last gradient collective"));
  CHECK_THAT(got.warnings[4], Catch::Contains("1 dependencies name nodes that are not in the file"));
}

TEST_CASE("A gradient collective without comm_size is refused as missing it, not as 0 bytes") {
  chakra::EtFile et;
  ChakraProtoMsg::Node& backward = et.nodes.emplace_back();
  backward.set_id(1);
  backward.set_name("LinearBackward0");
  backward.set_type(ChakraProtoMsg::COMP_NODE);
  backward.set_duration_micros(10);
  ChakraProtoMsg::Node& reduce = et.nodes.emplace_back();
  reduce.set_id(2);
  reduce.set_name("nccl");
  reduce.set_type(ChakraProtoMsg::COMM_COLL_NODE);
  reduce.add_data_deps(1);
  auto* type = reduce.add_attr();
  type->set_name("comm_type");
  type->set_int64_val(ChakraProtoMsg::ALL_REDUCE);
  et.offsets = {0, 1};
  // Red team: "comm_size 0: expected bytes in [1, ...]" for an attribute the node does not have.
  CHECK_THROWS_WITH(chakra::import_et(encode_et(et), "pt"), Catch::Contains("comm_size: missing"));
}

TEST_CASE("A gradient collective after no backward compute is said, its layer of 0 backward") {
  // Forward 100 us, then LinearBackward0 300 us. The collective of 4096 bytes follows the backward; the one of
  // 1024 follows the forward only (red team: a layer of 0 backward without a word).
  chakra::EtFile et;
  add_node(et, 10, "aten::linear", ChakraProtoMsg::COMP_NODE, 100, {});
  add_collective(et, 11, ChakraProtoMsg::ALL_REDUCE, 1024, {10});
  add_node(et, 12, "LinearBackward0", ChakraProtoMsg::COMP_NODE, 300, {10});
  add_collective(et, 13, ChakraProtoMsg::ALL_REDUCE, 4096, {12});
  for (std::size_t i = 0; i < et.nodes.size(); ++i) et.offsets.push_back(i);
  const chakra::Imported got = chakra::import_et(encode_et(et), "pt");
  REQUIRE(got.trace.layers.size() == 2);
  // Layers in forward order: the 4096-byte one (300 us), then the 1024-byte one (0: nothing before it).
  CHECK(got.trace.layers[0].params == std::vector<std::int64_t>{4096});
  CHECK(got.trace.layers[0].backward_time_s == Approx(300e-6).epsilon(1e-12));
  CHECK(got.trace.layers[1].params == std::vector<std::int64_t>{1024});
  CHECK(got.trace.layers[1].backward_time_s == 0.0);
  REQUIRE(got.warnings.size() == 1);
  CHECK_THAT(got.warnings[0], Catch::Contains("1 gradient collective after no backward compute"));
}

TEST_CASE("A backward that is only a CPU op is said to leave the forward counted as backward") {
  // GPU compute of 150 us, then LinearBackward0 as a CPU op, then the collective: no GPU node names the
  // backward, so the first layer holds the 150 us; the warning says why (red team: it did not).
  chakra::EtFile et;
  add_node(et, 10, "aten::linear", ChakraProtoMsg::COMP_NODE, 150, {});
  auto* cpu = add_node(et, 11, "LinearBackward0", ChakraProtoMsg::COMP_NODE, 300, {10}).add_attr();
  cpu->set_name("is_cpu_op");
  cpu->set_bool_val(true);
  add_collective(et, 12, ChakraProtoMsg::ALL_REDUCE, 4096, {11});
  for (std::size_t i = 0; i < et.nodes.size(); ++i) et.offsets.push_back(i);
  const chakra::Imported got = chakra::import_et(encode_et(et), "pt");
  REQUIRE(got.trace.layers.size() == 1);
  CHECK(got.trace.forward_time_s == 0.0);
  CHECK(got.trace.layers[0].backward_time_s == Approx(150e-6).epsilon(1e-12));
  CHECK(std::any_of(got.warnings.begin(), got.warnings.end(), [](const std::string& w) {
    return w.find("a CPU op is, and CPU ops are not GPU compute") != std::string::npos;
  }));
}

TEST_CASE("A node past an hour is refused naming it, not clamped") {
  // Red team: 2^64 - 1 us read as 2^40 us, then refused by the trace writer as "1099511.627776", naming no node.
  for (const std::uint64_t micros : {std::uint64_t{3'600'000'001}, ~std::uint64_t{0}}) {
    chakra::EtFile et;
    ChakraProtoMsg::Node& backward = et.nodes.emplace_back();
    backward.set_id(1);
    backward.set_name("LinearBackward0");
    backward.set_type(ChakraProtoMsg::COMP_NODE);
    backward.set_duration_micros(micros);
    ChakraProtoMsg::Node& reduce = et.nodes.emplace_back();
    reduce.set_id(2);
    reduce.set_name("nccl");
    reduce.set_type(ChakraProtoMsg::COMM_COLL_NODE);
    reduce.add_data_deps(1);
    for (const auto& [name, value] : {std::pair{"comm_type", std::int64_t{ChakraProtoMsg::ALL_REDUCE}},
                                      std::pair{"comm_size", std::int64_t{4096}}}) {
      auto* attr = reduce.add_attr();
      attr->set_name(name);
      attr->set_int64_val(value);
    }
    et.offsets = {0, 1};
    CHECK_THROWS_WITH(chakra::import_et(encode_et(et), "pt"),
                      Catch::Contains("'LinearBackward0'") &&
                          Catch::Contains(fmt::format("duration_micros {}: expected at most 3.6e+09", micros)));
  }
}

TEST_CASE("An mgsim export whose message is larger than its tensors is refused as damaged") {
  // A layer's element count read back smaller than written (one damaged byte) contradicts the message sizes.
  const test::LinearCost cost(0, 1);
  const test::Setup setup(test::make_trace({0.001, 0.002}, {1000, 3000}), cost, 4);
  Plan plan = make_schedule("wfbp", {})->plan(setup.problem);
  REQUIRE(chakra::import_et(chakra::export_rank(setup.workload, plan, {"test", R"({"kind":"synthetic"})"}), "ok").from_mgsim);
  plan.front().bytes += 1;
  CHECK_THROWS_WITH(chakra::import_et(chakra::export_rank(setup.workload, plan, {"test", R"({"kind":"synthetic"})"}), "x"),
                    Catch::Contains("which hold") && Catch::Contains("a damaged file"));
}

TEST_CASE("Nodes ready together are taken by their start times, whatever their order in the file") {
  // Forward 10 us; XBackward0 20 us; its gradient (1000 B, started at 30 us) and YBackward0 30 us, both after X;
  // Y's gradient (2000 B, at 60 us). By the start times X's gradient goes first and its layer holds X's 20 us,
  // Y's the 30 us after it, in whichever order the file lists the nodes (red team: written in reverse, X's
  // layer held 0 us and Y's 50).
  for (const bool reversed : {false, true}) {
    chakra::EtFile et;
    add_node(et, 1, "fwd", ChakraProtoMsg::COMP_NODE, 10, {}).set_start_time_micros(0);
    add_node(et, 2, "XBackward0", ChakraProtoMsg::COMP_NODE, 20, {1}).set_start_time_micros(10);
    add_collective(et, 3, ChakraProtoMsg::ALL_REDUCE, 1000, {2});
    et.nodes.back().set_start_time_micros(30);
    add_node(et, 4, "YBackward0", ChakraProtoMsg::COMP_NODE, 30, {2}).set_start_time_micros(30);
    add_collective(et, 5, ChakraProtoMsg::ALL_REDUCE, 2000, {4});
    et.nodes.back().set_start_time_micros(60);
    if (reversed) std::reverse(et.nodes.begin(), et.nodes.end());
    for (std::size_t i = 0; i < et.nodes.size(); ++i) et.offsets.push_back(i);
    const chakra::Imported got = chakra::import_et(encode_et(et), "pt");
    REQUIRE(got.trace.layers.size() == 2);  // forward order: Y's layer, then X's
    CHECK(got.trace.layers[0].params == std::vector<std::int64_t>{2000});
    CHECK(got.trace.layers[0].backward_time_s == Approx(30e-6).epsilon(1e-12));
    CHECK(got.trace.layers[1].params == std::vector<std::int64_t>{1000});
    CHECK(got.trace.layers[1].backward_time_s == Approx(20e-6).epsilon(1e-12));
  }
}
