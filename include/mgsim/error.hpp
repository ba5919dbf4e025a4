#pragma once
// Typed errors thrown by library code. Only the command-line front end turns
// them into messages and exit codes; the library never exits. Each message is
// one line that names the file (where there is one), the key and what was
// expected.

#include <stdexcept>
#include <string>

namespace mgsim {

/// Base of every error mgsim reports to a user as bad input.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A run config or a parameter in it is wrong.
class ConfigError : public Error {
 public:
  using Error::Error;
};

/// A trace file is wrong.
class TraceError : public Error {
 public:
  using Error::Error;
};

/// A measured curve is wrong, or is asked for something it has no data for.
class CurveError : public Error {
 public:
  using Error::Error;
};

/// An output could not be written.
class OutputError : public Error {
 public:
  using Error::Error;
};

}  // namespace mgsim
