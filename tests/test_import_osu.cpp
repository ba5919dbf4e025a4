// `mgsim import osu`: osu_allreduce output. The B-Caffe K80 logs are real
// runs (copied from /work/shared/data, tests/data/README.md); the "-f" sample
// with min/max columns is synthetic, in OSU 7's documented layout.

#include <catch2/catch.hpp>

#include "test_data.hpp"
#include <sstream>

#include "mgsim/error.hpp"
#include "mgsim/profile/import_files.hpp"

namespace {

using namespace mgsim;
using namespace mgsim::profile;

using mgsim::test::kTestData;

ImportedCurve parse_osu(const std::string& text, int gpus = 0) {
  std::istringstream in(text);
  return import_osu(in, "osu.txt", {gpus});
}

const char* kTop = "# OSU MPI Allreduce Latency Test v5.4.0\n# Size       Avg Latency(us)\n";

TEST_CASE("import: a real osu_allreduce log with the 'N,' rank prefix", "[import]") {
  const ImportedCurve curve = import_osu_file(kTestData + "osu-bcaffe-k80-allreduce2.log", {});
  // 266 rows "2,<size> <us>": first 2,4 31.92; last 2,1048576 1839.14.
  REQUIRE(curve.points.size() == 266);
  CHECK(curve.points.front().gpus == 2);
  CHECK(curve.points.front().bytes == 4);
  CHECK(curve.points.front().seconds == Approx(31.92e-6));
  CHECK(curve.points.back().bytes == 1048576);
  CHECK(curve.points.back().seconds == Approx(1839.14e-6));
  CHECK_FALSE(curve.points.front().spread_s.has_value());
  CHECK(curve.provenance["tool"] == "OSU MPI Allreduce Latency Test v5.4.0");
}

TEST_CASE("import: a real osu_allreduce log without prefix needs --gpus", "[import]") {
  CHECK_THROWS_WITH(import_osu_file(kTestData + "osu-bcaffe-k80-allreduce4.log", {}), Catch::Contains("give --gpus"));
  const ImportedCurve curve = import_osu_file(kTestData + "osu-bcaffe-k80-allreduce4.log", {4});
  REQUIRE(curve.points.size() == 266);
  CHECK(curve.points.front().gpus == 4);
  CHECK(curve.points.front().seconds == Approx(54.50e-6));   // "4  54.50"
  CHECK(curve.points.back().seconds == Approx(2251.96e-6));  // "1048576  2251.96"
  // The rank prefix of the two-node file contradicts --gpus 4.
  CHECK_THROWS_WITH(import_osu_file(kTestData + "osu-bcaffe-k80-allreduce2.log", {4}),
                    Catch::Contains("rank prefix 2 contradicts --gpus 4"));
}

TEST_CASE("import: osu_allreduce -f output gives the spread of min and max", "[import]") {
  const ImportedCurve curve = import_osu_file(kTestData + "osu-allreduce-full-v7.txt", {8});
  // 19 sizes 4 B .. 1 MiB; row "4  20.00  18.50  22.50  1000": spread 4 us.
  REQUIRE(curve.points.size() == 19);
  CHECK(curve.points.front().seconds == Approx(20.0e-6));
  CHECK(*curve.points.front().spread_s == Approx(4.0e-6));
  CHECK(curve.points.back().seconds == Approx(544.29e-6));
  CHECK(curve.provenance["tool"] == "OSU MPI-CUDA Allreduce Latency Test v7.1");
}

TEST_CASE("import: real osu_allgather and osu_allreduce outputs, the table ending before the shell's lines",
          "[import]") {
  // `time mpirun -np 64 ... osu_allgather`: the command before the title, the
  // shell's real/user/sys and the harness's marker after the table.
  const ImportedCurve gke = import_osu_file(kTestData + "osu-allgather-64rank-gke-v5.8.txt", {64});
  REQUIRE(gke.points.size() == 21);  // 1 B .. 1 MiB
  CHECK(gke.collective == CurveCollective::allgather);
  CHECK(gke.points.front().bytes == 1);
  CHECK(gke.points.front().seconds == Approx(256153.75e-6));
  CHECK(gke.points.back().bytes == 1048576);
  CHECK(gke.points.back().seconds == Approx(5553244.52e-6));
  CHECK(gke.provenance["tool"] == "OSU MPI Allgather Latency Test v5.8");

  const ImportedCurve impi = import_osu_file(kTestData + "osu-allgather-64rank-alaska-impi-v5.6.2.txt", {64});
  REQUIRE(impi.points.size() == 21);
  CHECK(impi.points.front().seconds == Approx(18.19e-6));
  CHECK(impi.points.back().seconds == Approx(196016.56e-6));
  const ImportedCurve ompi = import_osu_file(kTestData + "osu-allgather-64rank-alaska-openmpi-v5.6.2.txt", {64});
  REQUIRE(ompi.points.size() == 21);
  CHECK(ompi.points[7].bytes == 128);
  CHECK(ompi.points[7].seconds == Approx(20.23e-6));
  const ImportedCurve ar = import_osu_file(kTestData + "osu-allreduce-64rank-alaska-impi-v5.6.2.txt", {64});
  REQUIRE(ar.points.size() == 19);  // 4 B .. 1 MiB
  CHECK(ar.collective == CurveCollective::allreduce);
  CHECK(ar.points.front().seconds == Approx(3.90e-6));
  CHECK(ar.points.back().seconds == Approx(7403.33e-6));
  // The same cluster with Open MPI 4 / UCX: faster at 1 MiB (3730.69 us).
  const ImportedCurve ucx = import_osu_file(kTestData + "osu-allreduce-64rank-alaska-openmpi-v5.6.2.txt", {64});
  REQUIRE(ucx.points.size() == 19);
  CHECK(ucx.points[12].bytes == 16384);
  CHECK(ucx.points[12].seconds == Approx(158.16e-6));
  CHECK(ucx.points.back().seconds == Approx(3730.69e-6));
}

TEST_CASE("import: osu_reduce_scatter is its own curve kind; nothing is read after the table", "[import]") {
  const std::string rs = "# OSU MPI Reduce_scatter Latency Test v5.6.3\n# Size       Avg Latency(us)\n4  1.06\n8  1.18\n";
  CHECK(parse_osu(rs, 2).collective == CurveCollective::reducescatter);
  CHECK(parse_osu(std::string(kTop) + "4  1.0\n8  1.5\n\nreal\t0m3s\nuser@host:~$ exit\n", 2).points.size() == 2);
  CHECK_THROWS_WITH(parse_osu(std::string(kTop) + "4  1.0\nreal 0m3s\n8  1.5\n", 2),
                    Catch::Contains("osu.txt: line 5: the table ended at line 4: one table per file"));
  CHECK_THROWS_WITH(parse_osu(std::string(kTop) + "4  1.0\n\n" + kTop + "4  1.0\n", 2),
                    Catch::Contains("line 5: the table ended at line 4"));
}

TEST_CASE("import: malformed osu outputs are refused with file and line", "[import]") {
  CHECK_THROWS_WITH(parse_osu("# OSU MPI Broadcast Latency Test v7.0\n"),
                    Catch::Contains("is not osu_allreduce, osu_allgather or osu_reduce_scatter"));
  // A non-blocking or a bandwidth test prints other figures under the same columns.
  CHECK_THROWS_WITH(parse_osu("# OSU MPI Non-blocking Allreduce Latency Test v7.0\n"),
                    Catch::Contains("is not an OSU latency test"));
  CHECK_THROWS_WITH(parse_osu("# OSU MPI Allreduce Bandwidth Test v7.0\n"), Catch::Contains("is not an OSU latency test"));
  CHECK_THROWS_WITH(parse_osu("# Size   Avg Latency(us)\n4   1.0\n", 2), Catch::Contains("no \"# OSU"));
  CHECK_THROWS_WITH(parse_osu("# OSU MPI Allreduce Latency Test v5.4.0\n", 2), Catch::Contains("no column header"));
  // A row under the title but above any header (red team: dropped, the sizes after the header imported).
  CHECK_THROWS_WITH(parse_osu("# OSU MPI Allreduce Latency Test v5.4.0\n4   1.0\n", 2),
                    Catch::Contains("line 2: a result row before the column header"));
  CHECK_THROWS_WITH(parse_osu(std::string(kTop) + "4  1.0  2.0\n", 2),
                    Catch::Contains("osu.txt: line 3: expected 2 columns as in the header, got 3"));
  CHECK_THROWS_WITH(parse_osu(std::string(kTop) + "4  -1.0\n", 2), Catch::Contains("line 3: expected a time in [0.001, 3.6e+09] us"));
  CHECK_THROWS_WITH(parse_osu(std::string(kTop) + "0  1.0\n", 2), Catch::Contains("line 3: expected a size in [1, 1099511627776] bytes"));
  CHECK_THROWS_WITH(parse_osu(std::string(kTop) + "4  1.0\n4  1.1\n", 2),
                    Catch::Contains("line 4: size 4 already given on line 3"));
  CHECK_THROWS_WITH(parse_osu(std::string(kTop) + "2,4  1.0\n4,8  1.1\n"),
                    Catch::Contains("line 4: rank prefix 4 after 2"));
  CHECK_THROWS_WITH(parse_osu(std::string(kTop), 2), Catch::Contains("no result rows"));
  CHECK_THROWS_WITH(parse_osu(std::string(kTop) + "4  1.0\n", 1), Catch::Contains("needs at least 2"));
}

}  // namespace
