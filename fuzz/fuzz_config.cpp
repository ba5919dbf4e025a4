// libFuzzer target: scenario configs (load_scenario).
#include "fuzz_input.hpp"
#include "mgsim/io/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = mgsim::fuzz::scratch_file(data, size);
  return mgsim::fuzz::refuse_or_accept([&] { mgsim::load_scenario(file); });
}
