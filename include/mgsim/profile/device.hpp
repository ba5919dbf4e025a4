#pragma once
// Finding the CUDA GPUs of this machine without linking CUDA: the driver
// (libcuda.so.1) is opened at run time, so the mgsim executable builds and
// runs everywhere and `mgsim profile` can say plainly that there is no GPU.

#include <string>
#include <vector>

#include "mgsim/error.hpp"

namespace mgsim::profile {

/// No usable CUDA GPU (or too few for what was asked). main() reports it in
/// one line, "mgsim: error: no CUDA GPU found (...)", with exit code 2.
class DeviceError : public Error {
 public:
  using Error::Error;
};

struct CudaDevices {
  int driver_version = 0;  ///< e.g. 12040 for CUDA 12.4
  std::vector<std::string> names;
};

/// Opens `driver_library` (default libcuda.so.1), initialises it and lists
/// the devices. Throws DeviceError "no CUDA GPU found (<why>)" when the
/// driver is missing, fails to initialise or reports no device.
CudaDevices probe_cuda_devices(const std::string& driver_library = "libcuda.so.1");

}  // namespace mgsim::profile
