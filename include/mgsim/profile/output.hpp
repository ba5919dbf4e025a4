#pragma once
// Provenance helpers for what the profiler and the importers write (the
// writers themselves are io's: mgsim/io/trace_io.hpp).

#include <string>

namespace mgsim::profile {

/// Today's date in UTC, "YYYY-MM-DD", for provenance.
std::string today_utc();

}  // namespace mgsim::profile
