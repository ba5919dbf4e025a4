#pragma once
// The GPU catalogue: per GPU its peak dense throughput for each training
// precision and its memory bandwidth, from the vendor's published
// specifications (each entry names its source), plus the efficiency factors
// the roofline uses by default. Peaks are per CUDA device: a K80 board holds
// two such devices. A precision a GPU cannot run (fp16 on a K80, bf16 on a
// V100) has no peak and is refused with the list of valid ones. Cards the
// catalogue lacks come from a GPU spec file (load_gpu_spec, format in
// docs/models.md#gpu-spec-files).

#include <array>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace mgsim::zoo {

enum class Precision { fp32, tf32, fp16, bf16 };

inline constexpr std::array kPrecisions{Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16};

std::string_view precision_name(Precision precision);
/// Throws ConfigError listing the valid names.
Precision parse_precision(std::string_view name);
/// Bytes per element: 4 for fp32 and tf32 (tf32 computes on fp32 storage), 2 for fp16 and bf16.
int precision_bytes(Precision precision);

struct GpuSpec {
  std::string name;         ///< "h100"
  std::string description;  ///< model, form factor, memory
  /// Dense peak of matrix operations (convolution, linear, matmul, LSTM) per
  /// precision in kPrecisions order, TFLOP/s; 0 where unsupported. fp32 is
  /// the CUDA-core peak; tf32, fp16, bf16 use tensor cores where there are
  /// some (no structured sparsity).
  std::array<double, 4> matrix_tflops;
  double vector_tflops;          ///< fp32 CUDA-core peak, used for all other operators
  double memory_gb_per_s;        ///< peak DRAM bandwidth, GB/s (1e9 bytes)
  std::string source;       ///< where the numbers come from
  double compute_efficiency;     ///< default fraction of peak FLOP/s reached
  double memory_efficiency;      ///< default fraction of peak bandwidth reached

  /// Matrix peak for a precision; throws ConfigError when the GPU lacks it.
  double peak_tflops(Precision precision) const;
};

std::span<const GpuSpec> gpu_catalogue();

/// Throws ConfigError listing the valid names.
const GpuSpec& find_gpu(std::string_view name);

/// Reads a GPU spec file (a JSON object: name, description, source,
/// matrix_tflops per precision, optional vector_tflops, memory_gb_per_s,
/// optional efficiencies). Throws ConfigError "<file>: <key>: expected ..."
/// on unknown keys, missing ones and values out of range.
GpuSpec load_gpu_spec(const std::filesystem::path& file);

}  // namespace mgsim::zoo
