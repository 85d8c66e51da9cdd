#include "core/npu/npu_detect.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <cstdio>
#include <sstream>

#include "core/npu/npu_bundle.h"
#include "core/npu/bundle_kernels.h"
#include "kernels/npu/npu_device.h"

namespace glance::npu {

namespace fs = std::filesystem;

const std::vector<uint16_t>& KnownNpuPciIds() {
  // 0x1502: Phoenix / Hawk Point (NPU1); 0x17f0: Strix / Strix Halo / Krackan (NPU4/5/6).
  static const std::vector<uint16_t> ids = {0x1502, 0x17f0};
  return ids;
}

namespace {

fs::path Under(const std::string& root, const std::string& abs) {
  return fs::path(root) / fs::path(abs).relative_path();
}

std::string ReadTrimmed(const fs::path& p) {
  std::ifstream f(p);
  std::string s;
  std::getline(f, s);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string Hex4(uint16_t v) {
  char b[8];
  std::snprintf(b, sizeof b, "%04x", v);
  return b;
}

}  // namespace

bool NpuStatus::ready() const {
  for (const auto& c : checks)
    if (!c.passed) return false;
  return !checks.empty();
}

std::string NpuStatus::summary() const {
  for (const auto& c : checks)
    if (!c.passed) return c.name + ": " + c.detail;
  return "all checks passed";
}

NpuStatus DetectNpu(const DetectOptions& o) {
  NpuStatus st;
  auto add = [&](std::string name, bool ok, std::string detail) {
    st.checks.push_back({std::move(name), ok, std::move(detail)});
  };
  std::error_code ec;

  // 1. The accel device node, present and openable by this user.
  const fs::path node = Under(o.root, "/dev/accel/accel0");
  if (!fs::exists(node, ec)) {
    add("device node", false, node.string() + " is missing (no NPU, or the amdxdna driver is not bound)");
  } else {
    const int fd = ::open(node.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) add("device node", false, node.string() + " exists but cannot be opened (add yourself to the 'render' group)");
    else {
      ::close(fd);
      add("device node", true, node.string() + " opens");
    }
  }

  // 2. The driver module.
  bool module = fs::exists(Under(o.root, "/sys/module/amdxdna"), ec);
  if (!module) {
    std::ifstream mods(Under(o.root, "/proc/modules"));
    for (std::string line; std::getline(mods, line);)
      if (line.rfind("amdxdna ", 0) == 0) module = true;
  }
  add("driver", module, module ? "amdxdna loaded" : "amdxdna is not loaded (Linux >= 6.14, or `modprobe amdxdna`)");

  // 3. A PCI function with an AMD NPU id.
  uint16_t found_id = 0;
  for (const auto& dev : fs::directory_iterator(Under(o.root, "/sys/bus/pci/devices"), ec)) {
    if (ReadTrimmed(dev.path() / "vendor") != "0x1022") continue;
    const std::string id = ReadTrimmed(dev.path() / "device");
    for (uint16_t known : KnownNpuPciIds())
      if (id == "0x" + Hex4(known)) found_id = known;
  }
  add("PCI id", found_id != 0,
      found_id ? "1022:" + Hex4(found_id) : "no AMD NPU (1022:1502 or 1022:17f0) on the PCI bus");

  // 4. Firmware for that device: /lib/firmware/amdnpu/<id>_<rev>/npu.sbin[.zst|.xz].
  bool firmware = false;
  std::string fw_where = "no NPU to look for firmware for";
  if (found_id) {
    fw_where = Under(o.root, "/lib/firmware/amdnpu").string() + "/" + Hex4(found_id) + "_*/npu.sbin missing (install linux-firmware)";
    for (const auto& d : fs::directory_iterator(Under(o.root, "/lib/firmware/amdnpu"), ec)) {
      if (d.path().filename().string().rfind(Hex4(found_id) + "_", 0) != 0) continue;
      for (const char* f : {"npu.sbin", "npu.sbin.zst", "npu.sbin.xz"})
        if (fs::exists(d.path() / f, ec)) {
          firmware = true;
          fw_where = (d.path() / f).string();
        }
    }
  }
  add("firmware", firmware, fw_where);

  // 5. The bundle (version) and 6. the memlock limit it needs (host_only buffers are pinned).
  uint64_t bundle_bytes = 0;
  if (o.bundle_dir.empty()) {
    add("bundle", false, "no NPU bundle given (glance-cli npu-export, plus IRON's kernels)");
  } else {
    try {
      const NpuBundle b = NpuBundle::Open(o.bundle_dir);
      bundle_bytes = b.weight_bytes();
      const std::vector<std::string> missing = b.MissingKernelFiles();
      if (b.kernels().empty())
        add("bundle", false, o.bundle_dir + " has weights but no kernel records (add IRON's kernels; kernels/npu/README.md)");
      else if (b.param("kernels") == kPlaceholderKernels)  // bundle_kernels.h: for the stand-in only
        add("bundle", false, o.bundle_dir + " has npu-export's placeholder kernels, which only the stand-in device runs "
                                            "(--backend npu-emu); an NPU needs IRON's compiled kernels (kernels/npu/README.md)");
      else if (!missing.empty())
        add("bundle", false, o.bundle_dir + ": kernel file " + missing.front() + " is missing" +
                                 (missing.size() > 1 ? " (and " + std::to_string(missing.size() - 1) + " more)" : ""));
      else
        add("bundle", true, "version " + std::to_string(kBundleVersion) + ", " + std::to_string(b.kernels().size()) + " kernels");
    } catch (const std::exception& e) {
      add("bundle", false, e.what());
    }
  }
  int64_t limit = o.memlock_limit;
  if (limit < 0) {
    rlimit rl{};
    limit = getrlimit(RLIMIT_MEMLOCK, &rl) == 0
                ? (rl.rlim_cur == RLIM_INFINITY ? INT64_MAX : static_cast<int64_t>(rl.rlim_cur)) : 0;
  }
  const bool memlock_ok = bundle_bytes > 0 && static_cast<uint64_t>(limit) >= bundle_bytes;
  add("memlock limit", memlock_ok,
      bundle_bytes == 0 ? "unknown without a bundle"
      : memlock_ok      ? std::to_string(limit) + " bytes >= bundle " + std::to_string(bundle_bytes)
                        : "RLIMIT_MEMLOCK " + std::to_string(limit) + " < bundle " + std::to_string(bundle_bytes) +
                              " bytes (raise it: `ulimit -l unlimited` or /etc/security/limits.conf)");

  // 7. XRT loadable and xrt::device(0); 8. a hardware-context slot free.
  std::string why;
  const bool xrt = o.xrt_device_opens ? o.xrt_device_opens(&why) : kernels::npu::XrtDeviceOpens(&why);
  add("XRT", xrt, why);
  std::string slot_why = "not tried: XRT is unavailable";
  bool slot = false;
  if (xrt) {
    if (o.hw_context_free) slot = o.hw_context_free(&slot_why);
    else slot_why = "checked when the bundle's contexts are created at load", slot = true;
  }
  add("hardware context", slot, slot_why);
  return st;
}

}  // namespace glance::npu
