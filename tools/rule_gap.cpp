// How often, and by how much, the published MG-WFBP rule misses the optimal
// grouping: on a real trace across GPU counts and collectives, and on seeded
// random traces. Prints markdown tables for docs/schedules.md.
//
//   mgsim_rule_gap TRACE [RANDOM_TRACES] [SEED]

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/replay.hpp"
#include "mgsim/schedule.hpp"
#include "mgsim/simulation.hpp"

using namespace mgsim;

namespace {

/// 10 GbE in the MG-WFBP authors' simulator: bandwidth B = 9 Gbit/s =
/// 9 * 2^30 / 8 bytes/s and beta = 1.2 / B per byte (the shipped configs use
/// the same; tests/test_shipped_constants.cpp derives it).
const Link kTenGbe{45.25e-6, 1.2 / (9.0 * (1 << 30) / 8), 2.5e-9};

/// Iteration time of the rule and of the optimum, at one GPU count.
std::pair<SimTime, SimTime> compare(const Workload& workload, const Collective& collective, int gpus) {
  const CommProblem problem = Placement(workload, Cluster::homogeneous(gpus), collective).problem;
  const auto end = [&](std::string_view name) {
    return evaluate_closed_form(problem, make_schedule(name, {})->plan(problem)).iteration_end;
  };
  return {end("mgwfbp"), end("optimal")};
}

/// A random trace of 2..64 one- or two-tensor layers, backward times
/// log-uniform in [10 us, 10 ms], sizes log-uniform in [100, 10^7] elements.
Trace random_trace(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> layers(2, 64), tensors(1, 2);
  std::uniform_real_distribution<double> log_time(std::log(1e-5), std::log(1e-2)), log_size(std::log(1e2), std::log(1e7));
  Trace trace;
  trace.model = "random";
  trace.batch_size = 32;
  for (int l = layers(rng); l > 0; --l) {
    Layer layer{"l", {}, 4, std::exp(log_time(rng)), {}};
    for (int t = tensors(rng); t > 0; --t) layer.params.push_back(static_cast<std::int64_t>(std::exp(log_size(rng))));
    trace.layers.push_back(layer);
  }
  return trace;
}

void real_trace_table(const Workload& workload) {
  CollectiveSettings settings;
  settings.network = {kTenGbe, kTenGbe};
  fmt::print("| collective | GPUs | mgwfbp (ms) | optimal (ms) | gap |\n| --- | ---: | ---: | ---: | ---: |\n");
  for (std::string_view name : {"ring", "tree"}) {
    const auto collective = find_collective(name).make(settings);
    for (int gpus = 4; gpus <= 2048; gpus *= 2) {
      const auto [rule, best] = compare(workload, *collective, gpus);
      fmt::print("| {} | {} | {:.3f} | {:.3f} | {:.2f}% |\n", name, gpus, to_seconds(rule) * 1e3, to_seconds(best) * 1e3,
                 100.0 * static_cast<double>(rule - best) / static_cast<double>(best));
    }
  }
}

void random_table(int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> log_gpus(1, 11);
  CollectiveSettings settings;
  settings.network = {kTenGbe, kTenGbe};
  fmt::print("\n| collective | random traces | rule optimal | rule slower | slower by > 1% | mean gap when slower | max gap |\n"
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (std::string_view name : {"ring", "tree"}) {
    const auto collective = find_collective(name).make(settings);
    int slower = 0, slower_1pct = 0;
    double gap_sum = 0, gap_max = 0;
    for (int i = 0; i < count; ++i) {
      const Workload workload(random_trace(rng));
      const auto [rule, best] = compare(workload, *collective, 1 << log_gpus(rng));
      if (rule < best) throw std::logic_error("optimal is slower than the rule");
      if (rule == best) continue;
      const double gap = static_cast<double>(rule - best) / static_cast<double>(best);
      ++slower;
      slower_1pct += gap > 0.01 ? 1 : 0;
      gap_sum += gap;
      gap_max = std::max(gap_max, gap);
    }
    fmt::print("| {} | {} | {} | {} ({:.1f}%) | {} ({:.1f}%) | {:.2f}% | {:.2f}% |\n", name, count, count - slower,
               slower, 100.0 * slower / count, slower_1pct, 100.0 * slower_1pct / count,
               slower ? 100.0 * gap_sum / slower : 0.0, 100.0 * gap_max);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: mgsim_rule_gap TRACE [RANDOM_TRACES] [SEED]\n");
    return 2;
  }
  try {
    real_trace_table(Workload(load_trace(argv[1])));
    random_table(argc > 2 ? std::stoi(argv[2]) : 10000, argc > 3 ? std::stoull(argv[3]) : 1);
  } catch (const Error& error) {
    std::fprintf(stderr, "mgsim_rule_gap: error: %s\n", error.what());
    return 2;
  }
  return 0;
}
