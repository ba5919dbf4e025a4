// libFuzzer target: PyTorch profiler (Kineto) traces, imported and written as an mgsim trace.
#include "fuzz_input.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/profile/import_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = mgsim::fuzz::scratch_file(data, size);
  return mgsim::fuzz::refuse_or_accept([&] {
    const auto imported = mgsim::profile::import_kineto_file(file, {"fuzz", 8, 0, {}, {}});
    mgsim::format_trace_json(imported.trace, imported.provenance);
  });
}
