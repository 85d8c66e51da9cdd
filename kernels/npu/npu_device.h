#pragma once
// The device interface the NPU backend dispatches through. Two implementations: the XRT device
// (xrt_device.cpp, built only with a modern XRT) and the emulator (npu_emulator.cpp), which
// runs the same kernels on the CPU with the NPU's arithmetic, so everything above this line —
// packing, chunking, padding, buffer reuse, dispatch order, accuracy — is exercised without one.
//
// A device holds uploaded weights (handles) and runs two kernel families on them:
//   GEMM (flm.GEMM):  c[chunks·256][n_pad] bf16 = a[chunks·256][k_pad] bf16 · B, one dispatch
//                     covering `chunks` 256-row chunks (an instruction stream per chunk count)
//   GEMV (GEMVbfp16): c[n_pad] bf16 = a[k_pad] bf16 · B
// Arithmetic: emulate_gemm.h (bfp16ebs8 × bfp16ebs8 blocks, f32 accumulation, bf16 store, with
// the kernels' rounding mode).
//
// Thread contract: Run may be called from several threads; implementations serialise what they
// must (the XRT device owns one set of buffers per kernel).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/npu/packed_weight.h"

namespace glance::kernels {
class ThreadPool;
}

namespace glance::kernels::npu {

enum class KernelFamily : uint8_t { kGemm, kGemv };

// What a GEMM's store does to the f32 accumulators before rounding to bf16.
//   kNone          c[n] = bf16(acc[n])
//   kSwiGluPairs   the paired epilogue of the fused gate_up GEMM: B's columns come in blocks of
//                  64, [32 gate | 32 up] (bundle_plan.h l{i}.g.gu), and the store writes
//                  c[32·b + j] = bf16(silu(acc[64·b + j]) · acc[64·b + 32 + j]), n_pad / 2
//                  columns a row (taconite-qwen35 model.rs: PAIR_HALF, the gu GEMM's C read by
//                  down at column s·D). IRON's flm.GEMM applies its activation to the f32
//                  accumulator and rounds once, on the store (amd/IRON, the README of
//                  iron/operators/flm/gemm, section "Matching the shipped FastFlowLM overlay"),
//                  so the emulator does the same. NOT VERIFIED: the silu the core computes (the
//                  emulator uses f32 x / (1 + e^-x)); the pairing is taconite's reading.
//                  NOT IN IRON's flm.GEMM either (checked for issue 30): amd/IRON
//                  iron/operators/flm/gemm/design.py `class Epilogue` (commit 038e91b) has only
//                  none | gelu | silu | sigmoid, each on one accumulator, plus a clamp, and C is
//                  a dense M×N drained at row stride N (no c_stride parameter); the shipped
//                  FastFlowLM overlay (gemm/shipped.py `_parameter_words`) takes the same mode
//                  word. So a gate·up pair in one store is a kernel neither IRON's design nor
//                  the overlay it ports has; a gu GEMM built from IRON is kNone, and the plan
//                  then does the prompt's SwiGLU on the host (dispatch_plan.h UseKernelEpilogues).
enum class Epilogue : uint8_t { kNone, kSwiGluPairs };
inline constexpr int64_t kPairHalf = 32;

class NpuDevice {
 public:
  virtual ~NpuDevice() = default;
  virtual std::string name() const = 0;
  // Largest chunk count one GEMM dispatch covers (the bundle's longest instruction stream).
  virtual int64_t max_chunks() const = 0;
  // Whether a kernel of `family` with record key `key` exists for this padded K × N.
  virtual bool HasKernel(KernelFamily family, int64_t k_pad, int64_t n_pad, const std::string& key) const = 0;
  // Takes the weight for good (uploads it); returns its handle.
  virtual int UploadWeight(PackedWeight w) = 0;
  virtual const PackedWeight& weight(int handle) const = 0;
  // One dispatch. GEMM: rows = chunks·256 with 1 <= chunks <= max_chunks(); GEMV: rows = 1.
  // a: [rows][k_pad] bf16, c: [rows][n_pad] bf16 ([rows][n_pad / 2] with kSwiGluPairs, a GEMM
  // only: the decode GEMV returns the raw pairs). `key`: the kernel record's key (lin, att, o,
  // gu, down, head: fused_dispatch.h) — the kernel is chosen by key, never by shape alone, since
  // two keys may share a shape and differ in epilogue (tiny-a's lin and gu are both 512 × 256).
  // Returns the dispatch's kernel name (e.g. "gemm", "gemv") for timing.
  virtual const char* Run(KernelFamily family, int handle, const uint16_t* a, int64_t rows,
                          uint16_t* c, ThreadPool* pool, Epilogue epilogue, const std::string& key) = 0;
  // Cumulative seconds Run spent moving data: A written and synced to the device, C synced
  // back and read (the XRT sequence's buffer calls); 0 for the emulator, which moves none.
  virtual double TransferSeconds() const { return 0.0; }
};

// The emulator: every shape has a kernel (padding makes any K × N legal). `rounding`: the
// kernels' mode (the bundle's; IRON's default is kConvEven).
std::unique_ptr<NpuDevice> MakeEmulatorDevice(int64_t max_chunks = 4, Rounding rounding = Rounding::kConvEven);

// The XRT device, opened from a bundle's kernel records through the XRT plugin loaded at run
// time (xrt_plugin.h); throws glance::Error saying why when the plugin or the device is absent.
struct XrtKernelSpec {
  KernelFamily family = KernelFamily::kGemm;
  std::string key;  // the record's key (lin, att, o, gu, down, head, ...)
  int64_t k = 0, n = 0, chunks = 1;  // padded K, N; GEMM chunk count of this stream
  std::string xclbin, kernel_name, insts;  // absolute paths, kernel name inside the xclbin
  std::string context;  // hardware-context key: one per family (prefill, decode, vision)
  Rounding rounding = Rounding::kConvEven;  // how the kernel was built (ROUND_CONV_EVEN or not)
  Epilogue epilogue = Epilogue::kNone;      // built in: the gu GEMM's paired SwiGLU
};
std::unique_ptr<NpuDevice> MakeXrtDevice(const std::vector<XrtKernelSpec>& kernels);
// Whether the XRT plugin (and so XRT's libraries) loads in this process.
bool XrtCompiledIn();
// Constructs xrt::device(0) through the plugin and reports why not (false + reason).
bool XrtDeviceOpens(std::string* why);

}  // namespace glance::kernels::npu
