// Q4 GEMV/GEMM (layout: quant_formats.h). Highway dynamic dispatch: compiled once per target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/gemm_q4.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/cpu/matmul_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace glance::kernels::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// At most 16 int16 lanes so that a 32-block is a whole number of vectors on every target.
using D16 = hn::CappedTag<int16_t, 16>;
using D32 = hn::Repartition<int32_t, D16>;
using DF = hn::Repartition<float, D16>;
using V16 = hn::Vec<D16>;
constexpr size_t kLanes16 = hn::MaxLanes(D16());
constexpr size_t kChunks = 32 / kLanes16;

// acc[r] += scale_w · scale_x[r] · Σ_block w·x[r], for R input rows sharing the widened weights.
template <int R>
HWY_INLINE void TileQ4(const uint8_t* wr, const uint16_t* wsr, int64_t nb, const int16_t* xq,
                       const float* xs, int64_t kp, float* out) {
  const D16 d16;
  const D32 d32;
  const DF df;
  const hn::Rebind<uint8_t, D16> d8;
  const hn::RebindToUnsigned<D16> du16;
  const auto mask = hn::Set(du16, uint16_t{0xf});
  const auto eight = hn::Set(d16, int16_t{8});
  hn::Vec<DF> acc[R];
  for (int r = 0; r < R; ++r) acc[r] = hn::Zero(df);
  for (int64_t b = 0; b < nb; ++b) {
    V16 wv[kChunks];
    // Byte j of a block: element j in the low nibble, element j + 16 in the high one.
    for (size_t c = 0; c < kChunks; ++c) {
      const size_t e = c * kLanes16;
      const auto bytes = hn::PromoteTo(du16, hn::LoadU(d8, wr + b * 16 + static_cast<int64_t>(e % 16)));
      const auto nib = e < 16 ? hn::And(bytes, mask) : hn::ShiftRight<4>(bytes);
      wv[c] = hn::Sub(hn::BitCast(d16, nib), eight);
    }
    const float ws = hwy::F32FromBF16(hwy::bfloat16_t{wsr[b]});
    for (int r = 0; r < R; ++r) {
      const int16_t* xb = xq + r * kp + b * 32;
      auto s0 = hn::Zero(d32), s1 = hn::Zero(d32);
      for (size_t c = 0; c < kChunks; ++c)
        s0 = hn::ReorderWidenMulAccumulate(d32, wv[c], hn::LoadU(d16, xb + c * kLanes16), s0, s1);
      acc[r] = hn::MulAdd(hn::ConvertTo(df, hn::Add(s0, s1)), hn::Set(df, ws * xs[r * nb + b]),
                          acc[r]);
    }
  }
  for (int r = 0; r < R; ++r) out[r] = hn::GetLane(hn::SumOfLanes(df, acc[r]));
}

void MatmulQ4RangeImpl(const QuantizedActivations& xa, const WeightRef& w, const float* bias,
                       float* y, int64_t o_begin, int64_t o_end) {
  const int64_t nb = xa.blocks, kp = nb * 32, n = xa.n_rows, out = w.rows;
  const uint8_t* wq = static_cast<const uint8_t*>(w.data);
  const uint16_t* ws = static_cast<const uint16_t*>(w.scales);
  float v[4];
  for (int64_t o = o_begin; o < o_end; ++o) {
    const uint8_t* wr = wq + o * nb * 16;
    const uint16_t* wsr = ws + o * nb;
    const float bo = bias ? bias[o] : 0.0f;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
      TileQ4<4>(wr, wsr, nb, xa.q.data() + i * kp, xa.s.data() + i * nb, kp, v);
      for (int r = 0; r < 4; ++r) y[(i + r) * out + o] = v[r] + bo;
    }
    for (; i < n; ++i) {
      TileQ4<1>(wr, wsr, nb, xa.q.data() + i * kp, xa.s.data() + i * nb, kp, v);
      y[i * out + o] = v[0] + bo;
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace glance::kernels::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace glance::kernels::detail {
HWY_EXPORT(MatmulQ4RangeImpl);

void MatmulQ4Range(const QuantizedActivations& xa, const WeightRef& w, const float* bias,
                   float* y, int64_t o_begin, int64_t o_end) {
  HWY_DYNAMIC_DISPATCH(MatmulQ4RangeImpl)(xa, w, bias, y, o_begin, o_end);
}
}  // namespace glance::kernels::detail
#endif
