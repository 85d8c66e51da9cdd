// The XRT device (npu_device.h): the bundle's kernels on an AMD XDNA NPU through XRT's C++ API.
// Built only as the plugin libglance_npu_xrt.so (xrt_plugin.h), against XRT >= 2.18 (Debian
// sid's libxrt-dev 2.25 in CI: packaging/check-xrt.sh). The call sequence follows the published
// mlir-aie / IRON host code and the taconite crate's runtime:
//   xrt::device(0) → register_xclbin(xclbin) → one xrt::hw_context per context key (the
//   bundle's `ctx`: gemm, gemv, ...) → xrt::kernel(context, name); the instruction stream in a
//   cacheable BO of the kernel's group_id(1); A, B, C in host-only BOs of memory group 0
//   (taconite does the same: on XDNA every buffer is host memory the NPU reads through its
//   IOMMU, so the group is not a memory bank); run arguments (opcode 3, instruction BO,
//   instruction size, A, B, C).
// NOT RUN ON HARDWARE: no machine we build on has an NPU; CI compiles, links and runs it with
// no device present.
#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>
#include <xrt/xrt_hw_context.h>
#include <xrt/xrt_kernel.h>
#include <xrt/experimental/xrt_xclbin.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/kernel_error.h"
#include "kernels/npu/xrt_plugin.h"

#ifndef GLANCE_XRT_VERSION
#define GLANCE_XRT_VERSION "unknown"
#endif

