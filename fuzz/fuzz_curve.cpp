// libFuzzer target: measured all-reduce curves and top-k selection curves (load_curve, load_selection_curve).
#include "fuzz_input.hpp"
#include "mgsim/io/trace_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = mgsim::fuzz::scratch_file(data, size);
  mgsim::fuzz::refuse_or_accept([&] { mgsim::load_curve(file); });
  return mgsim::fuzz::refuse_or_accept([&] { mgsim::load_selection_curve(file); });
}
