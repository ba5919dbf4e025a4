// libFuzzer target: trace files (load_trace), and the workload built from an accepted trace.
#include "fuzz_input.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/simulation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = mgsim::fuzz::scratch_file(data, size);
  return mgsim::fuzz::refuse_or_accept([&] { const mgsim::Workload workload(mgsim::load_trace(file)); });
}