namespace glance::kernels::npu {

namespace {

constexpr unsigned kOpcodeTransaction = 3;  // "run this instruction stream"

std::vector<uint32_t> ReadInstructions(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("NPU bundle: cannot read instruction stream " + path);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.empty() || bytes.size() % 4 != 0 || bytes.size() > (size_t{64} << 20))
    throw Error("NPU bundle: instruction stream " + path + " is not a whole number of 32-bit words (up to 64 MiB)");
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

struct LoadedKernel {
  XrtKernelSpec spec;
  xrt::kernel kernel;
  xrt::bo instr;
  xrt::bo a, c;  // sized for this kernel's rows; reused by every dispatch
  xrt::run run;  // built once, restarted
};

class XrtDevice final : public NpuDevice {
 public:
  explicit XrtDevice(const std::vector<XrtKernelSpec>& specs) : device_(0) {
    for (const XrtKernelSpec& s : specs) {
      if (!contexts_.count(s.context)) {
        xrt::xclbin xclbin(s.xclbin);
        device_.register_xclbin(xclbin);
        contexts_.emplace(s.context, xrt::hw_context(device_, xclbin.get_uuid()));
      }
      LoadedKernel k;
      k.spec = s;
      k.kernel = xrt::kernel(contexts_.at(s.context), s.kernel_name);
      const std::vector<uint32_t> words = ReadInstructions(s.insts);
      const size_t instr_bytes = words.size() * sizeof(uint32_t);
      k.instr = xrt::bo(device_, instr_bytes, XCL_BO_FLAGS_CACHEABLE, k.kernel.group_id(1));
      k.instr.write(words.data());
      k.instr.sync(XCL_BO_SYNC_BO_TO_DEVICE);
      const size_t rows = s.family == KernelFamily::kGemm ? static_cast<size_t>(s.chunks * kMChunk) : 1;
      k.a = xrt::bo(device_, rows * static_cast<size_t>(s.k) * 2, XRT_BO_FLAGS_HOST_ONLY, 0);
      k.c = xrt::bo(device_, rows * static_cast<size_t>(s.n) * 2, XRT_BO_FLAGS_HOST_ONLY, 0);
      k.run = xrt::run(k.kernel);
      k.run.set_arg(0, kOpcodeTransaction);
      k.run.set_arg(1, k.instr);
      // The instruction size, in BYTES. The amdxdna driver hands the firmware the instruction
      // buffer as (address, size in bytes) — ERT_START_NPU's payload, `struct
      // amdxdna_cmd_start_npu { u64 buffer; u32 buffer_size; /* size of buffer in bytes */ }`
      // in the driver's amdxdna_ctx.h — and IRON's Python runtime (whose flm kernels a bundle
      // holds) and the taconite runtime pass bytes here too. mlir-aie's C++ host examples pass
      // the word count (instr_v.size()) and also run, so this argument does not size the
      // stream the firmware reads; we follow the kernels' own toolchain.
      k.run.set_arg(2, static_cast<unsigned>(instr_bytes));
      k.run.set_arg(3, k.a);
      k.run.set_arg(5, k.c);
      max_chunks_ = std::max(max_chunks_, s.family == KernelFamily::kGemm ? s.chunks : 0);
      kernels_.push_back(std::move(k));
    }
  }
  std::string name() const override { return "npu"; }
  int64_t max_chunks() const override { return std::max<int64_t>(max_chunks_, 1); }
  bool HasKernel(KernelFamily family, int64_t k_pad, int64_t n_pad, const std::string& key) const override {
    for (const auto& k : kernels_)
      if (k.spec.family == family && k.spec.key == key && k.spec.k == k_pad && k.spec.n == n_pad) return true;
    return false;
  }
  int UploadWeight(PackedWeight w) override {
    std::lock_guard<std::mutex> lock(mutex_);
    xrt::bo bo(device_, w.bytes.size(), XRT_BO_FLAGS_HOST_ONLY, 0);
    bo.write(w.bytes.data());
    bo.sync(XCL_BO_SYNC_BO_TO_DEVICE);
    weights_.push_back({std::move(w), std::move(bo)});
    return static_cast<int>(weights_.size() - 1);
  }
  const PackedWeight& weight(int handle) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return weights_.at(static_cast<size_t>(handle)).packed;
  }
  const char* Run(KernelFamily family, int handle, const uint16_t* a, int64_t rows, uint16_t* c,
                  ThreadPool*, Epilogue epilogue, const std::string& key) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const Weight& w = weights_.at(static_cast<size_t>(handle));
    const int64_t chunks = family == KernelFamily::kGemm ? rows / kMChunk : 1;
    LoadedKernel* k = nullptr;
    for (auto& cand : kernels_)
      if (cand.spec.family == family && cand.spec.key == key && cand.spec.k == w.packed.k_pad &&
          cand.spec.n == w.packed.n_pad && (family == KernelFamily::kGemv || cand.spec.chunks == chunks))
        k = &cand;
    if (!k) throw Error("NPU: the bundle has no " + std::string(family == KernelFamily::kGemm ? "gemm " : "gemv ") + key +
                        " record for " + std::to_string(chunks) + " chunks of " + std::to_string(w.packed.k_pad) + "×" +
                        std::to_string(w.packed.n_pad));
    const size_t a_bytes = static_cast<size_t>(rows * w.packed.k_pad) * 2;
    // The paired epilogue (the gu kernel's, built in) stores half the columns.
    const int64_t c_cols = epilogue == Epilogue::kSwiGluPairs ? w.packed.n_pad / 2 : w.packed.n_pad;
    const size_t c_bytes = static_cast<size_t>(rows * c_cols) * 2;
    k->a.write(a, a_bytes, 0);
    k->a.sync(XCL_BO_SYNC_BO_TO_DEVICE, a_bytes, 0);
    k->run.set_arg(4, w.bo);
    k->run.start();
    const ert_cmd_state state = k->run.wait();
    if (state != ERT_CMD_STATE_COMPLETED)
      throw Error("NPU: the " + std::string(family == KernelFamily::kGemm ? "GEMM" : "GEMV") + " " +
                  std::to_string(k->spec.k) + "×" + std::to_string(k->spec.n) + " run ended in state " +
                  std::to_string(static_cast<int>(state)) + ", not completed (" +
                  std::to_string(static_cast<int>(ERT_CMD_STATE_COMPLETED)) + ")");
    k->c.sync(XCL_BO_SYNC_BO_FROM_DEVICE, c_bytes, 0);
    k->c.read(c, c_bytes, 0);
    return family == KernelFamily::kGemm ? "gemm" : "gemv";
  }

 private:
  struct Weight {
    PackedWeight packed;
    xrt::bo bo;
  };
  xrt::device device_;
  std::map<std::string, xrt::hw_context> contexts_;  // one per context key
  std::vector<LoadedKernel> kernels_;
  std::vector<Weight> weights_;
  int64_t max_chunks_ = 0;
  mutable std::mutex mutex_;
};

NpuDevice* MakeDevice(const XrtKernelSpec* specs, size_t count, std::string* error) {
  try {
    return new XrtDevice(std::vector<XrtKernelSpec>(specs, specs + count));
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
