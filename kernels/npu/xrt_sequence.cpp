// The NPU device's XRT call sequence over an XrtApi (xrt_api.h): the stand-in in tests, XRT in
// the plugin. Per kernel record: its xclbin registered and a hardware context opened once per
// context key, the kernel opened by the record's name, its instruction stream in a cacheable BO
// of the kernel's group_id(1) synced once; A and C in host-only root BOs of group 0 sized for
// the record's rows, each dispatch through sub-buffers cut from them (taconite model.rs
// run_gemm: `a.sub(col, a_elems)`, `c.sub(0, c_elems)`); weights in host-only BOs synced at
// upload. A dispatch: A written and synced to the device, run(3, instructions, size in bytes,
// A, W, C), the state checked, C synced from the device and read.
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>

#include "kernels/kernel_error.h"
#include "kernels/npu/xrt_api.h"

namespace glance::kernels::npu {

std::vector<uint32_t> ReadInstructionWords(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("NPU bundle: cannot read instruction stream " + path);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.empty() || bytes.size() % 4 != 0 || bytes.size() > (size_t{64} << 20))
    throw Error("NPU bundle: instruction stream " + path + " is not a whole number of 32-bit words (up to 64 MiB)");
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());  // little-endian on every XDNA host
  return words;
}

namespace {

class SequenceDevice final : public NpuDevice {
 public:
  SequenceDevice(std::unique_ptr<XrtApi> api, const std::vector<XrtKernelSpec>& specs, std::string name)
      : api_(std::move(api)), name_(std::move(name)) {
    std::map<std::string, int> contexts;
    for (const XrtKernelSpec& s : specs) {
      auto ctx = contexts.find(s.context);
      if (ctx == contexts.end()) ctx = contexts.emplace(s.context, api_->OpenContext(api_->RegisterXclbin(s.xclbin))).first;
      Kernel k;
      k.spec = s;
      k.kernel = api_->OpenKernel(ctx->second, s.kernel_name);
      const std::vector<uint32_t> words = ReadInstructionWords(s.insts);
      k.instr_bytes = static_cast<uint32_t>(words.size() * sizeof(uint32_t));
      k.instr = api_->AllocBo(k.instr_bytes, BoFlags::kCacheable, api_->KernelGroup(k.kernel, 1));
      api_->Write(k.instr, words.data(), k.instr_bytes, 0);
      api_->Sync(k.instr, SyncDirection::kToDevice);
      const size_t rows = s.family == KernelFamily::kGemm ? static_cast<size_t>(s.chunks * kMChunk) : 1;
      const size_t a_bytes = rows * static_cast<size_t>(s.k) * 2;
      const size_t c_bytes = rows * static_cast<size_t>(s.epilogue == Epilogue::kSwiGluPairs ? s.n / 2 : s.n) * 2;
      k.a = api_->AllocBo(a_bytes, BoFlags::kHostOnly, 0);
      k.c = api_->AllocBo(rows * static_cast<size_t>(s.n) * 2, BoFlags::kHostOnly, 0);
      // The views a dispatch reads and writes, cut once from the roots (a view of a view is
      // refused by XRT's rules: xrt_api.h).
      k.a_view = api_->SubBo(k.a, 0, a_bytes);
      k.c_view = api_->SubBo(k.c, 0, c_bytes);
      max_chunks_ = std::max(max_chunks_, s.family == KernelFamily::kGemm ? s.chunks : 0);
      kernels_.push_back(k);
    }
  }
  std::string name() const override { return name_; }
  int64_t max_chunks() const override { return std::max<int64_t>(max_chunks_, 1); }
  bool HasKernel(KernelFamily family, int64_t k_pad, int64_t n_pad, const std::string& key) const override {
    for (const auto& k : kernels_)
      if (k.spec.family == family && k.spec.key == key && k.spec.k == k_pad && k.spec.n == n_pad) return true;
    return false;
  }
  int UploadWeight(PackedWeight w) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const int bo = api_->AllocBo(w.bytes.size(), BoFlags::kHostOnly, 0);
    api_->Write(bo, w.bytes.data(), w.bytes.size(), 0);
    api_->Sync(bo, SyncDirection::kToDevice);
    weights_.push_back({std::make_unique<PackedWeight>(std::move(w)), bo});
    return static_cast<int>(weights_.size() - 1);
  }
  const PackedWeight& weight(int handle) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (handle < 0 || static_cast<size_t>(handle) >= weights_.size()) throw Error("NPU: no weight with handle " + std::to_string(handle));
    return *weights_[static_cast<size_t>(handle)].packed;
  }
  const char* Run(KernelFamily family, int handle, const uint16_t* a, int64_t rows, uint16_t* c, ThreadPool*,
                  Epilogue epilogue, const std::string& key) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const Weight& w = weights_.at(static_cast<size_t>(handle));
    const int64_t chunks = family == KernelFamily::kGemm ? rows / kMChunk : 1;
    const Kernel* k = nullptr;
    for (const auto& cand : kernels_)
      if (cand.spec.family == family && cand.spec.key == key && cand.spec.k == w.packed->k_pad &&
          cand.spec.n == w.packed->n_pad && (family == KernelFamily::kGemv || cand.spec.chunks == chunks))
        k = &cand;
    const std::string what = std::string(family == KernelFamily::kGemm ? "gemm " : "gemv ") + key;
    if (!k)
      throw Error("NPU: the bundle has no " + what + " record for " + std::to_string(chunks) + " chunks of " +
                  std::to_string(w.packed->k_pad) + "×" + std::to_string(w.packed->n_pad));
    if (k->spec.epilogue != epilogue)
      throw Error("NPU: " + what + " is built " + (k->spec.epilogue == Epilogue::kNone ? "without" : "with") +
                  " the SwiGLU epilogue, the dispatch expects the other");
    const size_t a_bytes = static_cast<size_t>(rows * w.packed->k_pad) * 2;
    const int64_t c_cols = epilogue == Epilogue::kSwiGluPairs ? w.packed->n_pad / 2 : w.packed->n_pad;
    const size_t c_bytes = static_cast<size_t>(rows * c_cols) * 2;
    const int a_view = k->a_view, c_view = k->c_view;
    using Clock = std::chrono::steady_clock;
    const auto x0 = Clock::now();
    api_->Write(a_view, a, a_bytes, 0);
    api_->Sync(a_view, SyncDirection::kToDevice);
    const auto x1 = Clock::now();
    const int run = api_->Start(k->kernel, kOpcodeTransaction, k->instr, k->instr_bytes, {a_view, w.bo, c_view});
    const RunState state = api_->Wait(run);
    if (state != RunState::kCompleted)
      throw Error("NPU: the " + what + " run ended in state " + std::to_string(static_cast<int>(state)) + ", not completed");
    const auto x2 = Clock::now();
    api_->Sync(c_view, SyncDirection::kFromDevice);
    api_->Read(c_view, c, c_bytes, 0);
    transfer_s_ += std::chrono::duration<double>((x1 - x0) + (Clock::now() - x2)).count();
    return family == KernelFamily::kGemm ? "gemm" : "gemv";
  }
  double TransferSeconds() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return transfer_s_;
  }

 private:
  struct Kernel {
    XrtKernelSpec spec;
    int kernel = -1, instr = -1, a = -1, c = -1, a_view = -1, c_view = -1;
    uint32_t instr_bytes = 0;
  };
  struct Weight {
    std::unique_ptr<PackedWeight> packed;  // stable address
    int bo = -1;
  };
  std::unique_ptr<XrtApi> api_;
  std::string name_;
  double transfer_s_ = 0.0;  // under mutex_
  std::vector<Kernel> kernels_;
  std::vector<Weight> weights_;
  int64_t max_chunks_ = 0;
  mutable std::mutex mutex_;
};

}  // namespace

std::unique_ptr<NpuDevice> MakeSequenceDevice(std::unique_ptr<XrtApi> api, const std::vector<XrtKernelSpec>& specs,
                                              std::string name) {
  if (!api) throw Error("NPU: no XRT API to run the sequence over");
  return std::make_unique<SequenceDevice>(std::move(api), specs, std::move(name));
}

}  // namespace glance::kernels::npu
