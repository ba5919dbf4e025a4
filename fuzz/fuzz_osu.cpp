// libFuzzer target: OSU osu_allreduce output, imported and written as an mgsim curve.
#include "fuzz_input.hpp"
#include "mgsim/io/trace_io.hpp"
#include "mgsim/profile/import_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = mgsim::fuzz::scratch_file(data, size);
  return mgsim::fuzz::refuse_or_accept([&] {
    const auto imported = mgsim::profile::import_osu_file(file, {});
    mgsim::format_curve_json(imported.points, imported.provenance);
  });
}
