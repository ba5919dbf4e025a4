#pragma once
// Parallelization strategies of one operator, as `mgsim plan` searches them
// (docs/plan.md). A strategy splits an operator over the devices along its
// batch dimension, its feature dimension (output channels, output features,
// attention heads, embedding width) and, for convolutions and linear layers,
// its reduction dimension (input channels or features), each split a power of
// two. Devices beyond the product of the splits hold replicas. The tensor an
// operator produces is then spread as a Layout: batch x feature pieces.

#include <cstdint>
#include <string>

namespace mgsim::plan {

/// How a tensor is spread: `batch` pieces along the samples times `feature`
/// pieces along its feature dimension; devices / (batch x feature) replicas of each piece.
struct Layout {
  int batch = 1;
  int feature = 1;
  bool operator==(const Layout&) const = default;
};

/// Split factors of one operator; all powers of two.
struct Strategy {
  int batch = 1;
  int feature = 1;    ///< output channels / features, heads, embedding width
  int reduction = 1;  ///< input channels / features; partial sums are all-reduced

  int split() const { return batch * feature * reduction; }
  Layout output() const { return {batch, feature}; }
  bool operator==(const Strategy&) const = default;
};

/// "b8", "b2.f4", "b1.f2.k4": the factors above 1 after the batch split.
std::string format_strategy(const Strategy& strategy);

}  // namespace mgsim::plan
