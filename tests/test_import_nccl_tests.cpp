// `mgsim import nccl-tests`: all_reduce_perf output in the newer column set
// (root, #wrong) and the older one (no root, error), both column groups,
// launcher tags, multi-collective logs, the rank count, and malformed
// outputs. The `-8gpu-new` and `-2gpu-old` samples are synthetic; the others
// are real runs (tests/data/README.md). Expected numbers are read off the
// files by eye; bus bandwidths are checked against the log's own busbw column.

#include <catch2/catch.hpp>

#include "test_data.hpp"
#include <fstream>
#include <sstream>

#include "mgsim/error.hpp"
#include "mgsim/profile/import_files.hpp"

namespace {

using namespace mgsim;
using namespace mgsim::profile;

using mgsim::test::kTestData;

ImportedCurve parse_nccl_tests(const std::string& text, NcclTestsOptions options = {}) {
  std::istringstream in(text);
  return import_nccl_tests(in, "sample.txt", options);
}

const char* kHeader =
    "#  Rank  0 Group  0 Pid 1 on h device  0 [0x01] GPU A\n"
    "#  Rank  1 Group  0 Pid 2 on h device  1 [0x02] GPU A\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
    "#wrong\n";

TEST_CASE("import: nccl-tests newer columns, out-of-place and in-place", "[import]") {
  const ImportedCurve curve = import_nccl_tests_file(kTestData + "nccl-tests-allreduce-8gpu-new.txt", {});
  // 25 sizes, 8 B .. 128 MiB, 8 ranks (eight "# Rank" lines).
  REQUIRE(curve.points.size() == 25);
  CHECK(curve.points.front().gpus == 8);
  CHECK(curve.points.front().bytes == 8);
  CHECK(curve.points.front().seconds == Approx(10.50e-6));  // row 8: time 10.50 us
  CHECK(curve.points.back().bytes == 134217728);
  CHECK(curve.points.back().seconds == Approx(1129.0e-6));
  CHECK(curve.provenance["columns"] == "out-of-place");
  CHECK(curve.provenance["hardware"][0] == "Example GPU 80GB");
  CHECK(curve.provenance["hosts"] == 1);

  NcclTestsOptions in_place;
  in_place.columns = NcclTestsColumns::in_place;
  const ImportedCurve ip = import_nccl_tests_file(kTestData + "nccl-tests-allreduce-8gpu-new.txt", in_place);
  CHECK(ip.points.front().seconds == Approx(10.25e-6));
  CHECK(ip.points.back().seconds == Approx(1084.0e-6));
}

TEST_CASE("import: nccl-tests older columns, log lines in between, ranks on two hosts", "[import]") {
  const ImportedCurve curve = import_nccl_tests_file(kTestData + "nccl-tests-allreduce-2gpu-old.txt", {});
  // 23 sizes, 8 B .. 32 MiB; two "# Rank" lines (hostA, hostB).
  REQUIRE(curve.points.size() == 23);
  CHECK(curve.points.front().gpus == 2);
  CHECK(curve.points.front().seconds == Approx(48.01e-6));
  CHECK(curve.points.back().bytes == 33554432);
  CHECK(curve.points.back().seconds == Approx(30552e-6));
  CHECK(curve.provenance["hosts"] == 2);
  NcclTestsOptions in_place;
  in_place.columns = NcclTestsColumns::in_place;
  CHECK(import_nccl_tests_file(kTestData + "nccl-tests-allreduce-2gpu-old.txt", in_place).points.front().seconds ==
        Approx(47.51e-6));
}

TEST_CASE("import: nccl-tests rows without checks, --gpus, type and redop filters", "[import]") {
  const std::string rows = std::string(kHeader) +
                           "  8  2  float  sum  -1  12.00  0.00  0.00  N/A  11.00  0.00  0.00  N/A\n"
                           "  8  2  float  max  -1  13.00  0.00  0.00  N/A  12.00  0.00  0.00  N/A\n"
                           "  8  4  half   sum  -1  14.00  0.00  0.00  N/A  13.00  0.00  0.00  N/A\n";
  CHECK_THROWS_WITH(parse_nccl_tests(rows), Catch::Contains("sample.txt: line 5: size 8 already given on line 4"));
  NcclTestsOptions filter;
  filter.data_type = "float";
  filter.reduction = "max";
  const ImportedCurve curve = parse_nccl_tests(rows, filter);
  REQUIRE(curve.points.size() == 1);
  CHECK(curve.points[0].seconds == Approx(13e-6));
  filter.gpus = 16;  // --gpus wins over the device list
  CHECK(parse_nccl_tests(rows, filter).points[0].gpus == 16);
}

/// busbw in GB/s, as nccl-tests prints it, of one imported point.
double busbw_gbs(CurveCollective collective, const CurveSample& p) {
  return bus_bandwidth(collective, static_cast<double>(p.bytes), p.seconds, p.gpus) / 1e9;
}

TEST_CASE("import: a real 16-rank H100 log, rank count from the device list, busbw as in the log", "[import]") {
  const ImportedCurve curve = import_nccl_tests_file(kTestData + "nccl-tests-allreduce-16gpu-h100-a3mega.txt", {});
  // 8 B .. 8 GiB doubling: 31 sizes; 16 "# Rank" lines on 2 hosts.
  REQUIRE(curve.points.size() == 31);
  CHECK(curve.collective == CurveCollective::allreduce);
  CHECK(curve.points.front().gpus == 16);
  CHECK(curve.points.front().seconds == Approx(135.8e-6));
  CHECK(curve.provenance["hosts"] == 2);
  CHECK(curve.provenance["ranks_from"] == "the '# Rank' lines of the device list");
  // Rows "1073741824 ... 6759.0 158.86 297.86" and "8589934592 ... 47535 180.71 338.82":
  // busbw = M / t x 2(16-1)/16, to the log's two decimals.
  CHECK(busbw_gbs(curve.collective, curve.points[27]) == Approx(297.86).epsilon(5e-4));
  CHECK(busbw_gbs(curve.collective, curve.points.back()) == Approx(338.82).epsilon(5e-4));
}

TEST_CASE("import: a cut log whose device list keeps one rank of 128 says no host count", "[import]") {
  // The GB200 log keeps only "# Rank 127 ... on instance..." (its head was cut): one host seen of 128 ranks,
  // which read as 1 host made `fit` suggest 128 GPUs a node (red team). The ranks come from --gpus.
  NcclTestsOptions options;
  options.gpus = 128;
  const ImportedCurve curve = import_nccl_tests_file(kTestData + "nccl-tests-allreduce-128gpu-gb200-2racks.txt", options);
  CHECK(curve.points.front().gpus == 128);
  CHECK_FALSE(curve.provenance.contains("hosts"));
  CHECK(curve.provenance["ranks_from"] == "--gpus");
}

TEST_CASE("import: Open MPI's warnings inside the device list are skipped", "[import]") {
  const ImportedCurve curve = import_nccl_tests_file(kTestData + "nccl-tests-allreduce-16gpu-h100-hgx-mpirun-noise.txt", {});
  // 8 B .. 16 GiB: 32 sizes; 16 ranks on bm-h100-01 and -02.
  REQUIRE(curve.points.size() == 32);
  CHECK(curve.points.front().gpus == 16);
  CHECK(curve.provenance["hosts"] == 2);
  CHECK(curve.points[5].seconds == Approx(94.40e-6));  // the 256 B outlier
  // "17179869184 ... 68652 250.24 469.21".
  CHECK(busbw_gbs(curve.collective, curve.points.back()) == Approx(469.21).epsilon(5e-4));
}

TEST_CASE("import: mpirun --tag-output lines, older columns, ranks from NCCL's nranks", "[import]") {
  const ImportedCurve curve = import_nccl_tests_file(kTestData + "nccl-tests-allreduce-16gpu-p4d-mpirun-tagged.txt", {});
  // Every line "[1,R]<stdout>:"; rows 8 B .. 1 GiB (28); "nranks 16" in the Init COMPLETE lines.
  REQUIRE(curve.points.size() == 28);
  CHECK(curve.points.front().gpus == 16);
  CHECK(curve.provenance["ranks_from"].get<std::string>().find("nranks") != std::string::npos);
  CHECK(curve.points[6].bytes == 512);
  CHECK(curve.points[6].seconds == Approx(374.7e-6));
  CHECK(curve.provenance["hardware"][0] == "A100-SXM4-40GB");
  // "1073741824 268435456 float sum 61556 17.44 32.71": busbw 32.71 GB/s.
  CHECK(busbw_gbs(curve.collective, curve.points.back()) == Approx(32.71).epsilon(5e-4));
}

TEST_CASE("import: srun -l prefixed lines and a single-process run ranked by its header", "[import]") {
  const ImportedCurve curve = import_nccl_tests_file(kTestData + "nccl-tests-allreduce-16gpu-h100-srun-prefixed.txt", {});
  // " 0: " before every line; 8 MiB .. 8 GiB (11 sizes); #wrong is N/A.
  REQUIRE(curve.points.size() == 11);
  CHECK(curve.points.front().gpus == 16);
  CHECK(curve.points.front().seconds == Approx(215.3e-6));
  CHECK(busbw_gbs(curve.collective, curve.points.front()) == Approx(73.04).epsilon(1e-3));
  CHECK(busbw_gbs(curve.collective, curve.points.back()) == Approx(155.57).epsilon(5e-4));

  const ImportedCurve node = import_nccl_tests_file(kTestData + "nccl-tests-allreduce-8gpu-h100-nvls.txt", {});
  REQUIRE(node.points.size() == 6);
  CHECK(node.points.front().gpus == 8);
  // "4294967296 ... 15870 270.63 473.60": x 2(8-1)/8.
  CHECK(busbw_gbs(node.collective, node.points.back()) == Approx(473.60).epsilon(5e-4));
  // Without its device list the count comes from "# nThread 1 nGpus 8" (one process).
  std::ifstream file(kTestData + "nccl-tests-allreduce-8gpu-h100-nvls.txt");
  std::string text, line;
  while (std::getline(file, line)) {
    if (line.find("#  Rank") == std::string::npos) text += line + "\n";
  }
  const ImportedCurve headed = parse_nccl_tests(text);
  CHECK(headed.points.front().gpus == 8);
  CHECK(headed.provenance["ranks_from"] == "the header's nThread x nGpus (one process)");
}

TEST_CASE("import: a log of several collectives imports the one asked for, as its own curve kind", "[import]") {
  const std::string log = kTestData + "nccl-tests-2gpu-rtx5090-allgather-reducescatter.txt";
  CHECK_THROWS_WITH(import_nccl_tests_file(log, {}),
                    Catch::Contains("no all_reduce_perf section (the log holds all_gather_perf_mpi, "
                                    "reduce_scatter_perf_mpi): choose one with --collective"));
  NcclTestsOptions gather;
  gather.collective = CurveCollective::allgather;
  const ImportedCurve ag = import_nccl_tests_file(log, gather);
  REQUIRE(ag.points.size() == 8);
  CHECK(ag.collective == CurveCollective::allgather);
  CHECK(ag.points.front().gpus == 2);
  // size 1048576 is what both ranks gather: 524288 bytes from each.
  CHECK(ag.points.front().bytes == 524288);
  CHECK(ag.points.front().seconds == Approx(2197.40e-6));
  // "67108864 ... 13425.9 5.00 2.50": busbw = P x bytes / t x (P-1)/P.
  CHECK(busbw_gbs(ag.collective, ag.points[6]) == Approx(2.50).epsilon(2e-3));

  NcclTestsOptions scatter;
  scatter.collective = CurveCollective::reducescatter;
  const ImportedCurve rs = import_nccl_tests_file(log, scatter);
  REQUIRE(rs.points.size() == 8);
  CHECK(rs.points.front().bytes == 1048576);
  CHECK(rs.points.front().seconds == Approx(2678.52e-6));
  CHECK(busbw_gbs(rs.collective, rs.points.back()) == Approx(2.73).epsilon(2e-3));
  CHECK(rs.provenance["tool"] == "nccl-tests reduce_scatter_perf_mpi");

  // The rows say which collective and how many ranks they are: no other label fits.
  gather.gpus = 4;
  CHECK_THROWS_WITH(import_nccl_tests_file(log, gather),
                    Catch::Contains("count 131072 of float is 524288 bytes x 4 ranks, not the size 1048576"));
  NcclTestsOptions wrong;
  wrong.collective = CurveCollective::allgather;
  CHECK_THROWS_WITH(import_nccl_tests_file(kTestData + "nccl-tests-allreduce-16gpu-h100-a3mega.txt", wrong),
                    Catch::Contains("these are not all_gather_perf rows of 16 ranks"));
  NcclTestsOptions eight;
  eight.gpus = 8;
  CHECK_THROWS_WITH(import_nccl_tests_file(kTestData + "nccl-tests-allreduce-16gpu-h100-a3mega.txt", eight),
                    // Row 32768: busbw 0.40 / algbw 0.21 = 1.905, at least 0.395 / 0.215 = 1.837 as
                    // printed, past 2(8-1)/8 = 1.750 (and 2% over it).
                    Catch::Contains("line 44: busbw / algbw is 1.905, but all_reduce_perf over 8 ranks gives 1.750"));
}

TEST_CASE("import: malformed nccl-tests outputs are refused with file and line", "[import]") {
  const std::string row = "  8  2  float  sum  -1  12.00  0.00  0.00  0  11.00  0.00  0.00  0\n";
  CHECK_THROWS_WITH(parse_nccl_tests("# nothing here\n"), Catch::Contains("sample.txt: no column header"));
  CHECK_THROWS_WITH(parse_nccl_tests(row), Catch::Contains("sample.txt: line 1: a result row before the column header"));
  CHECK_THROWS_WITH(parse_nccl_tests(std::string(kHeader) + "  8  2  float  sum  -1  12.00  0.00\n"),
                    Catch::Contains("line 4: expected 13 columns as in the header (line 3), got 7"));
  CHECK_THROWS_WITH(parse_nccl_tests(std::string(kHeader) + "  8  2  float  sum  -1  12.00  0.00  0.00  3  11.0  0  0  0\n"),
                    Catch::Contains("line 4: nccl-tests counted 3 wrong results"));
  CHECK_THROWS_WITH(parse_nccl_tests(std::string(kHeader) + "  8  2  float  sum  -1  fast  0.00  0.00  0  11.0  0  0  0\n"),
                    Catch::Contains("line 4: expected a time in [0.001, 3.6e+09] us, got \"fast\""));
  CHECK_THROWS_WITH(parse_nccl_tests(std::string(kHeader)), Catch::Contains("no result rows"));
  // Without the device list the rank count is unknown.
  const std::string header_only = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n";
  CHECK_THROWS_WITH(parse_nccl_tests(header_only + row), Catch::Contains("give --gpus"));
  CHECK_THROWS_WITH(parse_nccl_tests("#  Rank  0 Group 0 Pid 1 on h device 0 [0x01] G\n" + header_only + row),
                    Catch::Contains("1 rank (from the '# Rank' lines of the device list): a collective curve needs "
                                    "at least 2"));
  CHECK_THROWS_WITH(parse_nccl_tests(std::string(kHeader) + "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2\n" +
                          "h:1:1 [0] NCCL INFO comm 0x1 rank 1 nranks 3\n"),
                    Catch::Contains("line 5: nranks 3 after nranks 2"));
  CHECK_THROWS_AS(import_nccl_tests_file(kTestData + "no-such-file.txt", {}), CurveError);
}

}  // namespace
