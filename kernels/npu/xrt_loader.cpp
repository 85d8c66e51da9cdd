// Loads the XRT plugin (xrt_plugin.h) with dlopen and routes MakeXrtDevice / XrtDeviceOpens
// through it. Always built: a Glance without the plugin (or without XRT's libraries) says so
// in npu-status and `auto` runs on the CPU.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/kernel_error.h"
#include "kernels/npu/xrt_plugin.h"

namespace glance::kernels::npu {

namespace {

std::vector<std::string> Candidates() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("GLANCE_NPU_XRT_PLUGIN"); env && *env) return {env};
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    out.push_back((exe.parent_path() / kXrtPluginFile).string());
    out.push_back((exe.parent_path().parent_path() / "lib" / "glance" / kXrtPluginFile).string());
  }
  out.push_back(kXrtPluginFile);  // LD_LIBRARY_PATH, ld.so.cache
  return out;
}

struct Loaded {
  const XrtPlugin* plugin = nullptr;
  std::string why;
};

Loaded Load() {
  Loaded l;
  std::string tried;
  for (const std::string& path : Candidates()) {
    const bool explicit_path = path.find('/') != std::string::npos;
    if (explicit_path && !std::filesystem::exists(path)) continue;
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      tried = e ? e : path + ": cannot be loaded";
      if (explicit_path) break;  // found but not loadable (XRT's libraries missing): say why
      continue;
    }
    auto entry = reinterpret_cast<XrtPluginEntry>(dlsym(h, kXrtPluginEntry));
    const XrtPlugin* p = entry ? entry() : nullptr;
    if (!p || p->abi != kXrtPluginAbi || !p->make_device || !p->device_opens) {
      l.why = path + " is not a Glance XRT plugin of this version (ABI " + std::to_string(kXrtPluginAbi) +
              "); reinstall Glance's NPU plugin";
      dlclose(h);
      return l;
    }
    l.plugin = p;  // kept loaded for the process's life
    return l;
  }
  l.why = "the NPU plugin " + std::string(kXrtPluginFile) + " is not loadable" + (tried.empty() ? " (not installed)" : ": " + tried) +
          " — it needs XRT >= 2.18 with the XDNA driver (libxrt_coreutil.so.2; kernels/npu/README.md)";
  return l;
}

}  // namespace

const XrtPlugin* LoadXrtPlugin(std::string* why) {
  static const Loaded loaded = Load();
  if (!loaded.plugin && why) *why = loaded.why;
  return loaded.plugin;
}

std::unique_ptr<NpuDevice> MakeXrtDevice(const std::vector<XrtKernelSpec>& kernels) {
  std::string why;
  const XrtPlugin* p = LoadXrtPlugin(&why);
  if (!p) throw Error("NPU: " + why);
  std::string error;
  NpuDevice* d = p->make_device(kernels.data(), kernels.size(), &error);
  if (!d) throw Error("NPU: " + error);
  return std::unique_ptr<NpuDevice>(d);
}

bool XrtCompiledIn() { return LoadXrtPlugin(nullptr) != nullptr; }

bool XrtDeviceOpens(std::string* why) {
  const XrtPlugin* p = LoadXrtPlugin(why);
  if (!p) return false;
  std::string w;
  const bool ok = p->device_opens(&w);
  if (why) *why = std::string("XRT ") + p->xrt_version + ": " + w;
  return ok;
}

}  // namespace glance::kernels::npu
