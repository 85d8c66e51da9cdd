// The NPU emulator (npu_device.h): the GEMM and GEMV kernels on the CPU, bit for bit the
// arithmetic of emulate_gemm.h's scalar reference. It keeps weights as the device would — packed,
// never unpacked into a second copy — and checks every dispatch's contract the way the
// hardware's fixed instruction streams would enforce it.
#include <mutex>
#include <string>
#include <vector>

#include "kernels/kernel_error.h"
#include "kernels/npu/emulate_gemm.h"
#include "kernels/npu/npu_device.h"

namespace glance::kernels::npu {

namespace {

class EmulatorDevice final : public NpuDevice {
 public:
  EmulatorDevice(int64_t max_chunks, Rounding rounding) : max_chunks_(max_chunks), rounding_(rounding) {}
  std::string name() const override { return "npu-emu"; }
  Rounding rounding() const { return rounding_; }
  int64_t max_chunks() const override { return max_chunks_; }
  bool HasKernel(KernelFamily, int64_t k_pad, int64_t n_pad, const std::string&) const override {
    return k_pad > 0 && k_pad % kBfpGroup == 0 && n_pad > 0 && n_pad % kBfpGroup == 0;
  }
  int UploadWeight(PackedWeight w) override {
    ValidatePacked(w, "(upload)");
    std::lock_guard<std::mutex> lock(mutex_);
    weights_.push_back(std::make_unique<PackedWeight>(std::move(w)));
    return static_cast<int>(weights_.size() - 1);
  }
  const PackedWeight& weight(int handle) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (handle < 0 || static_cast<size_t>(handle) >= weights_.size())
      throw Error("NPU emulator: no weight with handle " + std::to_string(handle));
    return *weights_[static_cast<size_t>(handle)];
  }
  const char* Run(KernelFamily family, int handle, const uint16_t* a, int64_t rows, uint16_t* c,
                  ThreadPool* pool, Epilogue epilogue, const std::string&) override {
    const PackedWeight& w = weight(handle);
    if (family == KernelFamily::kGemm) {
      if (rows <= 0 || rows % kMChunk != 0 || rows / kMChunk > max_chunks_)
        throw Error("NPU emulator: a GEMM dispatch covers 1.." + std::to_string(max_chunks_) +
                    " chunks of 256 rows, got " + std::to_string(rows) + " rows");
    } else if (rows != 1) {
      throw Error("NPU emulator: a GEMV dispatch takes one row, got " + std::to_string(rows));
    } else if (epilogue != Epilogue::kNone) {
      // GEMVbfp16 has no epilogue: decode gets the raw gate | up pairs (taconite model.rs decode).
      throw Error("NPU emulator: a GEMV dispatch has no epilogue");
    }
    EmulateGemm(a, rows, w, c, rounding_, pool, epilogue);
    return family == KernelFamily::kGemm ? "gemm" : "gemv";
  }

 private:
  int64_t max_chunks_;
  Rounding rounding_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<PackedWeight>> weights_;  // stable addresses
};

}  // namespace

std::unique_ptr<NpuDevice> MakeEmulatorDevice(int64_t max_chunks, Rounding rounding) {
  if (max_chunks < 1) throw Error("NPU emulator: max_chunks must be at least 1");
  return std::make_unique<EmulatorDevice>(max_chunks, rounding);
}

}  // namespace glance::kernels::npu
