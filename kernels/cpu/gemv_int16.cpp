// Q8 / Q4 / Q6 weights × int16 activations, row-tiled (gemv_kernels.h; layouts: quant_formats.h).
// One kernel for both formats: only the block loader differs (Q8Blocks, Q4Blocks below).
// Highway dynamic dispatch: compiled once per target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/gemv_int16.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/cpu/gemv_kernels.h"
#include "kernels/cpu/weight_panels.h"

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

// Block loaders: weight row `o`'s block b as kChunks int16 vectors in element order, and its
// f32 scale.
// Q8 and Q4 blocks live in the panel layout (weight_panels.h): a block is gathered into the
// plain element order first. This portable kernel is the fallback without the x86 integer
// kernels, not the decode path.
struct Q8Blocks {
  struct Row {
    const int8_t* q;
    const float* s;
    int64_t rows, nb, o;
  };
  static HWY_INLINE Row RowOf(const WeightRef& w, int64_t o, int64_t nb) {
    return {static_cast<const int8_t*>(w.data), static_cast<const float*>(w.scales), w.rows, nb, o};
  }
  static HWY_INLINE void Load(const Row& row, int64_t b, V16* wv) {
    const hn::Rebind<int8_t, D16> d8;
    alignas(32) int8_t block[32];
    LoadQ8Block(row.q, row.rows, row.nb, row.o, b, block);
    for (size_t c = 0; c < kChunks; ++c)
      wv[c] = hn::PromoteTo(D16(), hn::LoadU(d8, block + c * kLanes16));
  }
  static HWY_INLINE float ScaleOf(const Row& row, int64_t b) {
    return row.s[PanelScaleIndex(row.rows, row.nb, row.o, b)];
  }
};

// Q4: the plain 16-byte order is element j low nibble, j + 16 high nibble.
struct Q4Blocks {
  struct Row {
    const uint8_t* q;
    const uint16_t* s;  // bf16 bits
    int64_t rows, nb, o;
  };
  static HWY_INLINE Row RowOf(const WeightRef& w, int64_t o, int64_t nb) {
    return {static_cast<const uint8_t*>(w.data), static_cast<const uint16_t*>(w.scales), w.rows, nb, o};
  }
  static HWY_INLINE void Load(const Row& row, int64_t b, V16* wv) {
    const D16 d16;
    const hn::Rebind<uint8_t, D16> d8;
    const hn::RebindToUnsigned<D16> du16;
    const auto mask = hn::Set(du16, uint16_t{0xf});
    const auto eight = hn::Set(d16, int16_t{8});
    alignas(16) uint8_t block[16];
    LoadQ4Block(row.q, row.rows, row.nb, row.o, b, block);
    for (size_t c = 0; c < kChunks; ++c) {
      const size_t e = c * kLanes16;
      const auto bytes = hn::PromoteTo(du16, hn::LoadU(d8, block + e % 16));
      const auto nib = e < 16 ? hn::And(bytes, mask) : hn::ShiftRight<4>(bytes);
      wv[c] = hn::Sub(hn::BitCast(d16, nib), eight);
    }
  }
  static HWY_INLINE float ScaleOf(const Row& row, int64_t b) {
    return hwy::F32FromBF16(hwy::bfloat16_t{row.s[PanelScaleIndex(row.rows, row.nb, row.o, b)]});
  }
};

