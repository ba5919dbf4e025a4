#pragma once
// Loading traces and measured curves (docs/trace-format.md). Loaders validate
// every key and throw TraceError / CurveError naming the file and the key.

#include <filesystem>
#include <string>
#include <vector>

#include "mgsim/collective.hpp"
#include "mgsim/schedule.hpp"
#include "mgsim/trace.hpp"

namespace mgsim {

/// Largest element count accepted for one tensor, and most layers per trace:
/// beyond these a file is more likely corrupt than real.
inline constexpr std::int64_t kMaxTensorElements = std::int64_t{1} << 36;
inline constexpr std::int64_t kMaxLayers = 1'000'000;
inline constexpr std::int64_t kMaxTraceBytes = std::int64_t{1} << 50;
/// Largest message in a curve file: a whole tensor of the largest element type.
inline constexpr std::int64_t kMaxMessageBytes = kMaxTensorElements * 16;

Trace load_trace(const std::filesystem::path& file);

/// Points of a curve file, in file order.
std::vector<CurvePoint> load_curve(const std::filesystem::path& file);

/// Points of a top-k selection-time curve file, in file order.
std::vector<SelectionPoint> load_selection_curve(const std::filesystem::path& file);

}  // namespace mgsim
