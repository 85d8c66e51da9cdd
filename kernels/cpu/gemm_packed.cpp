// Packed f32 GEMM (design in gemm_packed.h). Highway dynamic dispatch: compiled once per target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/gemm_packed.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include <hwy/aligned_allocator.h>

#include "kernels/cpu/gemm_packed.h"
#include "kernels/cpu/weight_loaders-inl.h"

HWY_BEFORE_NAMESPACE();
namespace glance::kernels::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace loaders = glance::kernels::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

constexpr int kMR = 6;          // input rows per micro-tile
constexpr int64_t kKc = 256;    // K block: a packed panel (NR × 256 f32) stays in L1
constexpr int64_t kGroup = 8;   // panels packed together; the x micro-block is reused across them

// dst[k][j] = src[j][k] for j < nr, k < kc (src rows stride ld). Four k at a time so each
// source row is read in short contiguous runs and the destination is written sequentially.
void Transpose(const float* HWY_RESTRICT src, int64_t ld, int64_t nr, int64_t kc,
               float* HWY_RESTRICT dst) {
  int64_t k = 0;
  for (; k + 4 <= kc; k += 4) {
    float* d = dst + k * nr;
    for (int64_t j = 0; j < nr; ++j) {
      const float* s = src + j * ld + k;
      d[j] = s[0];
      d[nr + j] = s[1];
      d[2 * nr + j] = s[2];
      d[3 * nr + j] = s[3];
    }
  }
  for (; k < kc; ++k)
    for (int64_t j = 0; j < nr; ++j) dst[k * nr + j] = src[j * ld + k];
}

// c[r][0, 2N) = init[r][0, 2N) + Σ_k x[r][k] · wp[k][0, 2N) for r < MR. wp is a packed panel
// ([kc][2N]); init is c itself (continuing a K block) or the bias panel with stride 0.
template <int MR>
HWY_INLINE void MicroKernel(const float* HWY_RESTRICT x, int64_t ldx,
                            const float* HWY_RESTRICT wp, int64_t kc, const float* init,
                            int64_t ld_init, float* c, int64_t ldc) {
  const DF df;
  const size_t N = hn::Lanes(df);
  VF a0[MR], a1[MR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    a0[r] = hn::LoadU(df, init + r * ld_init);
    a1[r] = hn::LoadU(df, init + r * ld_init + N);
  }
  for (int64_t k = 0; k < kc; ++k) {
    const VF w0 = hn::Load(df, wp + k * 2 * static_cast<int64_t>(N));
    const VF w1 = hn::Load(df, wp + k * 2 * static_cast<int64_t>(N) + N);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const VF xv = hn::Set(df, x[r * ldx + k]);
      a0[r] = hn::MulAdd(xv, w0, a0[r]);
      a1[r] = hn::MulAdd(xv, w1, a1[r]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    hn::StoreU(a0[r], df, c + r * ldc);
    hn::StoreU(a1[r], df, c + r * ldc + N);
  }
}

void RunMicroKernel(int mr, const float* x, int64_t ldx, const float* wp, int64_t kc,
                    const float* init, int64_t ld_init, float* c, int64_t ldc) {
  switch (mr) {
    case 6: MicroKernel<6>(x, ldx, wp, kc, init, ld_init, c, ldc); break;
    case 5: MicroKernel<5>(x, ldx, wp, kc, init, ld_init, c, ldc); break;
    case 4: MicroKernel<4>(x, ldx, wp, kc, init, ld_init, c, ldc); break;
    case 3: MicroKernel<3>(x, ldx, wp, kc, init, ld_init, c, ldc); break;
    case 2: MicroKernel<2>(x, ldx, wp, kc, init, ld_init, c, ldc); break;
    default: MicroKernel<1>(x, ldx, wp, kc, init, ld_init, c, ldc); break;
  }
}

void GemmPackedRangeImpl(const float* x, int64_t n_rows, const WeightRef& w,
                           const float* bias, float* y, int64_t o_begin, int64_t o_end) {
  const DF df;
  const int64_t NR = 2 * static_cast<int64_t>(hn::Lanes(df));
  const int64_t K = w.cols, out = w.rows, group = kGroup * NR;
  auto packed = hwy::AllocateAligned<float>(static_cast<size_t>(group * kKc));
  auto bias_pack = hwy::AllocateAligned<float>(static_cast<size_t>(group));
  auto seg = hwy::AllocateAligned<float>(static_cast<size_t>(NR * kKc));
  // Accumulators of a partial last panel (fewer than NR features) between K blocks.
  std::vector<float> edge;

  for (int64_t g0 = o_begin; g0 < o_end; g0 += group) {
    const int64_t gn = std::min(group, o_end - g0), panels = (gn + NR - 1) / NR;
    for (int64_t j = 0; j < panels * NR; ++j)
      bias_pack[static_cast<size_t>(j)] = (bias && j < gn) ? bias[g0 + j] : 0.0f;
    const int64_t last_cols = gn - (panels - 1) * NR;
    if (last_cols < NR) edge.assign(static_cast<size_t>(n_rows * NR), 0.0f);

    for (int64_t k0 = 0; k0 < K; k0 += kKc) {
      const int64_t kc = std::min(kKc, K - k0);
      // Pack: panel p holds features g0 + p·NR + j at packed[p][k][j] (zeros past gn).
      // Rows are widened contiguously first (SIMD-friendly), then transposed k-major so the
      // writes are sequential.
      for (int64_t p = 0; p < panels; ++p) {
        float* dst = packed.get() + p * kKc * NR;
        for (int64_t j = 0; j < NR; ++j) {
          const int64_t f = p * NR + j;
          float* row = seg.get() + j * kKc;
          if (f < gn) {
            // k0 is a multiple of kKc, hence of the quant block: Q8/Q4 segments start on a block.
            loaders::WidenSegment(w, g0 + f, k0, kc, row);
          } else {
            std::fill_n(row, kc, 0.0f);
          }
        }
        Transpose(seg.get(), kKc, NR, kc, dst);
      }
      for (int64_t i = 0; i < n_rows; i += kMR) {
        const int mr = static_cast<int>(std::min<int64_t>(kMR, n_rows - i));
        const float* xb = x + i * K + k0;
        for (int64_t p = 0; p < panels; ++p) {
          const bool full = p + 1 < panels || last_cols == NR;
          float* c = full ? y + i * out + g0 + p * NR : edge.data() + i * NR;
          const int64_t ldc = full ? out : NR;
          const bool first = k0 == 0;
          RunMicroKernel(mr, xb, K, packed.get() + p * kKc * NR, kc,
                         first ? bias_pack.get() + p * NR : c, first ? 0 : ldc, c, ldc);
        }
      }
    }
    if (last_cols < NR) {
      const int64_t f0 = g0 + (panels - 1) * NR;
      for (int64_t i = 0; i < n_rows; ++i)
        std::copy_n(edge.data() + i * NR, last_cols, y + i * out + f0);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace glance::kernels::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace glance::kernels::detail {
HWY_EXPORT(GemmPackedRangeImpl);

void GemmPackedRange(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                       float* y, int64_t o_begin, int64_t o_end) {
  HWY_DYNAMIC_DISPATCH(GemmPackedRangeImpl)(x, n_rows, w, bias, y, o_begin, o_end);
}
}  // namespace glance::kernels::detail
#endif
