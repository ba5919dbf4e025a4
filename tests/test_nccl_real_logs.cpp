// The `nccl` collective against real nccl-tests all_reduce_perf logs
// (tests/data/README.md): its bus bandwidth is set so that the largest
// message of each log is priced as measured, NCCL's latency tables are kept
// (no fitted latency), and every smaller size is predicted. The errors per
// size range are printed (ctest -V -R nccl_real) and bounded: the bounds are
// the errors docs/collectives.md reports, rounded up to the next 5 points, so
// a change to the model that moves a covered point further fails here. Not
// yet a claim of accuracy: at 16 ranks the model misses small and mid sizes
// by up to 93% (docs/collectives.md, "nccl against real logs"). The second
// case fits the network's own latency too (one more number per network, on
// one small size) and predicts the rest.

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

/// NCCL's tables with bus beta `beta` and `inter_us` more per network step
/// (NCCL's latencyInter: what its network plugin reports, config key
/// network.inter.alpha_us).
NcclModel model_with(double beta, double inter_us = 0.0) {
  NcclParams p;
  p.intra_beta_s_per_byte = p.inter_beta_s_per_byte = beta;
  p.inter_extra_latency_us = inter_us;
  p.gpus_per_node = 8;
  return NcclModel(p);
}

/// The value in [lo, hi] (log-space bisection) at which `seconds(value)`,
/// increasing, prices `sample` as measured.
template <typename Seconds>
double matching(const CurveSample& sample, double lo, double hi, Seconds seconds) {
  lo = std::log(lo), hi = std::log(hi);
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (seconds(std::exp(mid)) < sample.seconds ? lo : hi) = mid;
  }
  return std::exp((lo + hi) / 2);
}

double price(const NcclModel& model, const CurveSample& s) {
  return model.allreduce_seconds(static_cast<double>(s.bytes), s.gpus);
}

/// The bus beta that prices `largest` as measured.
double beta_matching(const CurveSample& largest, double inter_us = 0.0) {
  return matching(largest, 1e-15, 1e-6, [&](double beta) { return price(model_with(beta, inter_us), largest); });
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

/// The errors of `model` on every size up to 16 MiB but `skip`, by range.
LogError errors_of(const NcclModel& model, const profile::ImportedCurve& curve, std::int64_t skip) {
  std::vector<double> small, mid;
  for (const CurveSample& s : curve.points) {
    if (s.bytes == 0 || s.bytes == skip || s.bytes > kMidMax) continue;
    const double e = std::abs(price(model, s) - s.seconds) / s.seconds;
    (s.bytes <= kSmallMax ? small : mid).push_back(e);
  }
  return {curve.points.back().gpus, 1e-9 / model.params().inter_beta_s_per_byte, summarize(small), summarize(mid)};
}

LogError predict_log(const std::string& file) {
  const profile::ImportedCurve curve = profile::import_nccl_tests_file(kData + file, {});
  return errors_of(model_with(beta_matching(curve.points.back())), curve, 0);
}

/// The latency point of a log: of its sizes up to 4 KiB (latency-bound),
/// the one of median time (the first row is often a warm-up outlier: 68.5
/// us against 25 us on the Dell XE9680 log); the smallest size when none is
/// that small.
CurveSample latency_point(const profile::ImportedCurve& curve) {
  std::vector<CurveSample> small;
  for (const CurveSample& s : curve.points) {
    if (s.bytes > 0 && s.bytes <= 4096) small.push_back(s);
  }
  if (small.empty()) return curve.points.front();
  std::sort(small.begin(), small.end(), [](const CurveSample& a, const CurveSample& b) { return a.seconds < b.seconds; });
  return small[small.size() / 2];
}

/// The network's two numbers fitted on two sizes: the extra latency per
/// network step on the latency point and the bus beta on the largest size,
/// alternately until both hold; every other size is predicted.
LogError predict_log_fitted(const std::string& file, double& inter_us) {
  const profile::ImportedCurve curve = profile::import_nccl_tests_file(kData + file, {});
  const CurveSample& largest = curve.points.back();
  const CurveSample point = latency_point(curve);
  const CurveSample* smallest = &point;
  double beta = beta_matching(largest);
  inter_us = 0.0;
  for (int round = 0; round < 50; ++round) {
    inter_us = matching(*smallest, 1e-6, 1e6, [&](double us) { return price(model_with(beta, us), *smallest); });
    beta = beta_matching(largest, inter_us);
  }
  return errors_of(model_with(beta, inter_us), curve, smallest->bytes);
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

TEST_CASE("nccl model: the network's latency fitted on one small size and bandwidth on the largest, the rest "
          "predicted", "[nccl-logs]") {
  // NCCL's tables know the hardware hops (NVLink, PCIe, a generic NIC), not
  // the network plugin's own latency (EFA's libfabric, GPUDirect-TCPX), which
  // NCCL adds per network step as latencyInter: the config's
  // network.inter.alpha_us. Fitted on one size (latency_point) with the bus
  // bandwidth on the largest, every other size predicted. Measured
  // (docs/collectives.md): a3mega small 19.5%, mid 71.8%; srun mid 23.6%;
  // hgx small 68.5% (its 8-byte warm-up row), mid 37.3%; p4d small 55.0%,
  // mid 47.2%.
  struct Case {
    const char* file;
    double small_max, mid_max;  // bounds on |relative error| of the predicted sizes, as measured rounded up
  };
  const Case cases[] = {
      {"nccl-tests-allreduce-16gpu-h100-a3mega.txt", 0.20, 0.75},
      {"nccl-tests-allreduce-16gpu-h100-srun-prefixed.txt", -1, 0.25},
      {"nccl-tests-allreduce-16gpu-h100-hgx-mpirun-noise.txt", 0.70, 0.40},
      {"nccl-tests-allreduce-16gpu-p4d-mpirun-tagged.txt", 0.60, 0.50},
  };
  std::printf("%-52s %5s %9s %9s  %-22s %-22s\n", "log", "ranks", "busbw", "inter", "small <= 64 KiB",
              "mid 64 KiB..16 MiB");
  for (const Case& c : cases) {
    double inter_us = 0;
    const LogError e = predict_log_fitted(c.file, inter_us);
    std::printf("%-52s %5d %6.1f GB/s %6.1f us  median %5.1f%% max %5.1f%%  median %5.1f%% max %5.1f%%\n", c.file,
                e.gpus, e.busbw_gb_s, inter_us, 100 * e.small.median, 100 * e.small.max, 100 * e.mid.median,
                100 * e.mid.max);
    INFO(c.file);
    CHECK((e.small.points > 0) == (c.small_max >= 0));
    CHECK(e.small.max <= c.small_max + (c.small_max < 0 ? 1 : 0));
    CHECK(e.mid.max <= c.mid_max);
  }
}
