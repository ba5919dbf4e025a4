#include <dlfcn.h>
#include <fmt/format.h>

#include "mgsim/profile/device.hpp"

namespace mgsim::profile {
namespace {

// The few driver API entry points needed, with their C signatures
// (cuda.h: CUresult is an int enum, CUdevice an int).
using CuInit = int (*)(unsigned int);
using CuDriverGetVersion = int (*)(int*);
using CuDeviceGetCount = int (*)(int*);
using CuDeviceGet = int (*)(int*, int);
using CuDeviceGetName = int (*)(char*, int, int);
using CuGetErrorName = int (*)(int, const char**);

class Driver {
 public:
  explicit Driver(const std::string& library) : handle_(dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    if (handle_ == nullptr) {
      throw DeviceError(fmt::format("no CUDA GPU found (no NVIDIA driver: {} cannot be loaded)", library));
    }
  }
  ~Driver() { dlclose(handle_); }
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  template <typename F>
  F symbol(const char* name) const {
    void* address = dlsym(handle_, name);
    if (address == nullptr) throw DeviceError(fmt::format("no CUDA GPU found (the driver lacks {})", name));
    return reinterpret_cast<F>(address);
  }

  /// "CUDA_ERROR_NO_DEVICE" for a result code, when the driver can name it.
  std::string error_name(int result) const {
    const char* name = nullptr;
    if (void* address = dlsym(handle_, "cuGetErrorName")) reinterpret_cast<CuGetErrorName>(address)(result, &name);
    return name != nullptr ? std::string(name) : fmt::format("error {}", result);
  }

 private:
  void* handle_;
};

}  // namespace

CudaDevices probe_cuda_devices(const std::string& driver_library) {
  const Driver driver(driver_library);
  if (const int result = driver.symbol<CuInit>("cuInit")(0); result != 0) {
    throw DeviceError(fmt::format("no CUDA GPU found (cuInit: {})", driver.error_name(result)));
  }
  CudaDevices devices;
  driver.symbol<CuDriverGetVersion>("cuDriverGetVersion")(&devices.driver_version);
  int count = 0;
  if (const int result = driver.symbol<CuDeviceGetCount>("cuDeviceGetCount")(&count); result != 0 || count == 0) {
    throw DeviceError(fmt::format("no CUDA GPU found (the driver reports {} devices{})", count,
                                  result != 0 ? ", " + driver.error_name(result) : std::string()));
  }
  const auto get = driver.symbol<CuDeviceGet>("cuDeviceGet");
  const auto get_name = driver.symbol<CuDeviceGetName>("cuDeviceGetName");
  for (int i = 0; i < count; ++i) {
    int device = 0;
    char name[256] = {};
    if (get(&device, i) == 0 && get_name(name, sizeof name, device) == 0) {
      devices.names.emplace_back(name);
    } else {
      devices.names.emplace_back("unknown");
    }
  }
  return devices;
}

}  // namespace mgsim::profile
