// x86 integer kernels: the Q4/Q6/Q8 GEMVs (gemv_int8.h) and the integer GEMM (gemm_int8.h), with
// the runtime choice between AVX-512 VNNI, AVX-VNNI and AVX2 bodies (gemv_int8_body.inc and
// gemm_int8_body.inc, compiled once per instruction set under `#pragma GCC target`), a portable
// activation quantizer, and the scalar oracle.
// Highway 1.0.3 has no u8×s8 multiply-add op, hence raw intrinsics for this one kernel family.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>

#include "kernels/cpu/gemm_int8.h"
#include "kernels/cpu/gemv_int8.h"
#include "kernels/cpu/numeric.h"
#include "kernels/cpu/weight_panels.h"
#include "kernels/cpu/quant_formats.h"
#include "kernels/kernel_error.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GLANCE_INT8_X86 1
#include <immintrin.h>
#else
#define GLANCE_INT8_X86 0
#endif

namespace glance::kernels {
namespace {

// Everything a kernel body needs, as raw pointers (the bodies touch no std:: code). Act is the
// activation integer type: int8 for Q4 weights (Int8Activations, with the per-block nibble
// offsets), int16 for Q8 weights (QuantizedActivations; xoff unused).
template <class Act>
struct GemvJob {
  const Act* xq;
  const float* xs;
  const float* xoff;
  int64_t n_rows, nb;
  const void* wq;
  const void* ws;
  const float* bias;
  float* y;
  int64_t out;
  int64_t o_begin, o_end;
};
using Int8Job = GemvJob<int8_t>;
using Q8Job = GemvJob<int16_t>;
// Q6 weights take the Q4 job's int8 activations; a type of its own picks its kernel.
struct Q6Job : Int8Job {};

// The integer GEMM's job (gemm_int8_body.inc): the GEMV's fields (activations in natural
// order) and the weight format.
struct GemmInt8Job : Int8Job {
  bool q4 = false;  // else Q8
  // Q4 with at most this many activation rows reads the stored panels directly, unpacked
  // (gemm_int8_body.inc RunQ4Direct).
  int64_t q4_direct_max_rows = 0;
};

}  // namespace

#if GLANCE_INT8_X86
// GCC 12's avx512fintrin.h builds some results from _mm512_undefined_*() and then warns
// about its own uninitialised value (-Wuninitialized / -Wmaybe-uninitialized): a known
// false positive of the header, silenced only around the kernel bodies.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace int8_avx2 {
#define GLANCE_INT8_DOT 0
#include "kernels/cpu/gemv_int8_body.inc"
#include "kernels/cpu/gemm_int8_body.inc"
#undef GLANCE_INT8_DOT
}  // namespace int8_avx2
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni")
namespace int8_avx512vnni {
#define GLANCE_INT8_DOT 1
#include "kernels/cpu/gemv_int8_body.inc"
#include "kernels/cpu/gemm_int8_body.inc"
#undef GLANCE_INT8_DOT
}  // namespace int8_avx512vnni
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma,avxvnni")
namespace int8_avxvnni {
#define GLANCE_INT8_DOT 2
#include "kernels/cpu/gemv_int8_body.inc"
#include "kernels/cpu/gemm_int8_body.inc"
#undef GLANCE_INT8_DOT
}  // namespace int8_avxvnni
#pragma GCC pop_options
#pragma GCC diagnostic pop
#endif

