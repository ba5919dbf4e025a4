#pragma once
// A cluster: ranks (GPUs) with identity. Each rank sits on a node
// (`gpus_per_node` consecutive ranks share one) and belongs to a speed class:
// its compute takes the trace's nominal times divided by the class's speed.
// Ranks of one class compute alike, so the engine replays one compute stream
// per class; a homogeneous cluster is one class of speed 1. The GPU count of
// a run lives here and nowhere else.

#include <algorithm>
#include <span>
#include <vector>

namespace mgsim {

/// A share of a cluster's ranks running at `speed` x the trace's GPU.
struct SpeedShare {
  double fraction = 0.0;  ///< in (0, 1]
  double speed = 1.0;     ///< > 0; 0.7 means 30% slower than the trace
};

class Cluster {
 public:
  /// `gpus` identical ranks.
  static Cluster homogeneous(int gpus, int gpus_per_node = 1);
  /// `gpus` ranks, from rank 0 in the order given: each share fraction x
  /// gpus of them, rounded by largest remainders so that the shares and the
  /// rest of the cluster (1 - the fractions' sum, at speed 1) add up to
  /// `gpus`; fractions adding up to 1 leave no rank at speed 1.
  static Cluster with_shares(int gpus, int gpus_per_node, std::span<const SpeedShare> shares);
  /// Rank r belongs to class `rank_class[r]`, whose speed is `speeds[c]`.
  Cluster(std::vector<double> speeds, std::vector<int> rank_class, int gpus_per_node = 1);

  int size() const { return size_; }
  int gpus_per_node() const { return gpus_per_node_; }
  int node_of(int rank) const { return rank / gpus_per_node_; }
  int class_count() const { return static_cast<int>(speeds_.size()); }
  int class_of(int rank) const;
  double speed(int speed_class) const { return speeds_[static_cast<std::size_t>(speed_class)]; }
  /// The slowest class's speed.
  double slowest_speed() const { return *std::min_element(speeds_.begin(), speeds_.end()); }
  /// Ranks in `speed_class`.
  int class_size(int speed_class) const { return class_size_[static_cast<std::size_t>(speed_class)]; }
  bool homogeneous() const { return class_count() == 1 && speeds_[0] == 1.0; }

 private:
  /// Ranks from `first` to the next run's first (or the last rank) of one class.
  struct Run {
    int first = 0;
    int speed_class = 0;
  };
  Cluster(std::vector<double> speeds, std::vector<Run> runs, int size, int gpus_per_node);

  std::vector<double> speeds_;
  /// The ranks as runs of one class, by first rank: a few per cluster, however
  /// many ranks (a grid of 2,000 GPU counts of 100,000 once held 800 MB of
  /// per-rank classes).
  std::vector<Run> runs_;
  std::vector<int> class_size_;
  int size_ = 0;
  int gpus_per_node_ = 1;
};

}  // namespace mgsim
