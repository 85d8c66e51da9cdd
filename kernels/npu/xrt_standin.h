#pragma once
// The stand-in NPU behind the XRT seam (xrt_api.h): the dispatch contract as data — xclbins,
// hardware contexts (at most 3 per process, 16 slots system-wide), kernels by name, BOs with
// flags, groups, sub-buffers and sync state, runs with their argument lists — every rule
// checked, and each run computed by the emulator (emulate_gemm.h) from what its instruction
// BO holds. A broken rule throws StandinViolation naming it; the device never computes on
// inputs the real one would not have seen (an unsynced write, a missing instruction stream).
// What it cannot prove: the kernels' arithmetic and timing on silicon.
#include <map>
#include <string>
#include <vector>

#include "kernels/kernel_error.h"
#include "kernels/npu/xrt_api.h"

namespace glance::kernels::npu {

class StandinViolation : public Error {
 public:
  using Error::Error;
};

struct StandinOptions {
  int slots_in_use_elsewhere = 0;  // hardware-context slots other processes hold
  int fail_run = -1;               // the n-th run (0-based) ends in RunState::kError (a device fault)
};

class StandinXrt final : public XrtApi {
 public:
  // `catalog`: the bundle's kernel records — which kernel names each xclbin holds and what each
  // instruction stream computes (read from the records' insts files).
  explicit StandinXrt(const std::vector<XrtKernelSpec>& catalog, StandinOptions options = {});
  int RegisterXclbin(const std::string& path) override;
  int OpenContext(int xclbin) override;
  int OpenKernel(int context, const std::string& name) override;
  int KernelGroup(int kernel, int arg) override;
  int AllocBo(size_t bytes, BoFlags flags, int group) override;
  int SubBo(int parent, size_t offset, size_t bytes) override;
  void Write(int bo, const void* src, size_t bytes, size_t offset) override;
  void Read(int bo, void* dst, size_t bytes, size_t offset) override;
  void Sync(int bo, SyncDirection dir) override;
  int Start(int kernel, unsigned opcode, int instr_bo, uint32_t instr_bytes, const std::vector<int>& data_bos) override;
  RunState Wait(int run) override;

  int runs() const { return static_cast<int>(runs_.size()); }
  int contexts() const { return static_cast<int>(contexts_.size()); }

 private:
  struct Stream {
    XrtKernelSpec spec;
    std::vector<uint32_t> words;
  };
  struct Bo {
    int root = -1;  // itself for a root allocation
    size_t offset = 0, bytes = 0;
    BoFlags flags = BoFlags::kHostOnly;
    int group = 0;
  };
  struct Root {
    std::vector<uint8_t> host, device;  // the host's copy and what the device sees
    bool host_newer = false;            // written since the last sync to the device
    bool device_newer = false;          // written by a run since the last sync from it
  };
  const Bo& BoAt(int bo, const char* what) const;
  [[noreturn]] void Violate(const std::string& rule) const;

  std::vector<Stream> streams_;
  std::vector<std::string> xclbins_;       // registered paths
  std::vector<int> contexts_;              // → xclbin index
  std::vector<std::pair<int, std::string>> kernels_;  // (context, name)
  std::vector<Bo> bos_;
  std::map<int, Root> roots_;
  std::vector<bool> runs_;                 // waited on
  std::vector<RunState> states_;
  StandinOptions options_;
};

}  // namespace glance::kernels::npu
