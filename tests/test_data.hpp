#pragma once
// Paths of the repository's test data, one definition for every test file
// (the unity build of the tests compiles several files as one).

#include <string>

namespace mgsim::test {

/// tests/data/, with its trailing slash.
inline const std::string kTestData = std::string(MGSIM_SOURCE_DIR) + "/tests/data/";
/// The shipped GoogleNet/K80 trace.
inline const std::string kGoogleNetTrace = std::string(MGSIM_SOURCE_DIR) + "/traces/googlenet-k80.json";
/// traces/, the shipped traces, with its trailing slash.
inline const std::string kShippedTraces = std::string(MGSIM_SOURCE_DIR) + "/traces/";

}  // namespace mgsim::test
