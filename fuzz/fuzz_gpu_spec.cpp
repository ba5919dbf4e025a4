// libFuzzer target: GPU spec files (`mgsim zoo trace --gpu-spec`, load_gpu_spec).
#include "fuzz_input.hpp"
#include "mgsim/zoo/gpus.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = mgsim::fuzz::scratch_file(data, size);
  return mgsim::fuzz::refuse_or_accept([&] { mgsim::zoo::load_gpu_spec(file); });
}