// out[r] = Σ_b scale_w · scale_x[r] · Σ_block w·x[r], for R input rows sharing the widened
// weights (exact int32 sums per block, f32 across blocks).
template <class Blocks, int R>
HWY_INLINE void Tile(const typename Blocks::Row& wr, int64_t nb, const int16_t* xq, const float* xs,
                     int64_t kp, float* out) {
  const D32 d32;
  const DF df;
  hn::Vec<DF> acc[R];
  for (int r = 0; r < R; ++r) acc[r] = hn::Zero(df);
  for (int64_t b = 0; b < nb; ++b) {
    V16 wv[kChunks];
    Blocks::Load(wr, b, wv);
    const float ws = Blocks::ScaleOf(wr, b);
    for (int r = 0; r < R; ++r) {
      const int16_t* xb = xq + r * kp + b * 32;
      auto s0 = hn::Zero(d32), s1 = hn::Zero(d32);
      for (size_t c = 0; c < kChunks; ++c)
        s0 = hn::ReorderWidenMulAccumulate(d32, wv[c], hn::LoadU(D16(), xb + c * kLanes16), s0, s1);
      acc[r] = hn::MulAdd(hn::ConvertTo(df, hn::Add(s0, s1)), hn::Set(df, ws * xs[r * nb + b]),
                          acc[r]);
    }
  }
  for (int r = 0; r < R; ++r) out[r] = hn::GetLane(hn::SumOfLanes(df, acc[r]));
}

// Q6: the block's 6-bit values (quant_formats.h Q6Unsigned) gathered to int16 first; the
// fallback without the x86 kernels, as above.
struct Q6Blocks {
  using Row = Q4Blocks::Row;
  static HWY_INLINE Row RowOf(const WeightRef& w, int64_t o, int64_t nb) { return Q4Blocks::RowOf(w, o, nb); }
  static HWY_INLINE void Load(const Row& row, int64_t b, V16* wv) {
    alignas(32) uint8_t block[24];
    alignas(32) int16_t q[32];
    LoadQ6Block(row.q, row.rows, row.nb, row.o, b, block);
    for (int64_t j = 0; j < 32; ++j) q[j] = static_cast<int16_t>(Q6Unsigned(block, j) - 32);
    for (size_t c = 0; c < kChunks; ++c) wv[c] = hn::LoadU(D16(), q + c * kLanes16);
  }
  static HWY_INLINE float ScaleOf(const Row& row, int64_t b) { return Q4Blocks::ScaleOf(row, b); }
};

// Output features [o_begin, o_end): each weight row is read once per 4 input rows.
template <class Blocks>
void RowTiled(const QuantizedActivations& xa, const WeightRef& w, const float* bias, float* y,
              int64_t o_begin, int64_t o_end) {
  const int64_t nb = xa.blocks, kp = nb * 32, n = xa.n_rows, out = w.rows;
  float v[4];
  for (int64_t o = o_begin; o < o_end; ++o) {
    const typename Blocks::Row wr = Blocks::RowOf(w, o, nb);
    const float bo = bias ? bias[o] : 0.0f;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
      Tile<Blocks, 4>(wr, nb, xa.q.data() + i * kp, xa.s.data() + i * nb, kp, v);
      for (int r = 0; r < 4; ++r) y[(i + r) * out + o] = v[r] + bo;
    }
    for (; i < n; ++i) {
      Tile<Blocks, 1>(wr, nb, xa.q.data() + i * kp, xa.s.data() + i * nb, kp, v);
      y[i * out + o] = v[0] + bo;
    }
  }
}

void GemvInt16RangeImpl(const QuantizedActivations& xa, const WeightRef& w, const float* bias,
                        float* y, int64_t o_begin, int64_t o_end) {
  if (w.type == WeightType::Q4) {
    RowTiled<Q4Blocks>(xa, w, bias, y, o_begin, o_end);
  } else if (w.type == WeightType::Q6) {
    RowTiled<Q6Blocks>(xa, w, bias, y, o_begin, o_end);
  } else {
    RowTiled<Q8Blocks>(xa, w, bias, y, o_begin, o_end);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace glance::kernels::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace glance::kernels::detail {
HWY_EXPORT(GemvInt16RangeImpl);

void GemvInt16Range(const QuantizedActivations& xa, const WeightRef& w, const float* bias,
                    float* y, int64_t o_begin, int64_t o_end) {
  HWY_DYNAMIC_DISPATCH(GemvInt16RangeImpl)(xa, w, bias, y, o_begin, o_end);
}
}  // namespace glance::kernels::detail
#endif
