// The XRT device (npu_device.h): the bundle's kernels on an AMD XDNA NPU through XRT.
// Built only when CMake finds a modern XRT (>= 2.18, with xrt/xrt_hw_context.h); see
// kernels/npu/README.md. The call sequence follows the published mlir-aie/IRON host code:
//   xrt::device(0) → register_xclbin(xclbin) → one xrt::hw_context per kernel family
//   (prefill GEMM, decode GEMV, vision GEMM) → xrt::kernel(context, name);
//   instruction stream in a cacheable BO of group_id(1); A, B, C in host_only BOs of
//   group_id(3..5); run arguments (opcode 3, instruction BO, instruction words, A, B, C).
// Runs are built once per kernel and restarted with new B / sub-buffer views of A and C.
// NOT VERIFIED ON HARDWARE: no machine we build on has an NPU.
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>
#include <xrt/xrt_hw_context.h>
#include <xrt/xrt_kernel.h>

#include "core/util/error.h"
#include "kernels/npu/npu_device.h"

namespace glance::kernels::npu {

namespace {

constexpr unsigned kOpcodeTransaction = 3;  // "run this instruction stream"

std::vector<uint32_t> ReadInstructions(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("NPU bundle: cannot read instruction stream " + path);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.empty() || bytes.size() % 4 != 0)
    throw Error("NPU bundle: instruction stream " + path + " is not a whole number of 32-bit words");
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

struct LoadedKernel {
  XrtKernelSpec spec;
  xrt::kernel kernel;
  xrt::bo instr;
  size_t instr_words = 0;
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
      k.instr_words = words.size();
      k.instr = xrt::bo(device_, words.size() * 4, XCL_BO_FLAGS_CACHEABLE, k.kernel.group_id(1));
      k.instr.write(words.data());
      k.instr.sync(XCL_BO_SYNC_BO_TO_DEVICE);
      const size_t rows = s.family == KernelFamily::kGemm ? static_cast<size_t>(s.chunks * kMChunk) : 1;
      k.a = xrt::bo(device_, rows * static_cast<size_t>(s.k) * 2, XRT_BO_FLAGS_HOST_ONLY, k.kernel.group_id(3));
      k.c = xrt::bo(device_, rows * static_cast<size_t>(s.n) * 2, XRT_BO_FLAGS_HOST_ONLY, k.kernel.group_id(5));
      k.run = xrt::run(k.kernel);
      k.run.set_arg(0, kOpcodeTransaction);
      k.run.set_arg(1, k.instr);
      k.run.set_arg(2, static_cast<unsigned>(k.instr_words));
      k.run.set_arg(3, k.a);
      k.run.set_arg(5, k.c);
      max_chunks_ = std::max(max_chunks_, s.family == KernelFamily::kGemm ? s.chunks : 0);
      kernels_.push_back(std::move(k));
    }
  }
  std::string name() const override { return "npu"; }
  int64_t max_chunks() const override { return std::max<int64_t>(max_chunks_, 1); }
  bool HasKernel(KernelFamily family, int64_t k_pad, int64_t n_pad) const override {
    for (const auto& k : kernels_)
      if (k.spec.family == family && k.spec.k == k_pad && k.spec.n == n_pad) return true;
    return false;
  }
  int UploadWeight(PackedWeight w) override {
    std::lock_guard<std::mutex> lock(mutex_);
    // The B buffer must share a memory bank with the kernels that read it: group_id(4) of any
    // kernel of this shape (they all come from the bundle's xclbins).
    const LoadedKernel* any = nullptr;
    for (const auto& k : kernels_)
      if (k.spec.k == w.k_pad && k.spec.n == w.n_pad) any = &k;
    if (!any) throw Error("NPU: no kernel in the bundle for a " + std::to_string(w.k_pad) + "×" +
                          std::to_string(w.n_pad) + " weight");
    xrt::bo bo(device_, w.bytes.size(), XRT_BO_FLAGS_HOST_ONLY, any->kernel.group_id(4));
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
                  ThreadPool*) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const Weight& w = weights_.at(static_cast<size_t>(handle));
    const int64_t chunks = family == KernelFamily::kGemm ? rows / kMChunk : 1;
    LoadedKernel* k = nullptr;
    for (auto& cand : kernels_)
      if (cand.spec.family == family && cand.spec.k == w.packed.k_pad &&
          cand.spec.n == w.packed.n_pad && (family == KernelFamily::kGemv || cand.spec.chunks == chunks))
        k = &cand;
    if (!k) throw Error("NPU: no instruction stream for " + std::to_string(chunks) + " chunks of this shape");
    const size_t a_bytes = static_cast<size_t>(rows * w.packed.k_pad) * 2;
    const size_t c_bytes = static_cast<size_t>(rows * w.packed.n_pad) * 2;
    k->a.write(a, a_bytes, 0);
    k->a.sync(XCL_BO_SYNC_BO_TO_DEVICE, a_bytes, 0);
    k->run.set_arg(4, w.bo);
    k->run.start();
    k->run.wait();
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
  std::map<std::string, xrt::hw_context> contexts_;  // one per kernel family
  std::vector<LoadedKernel> kernels_;
  std::vector<Weight> weights_;
  int64_t max_chunks_ = 0;
  mutable std::mutex mutex_;
};

}  // namespace

std::unique_ptr<NpuDevice> MakeXrtDevice(const std::vector<XrtKernelSpec>& kernels) {
  try {
    return std::make_unique<XrtDevice>(kernels);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(std::string("NPU: XRT failed while loading the bundle's kernels: ") + e.what());
  }
}

bool XrtCompiledIn() { return true; }

bool XrtDeviceOpens(std::string* why) {
  try {
    xrt::device d(0);
    if (why) *why = "xrt::device(0) opened";
    return true;
  } catch (const std::exception& e) {
    if (why) *why = std::string("xrt::device(0) failed: ") + e.what();
    return false;
  }
}

}  // namespace glance::kernels::npu
