// F32 / BF16 / F16 GEMV, and its 2–3-row tiled form (gemv_kernels.h). Also WidenRow and
// DispatchedTarget. Highway dynamic dispatch: compiled once per target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/gemv_float.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <vector>

#include "kernels/cpu/gemv_kernels.h"
#include "kernels/cpu/weight_loaders-inl.h"

HWY_BEFORE_NAMESPACE();
namespace glance::kernels::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace loaders = glance::kernels::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

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

void GemvFloatRangeImpl(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                          float* y, int64_t o_begin, int64_t o_end) {
  const int64_t K = w.cols, out = w.rows;
  if (n_rows == 1) {  // GEMV: stream each weight row once, converting in registers
    for (int64_t o = o_begin; o < o_end; ++o) {
      float acc;
      if (w.type == WeightType::F32) {
        acc = loaders::DotWidened<loaders::F32Format>(x, static_cast<const float*>(w.data) + o * K, K);
      } else if (w.type == WeightType::BF16) {
        acc = loaders::DotWidened<loaders::Bf16Format>(x, static_cast<const uint16_t*>(w.data) + o * K, K);
      } else {
        acc = loaders::DotWidened<loaders::F16Format>(x, static_cast<const uint16_t*>(w.data) + o * K, K);
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
      for (int64_t j = 0; j < pn; ++j) loaders::WidenSegment(w, p0 + j, 0, K, panel.data() + j * K);
      wp = panel.data();
    }
    int64_t j = 0;
    for (; j + 2 <= pn; j += 2) PanelColumns<2>(x, n_rows, wp + j * K, K, bias, y, out, p0 + j);
    for (; j < pn; ++j) PanelColumns<1>(x, n_rows, wp + j * K, K, bias, y, out, p0 + j);
  }
}

void WidenRowImpl(const WeightRef& w, int64_t row, float* dst) {
  loaders::WidenSegment(w, row, 0, w.cols, dst);
}

int64_t DispatchedTargetImpl() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace glance::kernels::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace glance::kernels::detail {
HWY_EXPORT(GemvFloatRangeImpl);
HWY_EXPORT(WidenRowImpl);
HWY_EXPORT(DispatchedTargetImpl);

void GemvFloatRange(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                    float* y, int64_t o_begin, int64_t o_end) {
  HWY_DYNAMIC_DISPATCH(GemvFloatRangeImpl)(x, n_rows, w, bias, y, o_begin, o_end);
}

void WidenRow(const WeightRef& w, int64_t row, float* dst) {
  HWY_DYNAMIC_DISPATCH(WidenRowImpl)(w, row, dst);
}

int64_t DispatchedTarget() { return HWY_DYNAMIC_DISPATCH(DispatchedTargetImpl)(); }
}  // namespace glance::kernels::detail
#endif
