// Must NOT compile (CTest layering_stray_name): a file of mgsim_profile
// naming a private header of mgsim_core, which only mgsim_core's folder holds.
#include "analytic_collectives.hpp"
