// Must compile (CTest layering_allowed), the control for the stray probes:
// a file of mgsim_profile including its own private header and public ones.
#include "least_squares.hpp"
#include "mgsim/collective.hpp"
#include "mgsim/io/trace_io.hpp"
