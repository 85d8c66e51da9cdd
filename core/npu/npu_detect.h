#pragma once
// Whether this machine can run the NPU backend, as a checklist (issue 6 §5). `auto` picks the
// NPU only when every check passes; `glance-cli npu-status` and the GUI show each with why.
//
// Every path is read under `root` (default "/") so tests run the logic against fake /dev and
// /sys trees in a temporary folder; the XRT checks and the memlock limit are injectable too.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace glance::npu {

struct NpuCheck {
  std::string name;    // "device node", "driver", "PCI id", ...
  bool passed = false;
  std::string detail;  // what was found, or what to do
};

struct DetectOptions {
  std::string root = "/";
  std::string bundle_dir;  // empty: the bundle checks fail with "no bundle given"
  // RLIMIT_MEMLOCK soft limit; -1: ask getrlimit. (RLIM_INFINITY counts as unlimited.)
  int64_t memlock_limit = -1;
  // Hooks for tests; empty: the real XRT (only in builds with XRT).
  std::function<bool(std::string* why)> xrt_device_opens;
  std::function<bool(std::string* why)> hw_context_free;
};

struct NpuStatus {
  std::vector<NpuCheck> checks;
  bool ready() const;
  // The first failing check as "name: detail", or "all checks passed".
  std::string summary() const;
};

NpuStatus DetectNpu(const DetectOptions& options);

// AMD XDNA NPU PCI device ids (vendor 0x1022) the amdxdna driver binds.
const std::vector<uint16_t>& KnownNpuPciIds();

}  // namespace glance::npu
