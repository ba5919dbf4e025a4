#pragma once
// The `measured` collective: a latency curve measured on real hardware
// (OSU, nccl-tests, mgsim profile), evaluated for the GPU counts it holds.

#include <memory>

#include "mgsim/collective.hpp"

namespace mgsim {

std::unique_ptr<Collective> make_measured(const CollectiveSettings& settings);

}  // namespace mgsim
