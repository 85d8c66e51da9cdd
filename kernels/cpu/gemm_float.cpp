// F32 / BF16 / F16 GEMV and GEMM. Highway dynamic dispatch: compiled once per target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/gemm_float.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <vector>

#include "kernels/cpu/matmul_kernels.h"
#include "kernels/cpu/numeric.h"

HWY_BEFORE_NAMESPACE();
namespace glance::kernels::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// N weights starting at p, widened to f32 in registers.
HWY_INLINE VF LoadW(DF df, const float* p) { return hn::LoadU(df, p); }
HWY_INLINE VF LoadW(DF df, const uint16_t* p, WeightType t) {
  if (t == WeightType::BF16) {
    const hn::RebindToUnsigned<DF> du32;
    const hn::Rebind<uint16_t, DF> du16;
    return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, hn::LoadU(du16, p))));
  }
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
}

// One output feature of a GEMV over 16-bit weights (bf16 or f16 chosen by T at compile time
// via the branch being loop-invariant).
template <WeightType T>
HWY_INLINE float DotW16(const float* x, const uint16_t* w, int64_t n) {
  const DF df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  VF s0 = hn::Zero(df), s1 = hn::Zero(df), s2 = hn::Zero(df), s3 = hn::Zero(df);
  int64_t k = 0;
  for (; k + 4 * N <= n; k += 4 * N) {
    s0 = hn::MulAdd(hn::LoadU(df, x + k), LoadW(df, w + k, T), s0);
    s1 = hn::MulAdd(hn::LoadU(df, x + k + N), LoadW(df, w + k + N, T), s1);
    s2 = hn::MulAdd(hn::LoadU(df, x + k + 2 * N), LoadW(df, w + k + 2 * N, T), s2);
    s3 = hn::MulAdd(hn::LoadU(df, x + k + 3 * N), LoadW(df, w + k + 3 * N, T), s3);
  }
  for (; k + N <= n; k += N) s0 = hn::MulAdd(hn::LoadU(df, x + k), LoadW(df, w + k, T), s0);
  float acc = hn::GetLane(hn::SumOfLanes(df, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
  for (; k < n; ++k)
    acc += x[k] * (T == WeightType::BF16 ? bf16_to_f32(w[k]) : f16_to_f32(w[k]));
  return acc;
}

HWY_INLINE float DotF32(const float* x, const float* w, int64_t n) {
  const DF df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  VF s0 = hn::Zero(df), s1 = hn::Zero(df), s2 = hn::Zero(df), s3 = hn::Zero(df);
  int64_t k = 0;
  for (; k + 4 * N <= n; k += 4 * N) {
    s0 = hn::MulAdd(hn::LoadU(df, x + k), hn::LoadU(df, w + k), s0);
    s1 = hn::MulAdd(hn::LoadU(df, x + k + N), hn::LoadU(df, w + k + N), s1);
    s2 = hn::MulAdd(hn::LoadU(df, x + k + 2 * N), hn::LoadU(df, w + k + 2 * N), s2);
    s3 = hn::MulAdd(hn::LoadU(df, x + k + 3 * N), hn::LoadU(df, w + k + 3 * N), s3);
  }
  for (; k + N <= n; k += N) s0 = hn::MulAdd(hn::LoadU(df, x + k), hn::LoadU(df, w + k), s0);
  float acc = hn::GetLane(hn::SumOfLanes(df, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
  for (; k < n; ++k) acc += x[k] * w[k];
  return acc;
}

// R input rows × C f32 weight rows, dot-product form: R·C vector accumulators over K, reduced
// once at the end. x rows stride ldx, w rows stride K; results to out[r][c].
template <int R, int C>
HWY_INLINE void TileF32(const float* x, int64_t ldx, const float* w, int64_t K,
                        float out[4][2]) {
  const DF df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  VF acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = hn::Zero(df);
  int64_t k = 0;
  for (; k + N <= K; k += N) {
    VF wv[C];
    for (int c = 0; c < C; ++c) wv[c] = hn::LoadU(df, w + c * K + k);
    for (int r = 0; r < R; ++r) {
      const VF xv = hn::LoadU(df, x + r * ldx + k);
      for (int c = 0; c < C; ++c) acc[r][c] = hn::MulAdd(xv, wv[c], acc[r][c]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      float s = hn::GetLane(hn::SumOfLanes(df, acc[r][c]));
      for (int64_t kk = k; kk < K; ++kk) s += x[r * ldx + kk] * w[c * K + kk];
      out[r][c] = s;
    }
}

template <int C>
HWY_INLINE void PanelColumns(const float* x, int64_t n_rows, const float* wp, int64_t K,
                             const float* bias, float* y, int64_t out, int64_t o) {
  float v[4][2];
  int64_t i = 0;
  for (; i + 4 <= n_rows; i += 4) {
    TileF32<4, C>(x + i * K, K, wp, K, v);
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < C; ++c) y[(i + r) * out + o + c] = v[r][c] + (bias ? bias[o + c] : 0.0f);
  }
  for (; i < n_rows; ++i) {
    TileF32<1, C>(x + i * K, K, wp, K, v);
    for (int c = 0; c < C; ++c) y[i * out + o + c] = v[0][c] + (bias ? bias[o + c] : 0.0f);
  }
}

void MatmulFloatRangeImpl(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                          float* y, int64_t o_begin, int64_t o_end) {
  const int64_t K = w.cols, out = w.rows;
  if (n_rows == 1) {  // GEMV: stream each weight row once, converting in registers
    for (int64_t o = o_begin; o < o_end; ++o) {
      float acc;
      if (w.type == WeightType::F32) {
        acc = DotF32(x, static_cast<const float*>(w.data) + o * K, K);
      } else if (w.type == WeightType::BF16) {
        acc = DotW16<WeightType::BF16>(x, static_cast<const uint16_t*>(w.data) + o * K, K);
      } else {
        acc = DotW16<WeightType::F16>(x, static_cast<const uint16_t*>(w.data) + o * K, K);
      }
      y[o] = acc + (bias ? bias[o] : 0.0f);
    }
    return;
  }
  // GEMM: widen a panel of weight rows to f32 once (F32 is used in place), then tiles.
  constexpr int64_t kPanel = 16;
  std::vector<float> panel;
  if (w.type != WeightType::F32) panel.resize(static_cast<size_t>(kPanel * K));
  for (int64_t p0 = o_begin; p0 < o_end; p0 += kPanel) {
    const int64_t pn = std::min(kPanel, o_end - p0);
    const float* wp;
    if (w.type == WeightType::F32) {
      wp = static_cast<const float*>(w.data) + p0 * K;
    } else {
      for (int64_t j = 0; j < pn; ++j) w.row_to_f32(p0 + j, panel.data() + j * K);
      wp = panel.data();
    }
    int64_t j = 0;
    for (; j + 2 <= pn; j += 2) PanelColumns<2>(x, n_rows, wp + j * K, K, bias, y, out, p0 + j);
    for (; j < pn; ++j) PanelColumns<1>(x, n_rows, wp + j * K, K, bias, y, out, p0 + j);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace glance::kernels::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace glance::kernels::detail {
HWY_EXPORT(MatmulFloatRangeImpl);

void MatmulFloatRange(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                      float* y, int64_t o_begin, int64_t o_end) {
  HWY_DYNAMIC_DISPATCH(MatmulFloatRangeImpl)(x, n_rows, w, bias, y, o_begin, o_end);
}
}  // namespace glance::kernels::detail
#endif
