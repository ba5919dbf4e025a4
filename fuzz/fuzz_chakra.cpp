// libFuzzer target: Chakra ET files (mgsim import chakra): the framing, the
// dependency graph and both reading paths.
#include "fuzz_input.hpp"
#include "mgsim/chakra/chakra.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return mgsim::fuzz::refuse_or_accept([&] { mgsim::chakra::import_et(mgsim::fuzz::as_text(data, size), "fuzz"); });
}
