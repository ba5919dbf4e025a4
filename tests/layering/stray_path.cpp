// Must NOT compile (CTest layering_stray_path): a file of mgsim_profile
// reaching into mgsim_core's private folder by path, as src/profile once did.
#include "core/analytic_collectives.hpp"
