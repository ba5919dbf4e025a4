// GPU entries from the vendors' datasheets and architecture whitepapers.
// Default efficiencies (0.6 of peak FLOP/s, 0.8 of peak bandwidth) are
// generic assumptions, the same for every GPU; `mgsim zoo calibrate` fits
// them to a measured trace. Tensor peaks are dense and, for fp16, with fp32
// accumulation (what mixed-precision training uses): GeForce cards run that
// at half the rate of fp16 accumulation, and their datasheets quote the latter.

#include "mgsim/zoo/gpus.hpp"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "mgsim/error.hpp"
#include "mgsim/registry_lookup.hpp"

namespace mgsim::zoo {
namespace {

constexpr double kComputeEfficiency = 0.6;
constexpr double kMemoryEfficiency = 0.8;

const std::array kGpus{
    GpuSpec{"k80", "NVIDIA Tesla K80, one of its two GK210 GPUs (Kepler), 12 GB GDDR5",
            {4.37, 0, 0, 0}, 4.37, 240.0,
            "NVIDIA Tesla K80 datasheet (2014): per board up to 8.73 TFLOPS fp32 with GPU Boost and 480 GB/s for two "
            "GK210 GPUs (4,992 CUDA cores x 2 x 875 MHz); halved per GPU. No fp16/bf16/tf32 arithmetic.",
            kComputeEfficiency, kMemoryEfficiency},
    GpuSpec{"p100", "NVIDIA Tesla P100 SXM2 (Pascal GP100), 16 GB HBM2",
            {10.6, 0, 21.2, 0}, 10.6, 732.0,
            "NVIDIA Tesla P100 datasheet (2016), NVLink version: 10.6 TFLOPS fp32, 21.2 TFLOPS fp16, 732 GB/s.",
            kComputeEfficiency, kMemoryEfficiency},
    GpuSpec{"v100", "NVIDIA Tesla V100 SXM2 (Volta GV100), 16/32 GB HBM2",
            {15.7, 0, 125.0, 0}, 15.7, 900.0,
            "NVIDIA Tesla V100 datasheet (2018), SXM2 (NVLink) version: 15.7 TFLOPS fp32, 125 TFLOPS tensor (fp16), "
            "900 GB/s. No tf32/bf16.",
            kComputeEfficiency, kMemoryEfficiency},
    GpuSpec{"a100", "NVIDIA A100 SXM4 80 GB (Ampere GA100), HBM2e",
            {19.5, 156.0, 312.0, 312.0}, 19.5, 2039.0,
            "NVIDIA A100 Tensor Core GPU datasheet (2021), SXM 80 GB: 19.5 TFLOPS fp32, 156 TF32, 312 BF16/FP16 "
            "tensor (dense; the datasheet's doubled figures are with sparsity), 2,039 GB/s.",
            kComputeEfficiency, kMemoryEfficiency},
    GpuSpec{"h100", "NVIDIA H100 SXM5 80 GB (Hopper GH100), HBM3",
            {66.9, 494.7, 989.4, 989.4}, 66.9, 3350.0,
            "NVIDIA H100 Tensor Core GPU architecture whitepaper (2022), H100 SXM5: 66.9 TFLOPS fp32, 494.7 TF32, "
            "989.4 FP16/BF16 tensor dense (datasheet: 67 / 989* / 1,979*, * with sparsity); datasheet 3.35 TB/s.",
            kComputeEfficiency, kMemoryEfficiency},
    GpuSpec{"h200", "NVIDIA H200 SXM 141 GB (Hopper GH100), HBM3e",
            {66.9, 494.7, 989.4, 989.4}, 66.9, 4800.0,
            "NVIDIA H200 Tensor Core GPU datasheet (2024): same compute as H100 SXM (67 TFLOPS fp32, TF32 989*, "
            "BF16/FP16 1,979*, * with sparsity, so dense halves), 4.8 TB/s.",
            kComputeEfficiency, kMemoryEfficiency},
    GpuSpec{"a100-pcie", "NVIDIA A100 PCIe 80 GB (Ampere GA100), HBM2e",
            {19.5, 156.0, 312.0, 312.0}, 19.5, 1935.0,
            "NVIDIA A100 Tensor Core GPU datasheet (2021), PCIe 80 GB: 19.5 TFLOPS fp32, 156 TF32, 312 BF16/FP16 "
            "tensor (dense), 1,935 GB/s.",
            kComputeEfficiency, kMemoryEfficiency},
    GpuSpec{"l40s", "NVIDIA L40S (Ada AD102), 48 GB GDDR6",
            {91.6, 183.0, 362.05, 362.05}, 91.6, 864.0,
            "NVIDIA L40S datasheet (2023): 91.6 TFLOPS fp32, TF32 tensor 183 (366 with sparsity), BF16/FP16 tensor "
            "362.05 dense (733 with sparsity), 864 GB/s.",
            kComputeEfficiency, kMemoryEfficiency},
    GpuSpec{"rtx4090", "NVIDIA GeForce RTX 4090 (Ada AD102), 24 GB GDDR6X",
            {82.6, 82.6, 165.2, 165.2}, 82.6, 1008.0,
            "NVIDIA Ada Lovelace architecture whitepaper v1.01 (2022), RTX 4090: 82.6 TFLOPS fp32, TF32 82.6, "
            "FP16/BF16 tensor with fp32 accumulate 165.2 (dense; 330.3 with fp16 accumulate), 1,008 GB/s.",
            kComputeEfficiency, kMemoryEfficiency},
    GpuSpec{"rtx3090", "NVIDIA GeForce RTX 3090 (Ampere GA102), 24 GB GDDR6X",
            {35.6, 35.6, 71.0, 71.0}, 35.6, 936.0,
            "NVIDIA Ampere GA102 GPU architecture whitepaper v2.0 (2021), RTX 3090: 35.6 TFLOPS fp32, TF32 35.6, "
            "FP16/BF16 tensor with fp32 accumulate 71 (dense; 142 with fp16 accumulate), 936 GB/s.",
            kComputeEfficiency, kMemoryEfficiency},
    GpuSpec{"a6000", "NVIDIA RTX A6000 (Ampere GA102), 48 GB GDDR6",
            {38.7, 77.4, 154.8, 154.8}, 38.7, 768.0,
            "NVIDIA RTX A6000 datasheet (2021): 38.7 TFLOPS fp32, 309.7 TFLOPS tensor (fp16, with sparsity); GA102 "
            "whitepaper v2.0: TF32 77.4, FP16/BF16 154.8 dense with fp32 accumulate; 768 GB/s.",
            kComputeEfficiency, kMemoryEfficiency},
    GpuSpec{"rtx8000", "NVIDIA Quadro RTX 8000 (Turing TU102), 48 GB GDDR6",
            {16.3, 0, 130.5, 0}, 16.3, 672.0,
            "NVIDIA Quadro RTX 8000 datasheet (2018): 16.3 TFLOPS fp32, 130.5 TFLOPS tensor (fp16), 672 GB/s. No "
            "tf32/bf16.",
            kComputeEfficiency, kMemoryEfficiency},
    GpuSpec{"2080ti", "NVIDIA GeForce RTX 2080 Ti, reference clocks (Turing TU102), 11 GB GDDR6",
            {13.4, 0, 53.8, 0}, 13.4, 616.0,
            "NVIDIA Turing GPU architecture whitepaper (2018), RTX 2080 Ti reference: 13.4 TFLOPS fp32, FP16 tensor "
            "with fp32 accumulate 53.8 (107.6 with fp16 accumulate), 616 GB/s. No tf32/bf16.",
            kComputeEfficiency, kMemoryEfficiency},
    GpuSpec{"1080ti", "NVIDIA GeForce GTX 1080 Ti (Pascal GP102), 11 GB GDDR5X",
            {11.3, 0, 0, 0}, 11.3, 484.0,
            "NVIDIA GeForce GTX 1080 Ti specifications (2017): 3,584 CUDA cores x 2 x 1,582 MHz boost = 11.3 TFLOPS "
            "fp32, 484 GB/s (11 Gbps x 352 bit). No tensor cores; fp16 arithmetic runs at 1/64 rate, so none.",
            kComputeEfficiency, kMemoryEfficiency},
};

std::string valid_precisions(const GpuSpec& gpu) {
  std::string out;
  for (std::size_t p = 0; p < kPrecisions.size(); ++p) {
    if (gpu.matrix_tflops[p] > 0) out += fmt::format("{}{}", out.empty() ? "" : ", ", precision_name(kPrecisions[p]));
  }
  return out;
}

}  // namespace

std::string_view precision_name(Precision precision) {
  switch (precision) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::fp16: return "fp16";
    case Precision::bf16: return "bf16";
  }
  return "?";
}

Precision parse_precision(std::string_view name) {
  std::vector<std::string_view> names;
  for (Precision p : kPrecisions) {
    if (precision_name(p) == name) return p;
    names.push_back(precision_name(p));
  }
  throw ConfigError(unknown_name("precision", name, names));  // red team: FP32 was offered nothing
}

int precision_bytes(Precision precision) {
  return precision == Precision::fp16 || precision == Precision::bf16 ? 2 : 4;
}

double GpuSpec::peak_tflops(Precision precision) const {
  const double peak = matrix_tflops[static_cast<std::size_t>(precision)];
  if (peak <= 0) {
    throw ConfigError(fmt::format("gpu {} has no {} peak (valid precisions for {}: {})", name, precision_name(precision),
                                  name, valid_precisions(*this)));
  }
  return peak;
}

std::span<const GpuSpec> gpu_catalogue() { return kGpus; }

const GpuSpec& find_gpu(std::string_view name) { return find_by_name<ConfigError>(gpu_catalogue(), name, "gpu"); }

}  // namespace mgsim::zoo
