// F32 / BF16 / F16 GEMV for 1–3 activation rows (gemv_kernels.h). Also WidenRow and
// DispatchedTarget. Highway dynamic dispatch: compiled once per target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/gemv_float.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>

#include "kernels/cpu/gemv_kernels.h"
#include "kernels/cpu/weight_loaders-inl.h"

HWY_BEFORE_NAMESPACE();
namespace glance::kernels::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace loaders = glance::kernels::HWY_NAMESPACE;

// Output features [o_begin, o_end) for up to 3 activation rows at once (from 4 rows Matmul
// takes the packed GEMM): each weight row streamed once, widened in registers, its vectors
// shared by the rows (DotWidenedRows: a row's sum is what the one-row GEMV gives it).
template <class Format, int R>
void RowsTimesWeights(const float* x, const WeightRef& w, const float* bias, float* y,
                      int64_t o_begin, int64_t o_end) {
  const int64_t K = w.cols, out = w.rows;
  const auto* wq = static_cast<const typename Format::Stored*>(w.data);
  float v[R];
  for (int64_t o = o_begin; o < o_end; ++o) {
    loaders::DotWidenedRows<Format, R>(x, K, wq + o * K, K, v);
    for (int r = 0; r < R; ++r) y[r * out + o] = v[r] + (bias ? bias[o] : 0.0f);
  }
}

template <class Format>
void RowsTimesWeights(const float* x, int64_t rows, const WeightRef& w, const float* bias, float* y,
                      int64_t o_begin, int64_t o_end) {
  switch (rows) {
    case 1: RowsTimesWeights<Format, 1>(x, w, bias, y, o_begin, o_end); return;
    case 2: RowsTimesWeights<Format, 2>(x, w, bias, y, o_begin, o_end); return;
    default: RowsTimesWeights<Format, 3>(x, w, bias, y, o_begin, o_end); return;
  }
}

void GemvFloatRangeImpl(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                        float* y, int64_t o_begin, int64_t o_end) {
  for (int64_t i = 0; i < n_rows; i += 3) {
    const int64_t rows = std::min<int64_t>(3, n_rows - i);
    const float* xi = x + i * w.cols;
    float* yi = y + i * w.rows;
    if (w.type == WeightType::F32) {
      RowsTimesWeights<loaders::F32Format>(xi, rows, w, bias, yi, o_begin, o_end);
    } else if (w.type == WeightType::BF16) {
      RowsTimesWeights<loaders::Bf16Format>(xi, rows, w, bias, yi, o_begin, o_end);
    } else {
      RowsTimesWeights<loaders::F16Format>(xi, rows, w, bias, yi, o_begin, o_end);
    }
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
