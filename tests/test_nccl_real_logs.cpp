// The `nccl` collective against real nccl-tests all_reduce_perf logs
// (tests/data/README.md): its bus bandwidth is set so that the largest
// message of each log is priced as measured, NCCL's latency tables are kept
// (no fitted latency), and every smaller size is predicted. The errors per
// size range are printed (ctest -V -R nccl_real) and bounded: the bounds are
// the errors docs/collectives.md reports, rounded up to the next 5 points, so
// a change to the model that moves a covered point further fails here. Not
// yet a claim of accuracy: at 16 ranks the model misses small and mid sizes
// by up to 93% (docs/collectives.md, "nccl against real logs").

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "mgsim/nccl_model.hpp"
#include "mgsim/profile/import_files.hpp"

namespace {

using namespace mgsim;

const std::string kData = std::string(MGSIM_SOURCE_DIR) + "/tests/data/";

constexpr std::int64_t kSmallMax = 64 << 10;  // small: up to 64 KiB
constexpr std::int64_t kMidMax = 16 << 20;    // mid: above 64 KiB, up to 16 MiB

NcclModel model_with(double beta) {
  NcclParams p;
  p.intra_beta_s_per_byte = p.inter_beta_s_per_byte = beta;
  p.gpus_per_node = 8;
  return NcclModel(p);
}

/// The bus beta (log-space bisection) that prices `largest` as measured.
double beta_matching(const CurveSample& largest) {
  double lo = std::log(1e-15), hi = std::log(1e-6);
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    const double t = model_with(std::exp(mid)).allreduce_seconds(static_cast<double>(largest.bytes), largest.gpus);
    (t < largest.seconds ? lo : hi) = mid;
  }
  return std::exp((lo + hi) / 2);
}

struct RangeError {
  double median = 0, max = 0;
  int points = 0;
};

RangeError summarize(std::vector<double> errors) {
  if (errors.empty()) return {};
  std::sort(errors.begin(), errors.end());
  const std::size_t n = errors.size();
  const double median = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  return {median, errors.back(), static_cast<int>(n)};
}

struct LogError {
  int gpus = 0;
  double busbw_gb_s = 0;
  RangeError small, mid;
};

LogError predict_log(const std::string& file) {
  const profile::ImportedCurve curve = profile::import_nccl_tests_file(kData + file, {});
  const CurveSample& largest = curve.points.back();
  const double beta = beta_matching(largest);
  const NcclModel model = model_with(beta);
  std::vector<double> small, mid;
  for (const CurveSample& s : curve.points) {
    if (s.bytes == 0 || s.bytes > kMidMax) continue;
    const double e = std::abs(model.allreduce_seconds(static_cast<double>(s.bytes), s.gpus) - s.seconds) / s.seconds;
    (s.bytes <= kSmallMax ? small : mid).push_back(e);
  }
  return {largest.gpus, 1e-9 / beta, summarize(small), summarize(mid)};
}

}  // namespace

TEST_CASE("nccl model: small and mid all-reduce sizes of real nccl-tests logs, bus bandwidth from the largest size",
          "[nccl-logs]") {
  struct Case {
    const char* file;
    double small_max, mid_max;  // bounds on |relative error|; < 0: the log has no size in that range
  };
  // Measured (docs/collectives.md): a3mega small 83.0%, mid 82.0%; srun mid 14.1% (its sizes start at
  // 8 MiB); hgx small 73.3%, mid 43.1%; p4d small 93.2%, mid 81.3%. The 8-GPU NVLS log starts at
  // 128 MiB: no small or mid point, so no rank count but 16 is covered.
  const Case cases[] = {
      {"nccl-tests-allreduce-16gpu-h100-a3mega.txt", 0.85, 0.85},
      {"nccl-tests-allreduce-16gpu-h100-srun-prefixed.txt", -1, 0.15},
      {"nccl-tests-allreduce-16gpu-h100-hgx-mpirun-noise.txt", 0.75, 0.45},
      {"nccl-tests-allreduce-16gpu-p4d-mpirun-tagged.txt", 0.95, 0.85},
  };
  std::printf("%-52s %5s %9s  %-22s %-22s\n", "log", "ranks", "busbw", "small <= 64 KiB", "mid 64 KiB..16 MiB");
  for (const Case& c : cases) {
    const LogError e = predict_log(c.file);
    std::printf("%-52s %5d %6.1f GB/s  median %5.1f%% max %5.1f%%  median %5.1f%% max %5.1f%%\n", c.file, e.gpus,
                e.busbw_gb_s, 100 * e.small.median, 100 * e.small.max, 100 * e.mid.median, 100 * e.mid.max);
    INFO(c.file);
    CHECK((e.small.points > 0) == (c.small_max >= 0));
    CHECK((e.mid.points > 0) == (c.mid_max >= 0));
    CHECK(e.small.max <= c.small_max + (c.small_max < 0 ? 1 : 0));
    CHECK(e.mid.max <= c.mid_max + (c.mid_max < 0 ? 1 : 0));
  }
}
