#include <cstdio>

#include "commands.hpp"
#include "mgsim/io/report.hpp"

namespace mgsim::cli {

void emit(std::string_view text, const std::string& output) {
  if (output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    write_file_atomically(output, text);
  }
}

}  // namespace mgsim::cli