namespace {

enum class Isa { kNone, kAvx2, kAvxVnni, kAvx512Vnni };

Isa DetectIsa() {
#if GLANCE_INT8_X86
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return Isa::kNone;
  if (__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw"))
    return Isa::kAvx512Vnni;
  if (__builtin_cpu_supports("avxvnni")) return Isa::kAvxVnni;
  return Isa::kAvx2;
#else
  return Isa::kNone;
#endif
}

Isa BestIsa() {
  static const Isa isa = DetectIsa();
  return isa;
}

std::atomic<Isa> g_selected{Isa::kNone};  // kNone: use BestIsa()

Isa TheIsa() {
  const Isa selected = g_selected.load(std::memory_order_relaxed);
  return selected == Isa::kNone ? BestIsa() : selected;
}

std::atomic<bool> g_enabled{true};
std::atomic<int64_t> g_gemm_min_rows{kInt8GemmMinRows};
std::atomic<int64_t> g_q4_direct_max_rows{kGemmQ4DirectMaxRows};

// The oracle of the AVX2 QuantizeRow (gemv_int8_body.inc): the same half-to-even rounding and
// reciprocal, so the two agree bit for bit.
void QuantizeRowScalar(const float* x, int64_t cols, int8_t* q, float* scale, float* offset) {
  const int64_t nb = QuantBlocks(cols);
  for (int64_t b = 0; b < nb; ++b) {
    const int64_t k0 = b * kQuantBlock, n = std::min(kQuantBlock, cols - k0);
    scale[b] = QuantizeBlockAbsmax<int8_t, 127, Rounding::kHalfToEven, Reciprocal::kDirect>(
        x + k0, n, q + k0);
    int sum = 0;
    for (int64_t j = 0; j < kQuantBlock; ++j) sum += q[k0 + j];
    offset[b] = 8.0f * static_cast<float>(sum);
  }
}

}  // namespace

bool Int8KernelsAvailable() { return TheIsa() != Isa::kNone; }


const char* Int8KernelName() {
  switch (TheIsa()) {
    case Isa::kAvx512Vnni: return "avx512-vnni";
    case Isa::kAvxVnni: return "avx-vnni";
    case Isa::kAvx2: return "avx2";
    case Isa::kNone: break;
  }
  return "none";
}

bool SelectInt8KernelIsa(const char* name) {
  const std::string n = name ? name : "";
  Isa want = Isa::kNone;
  if (n == "avx2") want = Isa::kAvx2;
  else if (n == "avx-vnni") want = Isa::kAvxVnni;
  else if (n == "avx512-vnni") want = Isa::kAvx512Vnni;
  else if (!n.empty()) return false;
  if (want != Isa::kNone) {
#if GLANCE_INT8_X86
    const Isa best = BestIsa();
    if (best == Isa::kNone) return false;
    if (want == Isa::kAvxVnni && !__builtin_cpu_supports("avxvnni")) return false;
    if (want == Isa::kAvx512Vnni && best != Isa::kAvx512Vnni) return false;
#else
    return false;
#endif
  }
  g_selected.store(want);
  return true;
}

bool SetInt8KernelsEnabled(bool enabled) { return g_enabled.exchange(enabled); }

int64_t SetInt8GemmMinRows(int64_t rows) { return g_gemm_min_rows.exchange(rows); }
int64_t Int8GemmMinRows() { return g_gemm_min_rows.load(std::memory_order_relaxed); }
int64_t SetGemmQ4DirectMaxRows(int64_t rows) { return g_q4_direct_max_rows.exchange(rows); }

bool Int8KernelsActive() { return g_enabled.load(std::memory_order_relaxed) && Int8KernelsAvailable(); }

void QuantizeActivationsInt8(const float* x, int64_t n_rows, int64_t cols, Int8Activations* out) {
  const int64_t nb = QuantBlocks(cols), kp = nb * kQuantBlock;
  out->n_rows = n_rows;
  out->blocks = nb;
  out->q.resize(static_cast<size_t>(n_rows * kp));
  out->scale.resize(static_cast<size_t>(n_rows * nb));
  out->offset.resize(static_cast<size_t>(n_rows * nb));
  for (int64_t i = 0; i < n_rows; ++i) {
    int8_t* q = out->q.data() + i * kp;
    float* s = out->scale.data() + i * nb;
    float* off = out->offset.data() + i * nb;
#if GLANCE_INT8_X86
    if (TheIsa() != Isa::kNone) {
      int8_avx2::QuantizeRow(x + i * cols, cols, q, s, off);
    } else {
      QuantizeRowScalar(x + i * cols, cols, q, s, off);
    }
#else
    QuantizeRowScalar(x + i * cols, cols, q, s, off);
#endif
  }
}

namespace {

// Runs a job (Int8Job, Q8Job or GemmInt8Job) with the bodies compiled for the selected instruction set.
template <class Job>
void RunOnThisCpu(const Job& job, const char* what) {
#if GLANCE_INT8_X86
  switch (TheIsa()) {
    case Isa::kAvx512Vnni: int8_avx512vnni::Run(job); return;
    case Isa::kAvxVnni: int8_avxvnni::Run(job); return;
    case Isa::kAvx2: int8_avx2::Run(job); return;
    case Isa::kNone: break;
  }
#endif
  (void)job;
  throw Error(std::string(what) + ": x86 kernels unavailable on this CPU");
}

}  // namespace

void GemvQ4Int8Range(const Int8Activations& xa, const WeightRef& w, const float* bias, float* y,
                     int64_t o_begin, int64_t o_end) {
  if (w.type != WeightType::Q4) throw Error("GemvQ4Int8Range: Q4 weights only");
  if (xa.blocks != w.blocks()) throw Error("GemvQ4Int8Range: activations not quantized for these weights");
  RunOnThisCpu(Int8Job{xa.q.data(), xa.scale.data(), xa.offset.data(), xa.n_rows, xa.blocks,
                       w.data, w.scales, bias, y, w.rows, o_begin, o_end},
               "GemvQ4Int8Range");
}

void GemvQ6Int8Range(const Int8Activations& xa, const WeightRef& w, const float* bias, float* y,
                     int64_t o_begin, int64_t o_end) {
  if (w.type != WeightType::Q6) throw Error("GemvQ6Int8Range: Q6 weights only");
  if (xa.blocks != w.blocks()) throw Error("GemvQ6Int8Range: activations not quantized for these weights");
  RunOnThisCpu(Q6Job{{xa.q.data(), xa.scale.data(), xa.offset.data(), xa.n_rows, xa.blocks, w.data,
                      w.scales, bias, y, w.rows, o_begin, o_end}},
               "GemvQ6Int8Range");
}

void GemvQ8Int16Range(const QuantizedActivations& xa, const WeightRef& w, const float* bias,
                        float* y, int64_t o_begin, int64_t o_end) {
  if (w.type != WeightType::Q8 || xa.blocks != w.blocks())
    throw Error("GemvQ8Int16Range: Q8 weights and matching activations only");
  RunOnThisCpu(Q8Job{xa.q.data(), xa.s.data(), nullptr, xa.n_rows, xa.blocks, w.data, w.scales,
                     bias, y, w.rows, o_begin, o_end},
               "GemvQ8Int16Range");
}

void GemmInt8Range(const Int8Activations& xa, const WeightRef& w, const float* bias, float* y,
                   int64_t o_begin, int64_t o_end) {
  if (w.type != WeightType::Q8 && w.type != WeightType::Q4) throw Error("GemmInt8Range: Q8 or Q4 weights only");
  if (xa.blocks != w.blocks()) throw Error("GemmInt8Range: activations not quantized for these weights");
  RunOnThisCpu(GemmInt8Job{{xa.q.data(), xa.scale.data(), xa.offset.data(), xa.n_rows, xa.blocks,
                            w.data, w.scales, bias, y, w.rows, o_begin, o_end},
                           w.type == WeightType::Q4, g_q4_direct_max_rows.load(std::memory_order_relaxed)},
               "GemmInt8Range");
}

namespace {

// y[i][o] = bias[o] + Σ_b scale(i, b) · Σ_{k∈b} q(i, k) · w.at(o, k), in double: the oracle of
// every kernel that multiplies block-quantized activations (the integer sums are exact).
template <class Q, class Scale>
void BlockQuantizedReference(int64_t n_rows, const WeightRef& w, const float* bias, float* y, const Q& q,
                             const Scale& scale) {
  const int64_t nb = w.blocks();
  for (int64_t i = 0; i < n_rows; ++i)
    for (int64_t o = 0; o < w.rows; ++o) {
      double acc = bias ? double(bias[o]) : 0.0;
      for (int64_t b = 0; b < nb; ++b) {
        double block = 0.0;
        for (int64_t k = b * kQuantBlock; k < std::min(w.cols, (b + 1) * kQuantBlock); ++k)
          block += double(q(i, k)) * double(w.at(o, k));
        acc += block * double(scale(i, b));
      }
      y[i * w.rows + o] = static_cast<float>(acc);
    }
}

}  // namespace

void MatmulInt8Reference(const Int8Activations& xa, const WeightRef& w, const float* bias,
                         float* y) {
  const int64_t nb = xa.blocks, kp = nb * kQuantBlock;
  BlockQuantizedReference(
      xa.n_rows, w, bias, y,
      [&](int64_t i, int64_t k) { return xa.q[static_cast<size_t>(i * kp + k)]; },
      [&](int64_t i, int64_t b) { return xa.scale[static_cast<size_t>(i * nb + b)]; });
}

void MatmulInt16Reference(const QuantizedActivations& xa, const WeightRef& w, const float* bias,
                          float* y) {
  const int64_t nb = xa.blocks, kp = nb * kQuantBlock;
  BlockQuantizedReference(
      xa.n_rows, w, bias, y, [&](int64_t i, int64_t k) { return xa.q[static_cast<size_t>(i * kp + k)]; },
      [&](int64_t i, int64_t b) { return xa.s[static_cast<size_t>(i * nb + b)]; });
}

}  // namespace glance::kernels
