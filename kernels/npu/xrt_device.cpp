// The XRT device (npu_device.h): the bundle's kernels on an AMD XDNA NPU through XRT's C++ API.
// Built only as the plugin libglance_npu_xrt.so (xrt_plugin.h), against XRT >= 2.18 (Debian
// sid's libxrt-dev 2.25 in CI: packaging/check-xrt.sh). The call sequence is xrt_sequence.cpp's
// — the one the stand-in device checks rule by rule in the tests (xrt_standin.h) — and this file
// is only its XRT calls (XrtApi), each the call xrt_api.h names:
//   xrt::device(0) → register_xclbin(xclbin) → xrt::hw_context per context key →
//   xrt::kernel(context, name); BOs with their flags and group (instruction: cacheable in the
//   kernel's group_id(1); data: host-only in group 0, the group not a memory bank on XDNA,
//   where every buffer is host memory the NPU reads through its IOMMU, as taconite does);
//   sub-buffers xrt::bo(parent, size, offset); runs with (opcode 3, instruction BO, instruction
//   size, data BOs); run.wait()'s state.
// NOT RUN ON HARDWARE: no machine we build on has an NPU; CI compiles, links and runs it with
// no device present.
#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>
#include <xrt/xrt_hw_context.h>
#include <xrt/xrt_kernel.h>
#include <xrt/experimental/xrt_xclbin.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/kernel_error.h"
#include "kernels/npu/xrt_api.h"
#include "kernels/npu/xrt_plugin.h"

#ifndef GLANCE_XRT_VERSION
#define GLANCE_XRT_VERSION "unknown"
#endif

namespace glance::kernels::npu {

namespace {

class XrtCalls final : public XrtApi {
 public:
  XrtCalls() : device_(0) {}
  int RegisterXclbin(const std::string& path) override {
    xclbins_.emplace_back(path);
    device_.register_xclbin(xclbins_.back());
    return static_cast<int>(xclbins_.size() - 1);
  }
  int OpenContext(int xclbin) override {
    contexts_.emplace_back(device_, xclbins_.at(static_cast<size_t>(xclbin)).get_uuid());
    return static_cast<int>(contexts_.size() - 1);
  }
  int OpenKernel(int context, const std::string& name) override {
    kernels_.emplace_back(contexts_.at(static_cast<size_t>(context)), name);
    return static_cast<int>(kernels_.size() - 1);
  }
  int KernelGroup(int kernel, int arg) override { return kernels_.at(static_cast<size_t>(kernel)).group_id(arg); }
  int AllocBo(size_t bytes, BoFlags flags, int group) override {
    // The group as the kernel reports it (group_id), 0 for data.
    if (flags == BoFlags::kCacheable) {
      bos_.emplace_back(device_, bytes, XCL_BO_FLAGS_CACHEABLE, group);
    } else {
      bos_.emplace_back(device_, bytes, XRT_BO_FLAGS_HOST_ONLY, group);
    }
    return static_cast<int>(bos_.size() - 1);
  }
  int SubBo(int parent, size_t offset, size_t bytes) override {
    const xrt::bo root = bos_.at(static_cast<size_t>(parent));  // a copy: emplace_back may reallocate
    bos_.emplace_back(root, bytes, offset);
    return static_cast<int>(bos_.size() - 1);
  }
  void Write(int bo, const void* src, size_t bytes, size_t offset) override {
    bos_.at(static_cast<size_t>(bo)).write(src, bytes, offset);
  }
  void Read(int bo, void* dst, size_t bytes, size_t offset) override {
    bos_.at(static_cast<size_t>(bo)).read(dst, bytes, offset);
  }
  void Sync(int bo, SyncDirection dir) override {
    bos_.at(static_cast<size_t>(bo))
        .sync(dir == SyncDirection::kToDevice ? XCL_BO_SYNC_BO_TO_DEVICE : XCL_BO_SYNC_BO_FROM_DEVICE);
  }
  int Start(int kernel, unsigned opcode, int instr_bo, uint32_t instr_bytes, const std::vector<int>& data_bos) override {
    if (instr_bo < 0) throw Error("NPU: a run with no instruction buffer (XRT would report success and do nothing)");
    if (data_bos.size() > kMaxDataBos) throw Error("NPU: more than 5 data buffers crash inside XRT");
    xrt::run run(kernels_.at(static_cast<size_t>(kernel)));
    run.set_arg(0, opcode);
    run.set_arg(1, bos_.at(static_cast<size_t>(instr_bo)));
    // The instruction size, in BYTES. The amdxdna driver hands the firmware the instruction
    // buffer as (address, size in bytes) — ERT_START_NPU's payload, `struct
    // amdxdna_cmd_start_npu { u64 buffer; u32 buffer_size; /* size of buffer in bytes */ }`
    // in the driver's amdxdna_ctx.h — and IRON's Python runtime (whose flm kernels a bundle
    // holds) and the taconite runtime pass bytes here too. mlir-aie's C++ host examples pass
    // the word count (instr_v.size()) and also run, so this argument does not size the
    // stream the firmware reads; we follow the kernels' own toolchain.
    run.set_arg(2, static_cast<unsigned>(instr_bytes));
    for (size_t i = 0; i < data_bos.size(); ++i)
      run.set_arg(static_cast<int>(3 + i), bos_.at(static_cast<size_t>(data_bos[i])));
    run.start();
    const int id = next_run_++;
    runs_.emplace(id, std::move(run));
    return id;
  }
  RunState Wait(int run) override {
    const auto it = runs_.find(run);
    if (it == runs_.end()) throw Error("NPU: wait on a run never started");
    const ert_cmd_state state = it->second.wait();
    runs_.erase(it);
    return state == ERT_CMD_STATE_COMPLETED ? RunState::kCompleted : RunState::kError;
  }

 private:
  xrt::device device_;
  std::vector<xrt::xclbin> xclbins_;
  std::vector<xrt::hw_context> contexts_;
  std::vector<xrt::kernel> kernels_;
  std::vector<xrt::bo> bos_;
  std::map<int, xrt::run> runs_;
  int next_run_ = 0;
};

NpuDevice* MakeDevice(const XrtKernelSpec* specs, size_t count, std::string* error) {
  try {
    return MakeSequenceDevice(std::make_unique<XrtCalls>(), std::vector<XrtKernelSpec>(specs, specs + count)).release();
  } catch (const std::exception& e) {
    if (error) *error = std::string("XRT failed while loading the bundle's kernels: ") + e.what();
    return nullptr;
  }
}

bool DeviceOpens(std::string* why) {
  try {
    xrt::device d(0);
    if (why) *why = "xrt::device(0) opened";
    return true;
  } catch (const std::exception& e) {
    if (why) *why = std::string("xrt::device(0) failed: ") + e.what();
    return false;
  }
}

const XrtPlugin kPlugin{kXrtPluginAbi, GLANCE_XRT_VERSION, &MakeDevice, &DeviceOpens};

}  // namespace

}  // namespace glance::kernels::npu

extern "C" __attribute__((visibility("default"))) const glance::kernels::npu::XrtPlugin* glance_npu_xrt_plugin() {
  return &glance::kernels::npu::kPlugin;
}
