// The integer GEMM of gemm_int8.h: one body (gemm_int8_body.inc) compiled for AVX2, AVX-VNNI
// and AVX-512 VNNI under `#pragma GCC target`, chosen by the same runtime choice as the GEMV
// kernels (gemv_int8.h ActiveInt8Isa). Highway 1.0.3 has no u8 × s8 multiply-add op, hence
// raw intrinsics, as in gemv_int8_x86.cpp.
#include <atomic>
#include <string>

#include "kernels/cpu/gemm_int8.h"
#include "kernels/kernel_error.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GLANCE_GEMM_INT8_X86 1
#include <immintrin.h>
#else
#define GLANCE_GEMM_INT8_X86 0
#endif

namespace glance::kernels {
namespace {

// Raw pointers only: the bodies touch no std:: code (see gemm_int8_body.inc).
struct GemmInt8Job {
  const int8_t* xq;    // [n_rows][nb·32]
  const float* xs;     // [n_rows][nb]
  const float* xoff;   // [n_rows][nb]: 8·Σq
  int64_t n_rows, nb;
  bool q4;             // else Q8
  const void* wq;
  const void* ws;
  const float* bias;
  float* y;
  int64_t out;
  int64_t o_begin, o_end;
};

}  // namespace

#if GLANCE_GEMM_INT8_X86
// GCC 12's avx512fintrin.h warns about its own _mm512_undefined_*() values (see
// gemv_int8_x86.cpp): silenced only around the kernel bodies.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace gemm_int8_avx2 {
#define GLANCE_INT8_DOT 0
#include "kernels/cpu/gemm_int8_body.inc"
#undef GLANCE_INT8_DOT
}  // namespace gemm_int8_avx2
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni")
namespace gemm_int8_avx512vnni {
#define GLANCE_INT8_DOT 1
#include "kernels/cpu/gemm_int8_body.inc"
#undef GLANCE_INT8_DOT
}  // namespace gemm_int8_avx512vnni
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma,avxvnni")
namespace gemm_int8_avxvnni {
#define GLANCE_INT8_DOT 2
#include "kernels/cpu/gemm_int8_body.inc"
#undef GLANCE_INT8_DOT
}  // namespace gemm_int8_avxvnni
#pragma GCC pop_options
#pragma GCC diagnostic pop
#endif

namespace {
std::atomic<int64_t> g_min_rows{kInt8GemmMinRows};
}  // namespace

int64_t SetInt8GemmMinRows(int64_t rows) { return g_min_rows.exchange(rows); }
int64_t Int8GemmMinRows() { return g_min_rows.load(std::memory_order_relaxed); }

void GemmInt8Range(const Int8Activations& xa, const WeightRef& w, const float* bias, float* y,
                   int64_t o_begin, int64_t o_end) {
  if (!w.quantized()) throw Error("GemmInt8Range: Q8 or Q4 weights only");
  if (xa.blocks != w.blocks() || xa.q4_pair_order)
    throw Error("GemmInt8Range: activations not quantized (natural order) for these weights");
  const GemmInt8Job job{xa.q.data(), xa.scale.data(), xa.offset.data(), xa.n_rows, xa.blocks,
                        w.type == WeightType::Q4, w.data, w.scales, bias, y, w.rows,
                        o_begin, o_end};
#if GLANCE_GEMM_INT8_X86
  switch (ActiveInt8Isa()) {
    case Int8Isa::kAvx512Vnni: gemm_int8_avx512vnni::Run(job); return;
    case Int8Isa::kAvxVnni: gemm_int8_avxvnni::Run(job); return;
    case Int8Isa::kAvx2: gemm_int8_avx2::Run(job); return;
    case Int8Isa::kNone: break;
  }
#endif
  (void)job;
  throw Error("GemmInt8Range: x86 kernels unavailable on this CPU");
}

}  // namespace glance::kernels
