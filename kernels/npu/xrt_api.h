#pragma once
// The XRT calls the NPU device makes, as an interface, so one call sequence (xrt_sequence.cpp)
// runs over the stand-in device (xrt_standin.h: every rule checked, kernels computed by the
// emulator) in tests and, in the plugin, over XRT itself. Each call names the XRT C++ API call
// it stands for. The rules the sequence follows, from the working hosts — taconite's
// iron-xrt/iron_xrt_shim.cpp, mlir-aie's XRTHostRuntime and test_utils.cpp, IRON's Python
// runtime:
//   register_xclbin → hw_context → xrt::kernel(context, name from the bundle's xclbin record);
//   the instruction stream in a cacheable BO of group_id(1), written from the raw little-endian
//   uint32 words and synced to the device once, at load; data BOs host-only in group 0,
//   sub-buffers cut from the root allocation; inputs synced to the device before start,
//   outputs from it after; run(3, instruction BO, instruction size in bytes, data BOs…);
//   any state but ERT_CMD_STATE_COMPLETED is a failure.
// Traps guarded against: a run with no instruction buffer reports success and does nothing;
// more than 5 data BOs crashes inside XRT; 16 hardware-context slots system-wide; a third
// distinct xclbin context in one process has returned garbage marked COMPLETED (mlir-aie
// issue 3654), so a process keeps to 3.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/npu/npu_device.h"

namespace glance::kernels::npu {

enum class BoFlags : uint8_t { kHostOnly, kCacheable };      // XRT_BO_FLAGS_HOST_ONLY, XCL_BO_FLAGS_CACHEABLE
enum class SyncDirection : uint8_t { kToDevice, kFromDevice };  // XCL_BO_SYNC_BO_TO/FROM_DEVICE
enum class RunState : uint8_t { kCompleted, kError, kTimeout };  // ERT_CMD_STATE_*

inline constexpr unsigned kOpcodeTransaction = 3;  // "run this instruction stream"
inline constexpr size_t kMaxDataBos = 5;            // more crashes inside XRT
inline constexpr int kMaxContextsPerProcess = 3;    // mlir-aie issue 3654
inline constexpr int kHardwareContextSlots = 16;    // NPU2, shared by every process

class XrtApi {
 public:
  virtual ~XrtApi() = default;
  virtual int RegisterXclbin(const std::string& path) = 0;          // device.register_xclbin(xrt::xclbin(path))
  virtual int OpenContext(int xclbin) = 0;                           // xrt::hw_context(device, uuid)
  virtual int OpenKernel(int context, const std::string& name) = 0;  // xrt::kernel(context, name)
  virtual int KernelGroup(int kernel, int arg) = 0;                  // kernel.group_id(arg)
  virtual int AllocBo(size_t bytes, BoFlags flags, int group) = 0;   // xrt::bo(device, bytes, flags, group)
  virtual int SubBo(int parent, size_t offset, size_t bytes) = 0;    // xrt::bo(parent, bytes, offset)
  virtual void Write(int bo, const void* src, size_t bytes, size_t offset) = 0;  // bo.write
  virtual void Read(int bo, void* dst, size_t bytes, size_t offset) = 0;         // bo.read
  virtual void Sync(int bo, SyncDirection dir) = 0;                              // bo.sync(dir)
  // xrt::run(kernel) with set_arg(0..) = (opcode, instruction BO, instruction size, data BOs…),
  // start(); returns a run id.
  virtual int Start(int kernel, unsigned opcode, int instr_bo, uint32_t instr_bytes, const std::vector<int>& data_bos) = 0;
  virtual RunState Wait(int run) = 0;                                             // run.wait()
};

// The NPU device over `api`: the call sequence above for the bundle's kernels. Throws
// glance::Error naming the kernel on any failed step or state.
std::unique_ptr<NpuDevice> MakeSequenceDevice(std::unique_ptr<XrtApi> api, const std::vector<XrtKernelSpec>& specs,
                                              std::string name = "npu");

// The raw little-endian uint32 words of an instruction stream file; throws naming it.
std::vector<uint32_t> ReadInstructionWords(const std::string& path);

}  // namespace glance::kernels::npu
