// `mgsim import nccl-tests`: all_reduce_perf output in the newer column set
// (root, #wrong) and the older one (no root, error), both column groups, and
// malformed outputs. The sample files in tests/data are synthetic, written in
// the documented layout (tests/data/README.md); the expected numbers below
// are read off those files by eye.

#include <catch2/catch.hpp>
#include <sstream>

#include "mgsim/error.hpp"
#include "mgsim/profile/import_files.hpp"

namespace {

using namespace mgsim;
using namespace mgsim::profile;

const std::string kData = std::string(MGSIM_SOURCE_DIR) + "/tests/data/";

ImportedCurve parse(const std::string& text, NcclTestsOptions options = {}) {
  std::istringstream in(text);
  return import_nccl_tests(in, "sample.txt", options);
}

const char* kHeader =
    "#  Rank  0 Group  0 Pid 1 on h device  0 [0x01] GPU A\n"
    "#  Rank  1 Group  0 Pid 2 on h device  1 [0x02] GPU A\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
    "#wrong\n";

TEST_CASE("import: nccl-tests newer columns, out-of-place and in-place", "[import]") {
  const ImportedCurve curve = import_nccl_tests_file(kData + "nccl-tests-allreduce-8gpu-new.txt", {});
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
  const ImportedCurve ip = import_nccl_tests_file(kData + "nccl-tests-allreduce-8gpu-new.txt", in_place);
  CHECK(ip.points.front().seconds == Approx(10.25e-6));
  CHECK(ip.points.back().seconds == Approx(1084.0e-6));
}

TEST_CASE("import: nccl-tests older columns, log lines in between, ranks on two hosts", "[import]") {
  const ImportedCurve curve = import_nccl_tests_file(kData + "nccl-tests-allreduce-2gpu-old.txt", {});
  // 23 sizes, 8 B .. 32 MiB; two "# Rank" lines (hostA, hostB).
  REQUIRE(curve.points.size() == 23);
  CHECK(curve.points.front().gpus == 2);
  CHECK(curve.points.front().seconds == Approx(48.01e-6));
  CHECK(curve.points.back().bytes == 33554432);
  CHECK(curve.points.back().seconds == Approx(30552e-6));
  CHECK(curve.provenance["hosts"] == 2);
  NcclTestsOptions in_place;
  in_place.columns = NcclTestsColumns::in_place;
  CHECK(import_nccl_tests_file(kData + "nccl-tests-allreduce-2gpu-old.txt", in_place).points.front().seconds ==
        Approx(47.51e-6));
}

TEST_CASE("import: nccl-tests rows without checks, --gpus, type and redop filters", "[import]") {
  const std::string rows = std::string(kHeader) +
                           "  8  2  float  sum  -1  12.00  0.00  0.00  N/A  11.00  0.00  0.00  N/A\n"
                           "  8  2  float  max  -1  13.00  0.00  0.00  N/A  12.00  0.00  0.00  N/A\n"
                           "  8  4  half   sum  -1  14.00  0.00  0.00  N/A  13.00  0.00  0.00  N/A\n";
  CHECK_THROWS_WITH(parse(rows), Catch::Contains("sample.txt: line 5: size 8 already given on line 4"));
  NcclTestsOptions filter;
  filter.data_type = "float";
  filter.reduction = "max";
  const ImportedCurve curve = parse(rows, filter);
  REQUIRE(curve.points.size() == 1);
  CHECK(curve.points[0].seconds == Approx(13e-6));
  filter.gpus = 16;  // --gpus wins over the device list
  CHECK(parse(rows, filter).points[0].gpus == 16);
}

TEST_CASE("import: malformed nccl-tests outputs are refused with file and line", "[import]") {
  const std::string row = "  8  2  float  sum  -1  12.00  0.00  0.00  0  11.00  0.00  0.00  0\n";
  CHECK_THROWS_WITH(parse("# nothing here\n"), Catch::Contains("sample.txt: no column header"));
  CHECK_THROWS_WITH(parse(row), Catch::Contains("sample.txt: line 1: a result row before the column header"));
  CHECK_THROWS_WITH(parse(std::string(kHeader) + "  8  2  float  sum  -1  12.00  0.00\n"),
                    Catch::Contains("line 4: expected 13 columns as in the header (line 3), got 7"));
  CHECK_THROWS_WITH(parse(std::string(kHeader) + "  8  2  float  sum  -1  12.00  0.00  0.00  3  11.0  0  0  0\n"),
                    Catch::Contains("line 4: nccl-tests counted 3 wrong results"));
  CHECK_THROWS_WITH(parse(std::string(kHeader) + "  8  2  float  sum  -1  fast  0.00  0.00  0  11.0  0  0  0\n"),
                    Catch::Contains("line 4: expected a time in (0, 3.6e+09] us, got \"fast\""));
  CHECK_THROWS_WITH(parse(std::string(kHeader)), Catch::Contains("no result rows"));
  // Without the device list the rank count is unknown.
  const std::string header_only = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n";
  CHECK_THROWS_WITH(parse(header_only + row), Catch::Contains("give --gpus"));
  CHECK_THROWS_WITH(parse("#  Rank  0 Group 0 Pid 1 on h device 0 [0x01] G\n" + header_only + row),
                    Catch::Contains("1 rank: an all-reduce curve needs at least 2"));
  CHECK_THROWS_AS(import_nccl_tests_file(kData + "no-such-file.txt", {}), CurveError);
}

}  // namespace
