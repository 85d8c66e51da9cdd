#pragma once
// The XRT dispatch ships as a plugin, libglance_npu_xrt.so (xrt_device.cpp, linked against
// libxrt_coreutil), that Glance loads at run time with dlopen (xrt_loader.cpp): a user who
// installs XRT gets the NPU path without rebuilding Glance, and a machine without XRT never
// needs its libraries. The plugin is built from this source tree with the same compiler as
// Glance (it passes C++ types: XrtKernelSpec, NpuDevice), so its ABI version must match.
#include <cstddef>
#include <string>

#include "kernels/npu/npu_device.h"

namespace glance::kernels::npu {

inline constexpr int kXrtPluginAbi = 3;  // 2: NpuDevice::Run takes the epilogue; 3: TransferSeconds
inline constexpr const char* kXrtPluginFile = "libglance_npu_xrt.so";
inline constexpr const char* kXrtPluginEntry = "glance_npu_xrt_plugin";

struct XrtPlugin {
  int abi = kXrtPluginAbi;
  const char* xrt_version = "";  // the XRT it was built against
  // Opens the device and loads the kernels; null with *error set on failure. Never throws.
  NpuDevice* (*make_device)(const XrtKernelSpec* specs, size_t count, std::string* error) = nullptr;
  // Whether xrt::device(0) opens, and why not. Never throws.
  bool (*device_opens)(std::string* why) = nullptr;
};

// The plugin's entry point: extern "C" const XrtPlugin* glance_npu_xrt_plugin();
using XrtPluginEntry = const XrtPlugin* (*)();

// The loaded plugin, or null with *why saying what failed (file not found, libxrt_coreutil
// missing, ABI mismatch). Looked up once: $GLANCE_NPU_XRT_PLUGIN, then next to the executable
// and in <exe>/../lib/glance/, then the dynamic linker's search path.
const XrtPlugin* LoadXrtPlugin(std::string* why);

}  // namespace glance::kernels::npu
