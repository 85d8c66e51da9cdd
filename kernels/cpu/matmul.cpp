#include "kernels/cpu/matmul.h"

#include <algorithm>
#include <vector>

#include "kernels/cpu/gemm_int8.h"
#include "kernels/cpu/gemm_packed.h"
#include "kernels/cpu/gemv_int8.h"
#include "kernels/cpu/gemv_kernels.h"
#include "kernels/cpu/numeric.h"
#include "kernels/cpu/weight_panels.h"
#include "kernels/cpu/quant_formats.h"
#include "kernels/cpu/thread_pool.h"

namespace glance::kernels {

const char* WeightTypeName(WeightType t) {
  switch (t) {
    case WeightType::F32: return "f32";
    case WeightType::BF16: return "bf16";
    case WeightType::F16: return "f16";
    case WeightType::Q8: return "q8";
    case WeightType::Q4: return "q4";
    case WeightType::Q6: return "q6";
  }
  return "?";
}

float WeightRef::at(int64_t r, int64_t c) const {
  const size_t i = static_cast<size_t>(r * cols + c);
  const int64_t nb = blocks(), b = c / kQuantBlock, j = c % kQuantBlock;
  switch (type) {
    case WeightType::F32: return static_cast<const float*>(data)[i];
    case WeightType::BF16: return bf16_to_f32(static_cast<const uint16_t*>(data)[i]);
    case WeightType::F16: return f16_to_f32(static_cast<const uint16_t*>(data)[i]);
    case WeightType::Q8:  // panel layout: weight_panels.h
      return static_cast<float>(static_cast<const int8_t*>(data)[Q8PairOffset(rows, nb, r, b, j / 2) + (j & 1)]) *
             static_cast<const float*>(scales)[PanelScaleIndex(rows, nb, r, b)];
    case WeightType::Q4: {  // panel layout: weight_panels.h
      const uint8_t byte =
          static_cast<const uint8_t*>(data)[Q4DwordOffset(rows, nb, r, b, (j & 15) / 4) + (j & 3)];
      const int nib = j < 16 ? (byte & 0xf) : (byte >> 4);
      return static_cast<float>(nib - 8) *
             bf16_to_f32(static_cast<const uint16_t*>(scales)[PanelScaleIndex(rows, nb, r, b)]);
    }
    case WeightType::Q6: {  // panel layout: weight_panels.h; block bytes: quant_formats.h
      uint8_t block[24];
      LoadQ6Block(static_cast<const uint8_t*>(data), rows, nb, r, b, block);
      return static_cast<float>(Q6Unsigned(block, j) - 32) *
             bf16_to_f32(static_cast<const uint16_t*>(scales)[PanelScaleIndex(rows, nb, r, b)]);
    }
  }
  return 0.0f;
}

void WeightRef::row_to_f32(int64_t r, float* dst) const { detail::WidenRow(*this, r, dst); }

void MatmulReference(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                     float* y) {
  // Weights through at(), the scalar decoding, not row_to_f32: the oracle shares no code with
  // the SIMD loaders the kernels use.
  std::vector<float> wrow(static_cast<size_t>(w.cols));
  for (int64_t o = 0; o < w.rows; ++o) {
    for (int64_t k = 0; k < w.cols; ++k) wrow[static_cast<size_t>(k)] = w.at(o, k);
    for (int64_t i = 0; i < n_rows; ++i) {
      float acc = 0.0f;
      for (int64_t k = 0; k < w.cols; ++k) acc += x[i * w.cols + k] * wrow[static_cast<size_t>(k)];
      y[i * w.rows + o] = acc + (bias ? bias[o] : 0.0f);
    }
  }
}

namespace {

// Activations quantized for whichever kernels the weights below the GEMM size need.
struct GemvActivations {
  Int8Activations i8;        // Q4 and Q6 on x86
  QuantizedActivations i16;  // Q8, and Q4 without the x86 kernels
  bool has_i8 = false, has_i16 = false;

  void Prepare(const float* x, int64_t n_rows, const WeightRef& w) {
    if ((w.type == WeightType::Q4 || w.type == WeightType::Q6) && Int8KernelsActive()) {
      if (!has_i8) QuantizeActivationsInt8(x, n_rows, w.cols, &i8);
      has_i8 = true;
    } else if (w.quantized()) {
      if (!has_i16) QuantizeActivations(x, n_rows, w.cols, &i16);
      has_i16 = true;
    }
  }
};

// Output features [b, e) of one weight, n_rows below the GEMM size.
void GemvRange(const GemvActivations& xa, const float* x, int64_t n_rows, const WeightRef& w,
               const float* bias, float* y, int64_t b, int64_t e) {
  if (!w.quantized()) {
    detail::GemvFloatRange(x, n_rows, w, bias, y, b, e);
  } else if (!Int8KernelsActive()) {
    detail::GemvInt16Range(xa.i16, w, bias, y, b, e);  // portable: Q8 and Q4
  } else if (w.type == WeightType::Q4) {
    GemvQ4Int8Range(xa.i8, w, bias, y, b, e);
  } else if (w.type == WeightType::Q6) {
    GemvQ6Int8Range(xa.i8, w, bias, y, b, e);
  } else {
    GemvQ8Int16Range(xa.i16, w, bias, y, b, e);
  }
}

// Which kernel family a call takes (kernels/cpu/README.md has the table).
enum class Path { kGemv, kPackedF32, kInt8Gemm };

Path ChoosePath(int64_t n_rows, const WeightRef& w) {
  if (!w.quantized()) return n_rows >= detail::kPackedGemmMinRows ? Path::kPackedF32 : Path::kGemv;
  // Q6 (the 4-bit models' LM head, called with the rows whose logits are wanted) has no
  // integer GEMM: its GEMV takes any row count, four activation rows per weight load.
  if (Int8KernelsActive())
    return n_rows >= Int8GemmMinRows() && w.type != WeightType::Q6 ? Path::kInt8Gemm : Path::kGemv;
  return n_rows >= detail::kPackedGemmMinRowsQuantized ? Path::kPackedF32 : Path::kGemv;
}

// Compute-bound GEMMs (prefill, vision) split across the threads by contiguous runs of
// 64-feature chunks (whole panels of every kernel).
template <class Fn>
void SplitFeatures(const WeightRef& w, ThreadPool* pool, const Fn& range) {
  constexpr int64_t kChunk = 64;
  const int64_t chunks = (w.rows + kChunk - 1) / kChunk;
  ParallelFor(pool, static_cast<size_t>(chunks), [&](size_t begin, size_t end) {
    range(static_cast<int64_t>(begin) * kChunk, std::min(static_cast<int64_t>(end) * kChunk, w.rows));
  }, 1);
}

void PackedGemm(const float* x, int64_t n_rows, const WeightRef& w, const float* bias, float* y,
                ThreadPool* pool) {
  SplitFeatures(w, pool, [&](int64_t b, int64_t e) { detail::GemmPackedRange(x, n_rows, w, bias, y, b, e); });
}

void Int8Gemm(const Int8Activations& xa, const WeightRef& w, const float* bias, float* y,
              ThreadPool* pool) {
  SplitFeatures(w, pool, [&](int64_t b, int64_t e) { GemmInt8Range(xa, w, bias, y, b, e); });
}

}  // namespace

void MatmulShared(const float* x, int64_t n_rows, const MatmulOutput* outs, size_t n_outs,
                  ThreadPool* pool) {
  if (n_rows <= 0) return;
  // GEMM-sized ones are compute-bound: one at a time, each split across the threads; the
  // integer GEMMs share one quantization of x.
  std::vector<const MatmulOutput*> gemv;
  GemvActivations xa;
  Int8Activations xa_gemm;
  bool has_xa_gemm = false;
  int64_t total = 0;
  for (size_t i = 0; i < n_outs; ++i) {
    const MatmulOutput& o = outs[i];
    if (o.w->rows <= 0) continue;
    switch (ChoosePath(n_rows, *o.w)) {
      case Path::kPackedF32:
        PackedGemm(x, n_rows, *o.w, o.bias, o.y, pool);
        continue;
      case Path::kInt8Gemm:
        if (!has_xa_gemm) QuantizeActivationsInt8(x, n_rows, o.w->cols, &xa_gemm);
        has_xa_gemm = true;
        Int8Gemm(xa_gemm, *o.w, o.bias, o.y, pool);
        continue;
      case Path::kGemv:
        break;
    }
    xa.Prepare(x, n_rows, *o.w);
    gemv.push_back(&o);
    total += o.w->rows;
  }
  if (gemv.empty()) return;
  // Output features are split across threads (contiguous ranges: each thread streams its own
  // part of each W once), the activations quantized once before the split.
  // Global row r of the concatenation belongs to the weight whose [offset, offset + rows) holds it.
  auto body = [&](size_t begin, size_t end) {
    int64_t offset = 0;
    for (const MatmulOutput* o : gemv) {
      const int64_t b = std::max<int64_t>(static_cast<int64_t>(begin), offset);
      const int64_t e = std::min<int64_t>(static_cast<int64_t>(end), offset + o->w->rows);
      if (b < e) GemvRange(xa, x, n_rows, *o->w, o->bias, o->y, b - offset, e - offset);
      offset += o->w->rows;
    }
  };
  ParallelFor(pool, static_cast<size_t>(total), body, 16);
}

void Matmul(const float* x, int64_t n_rows, const WeightRef& w, const float* bias, float* y,
            ThreadPool* pool) {
  if (n_rows <= 0 || w.rows <= 0) return;
  const MatmulOutput one{&w, bias, y};
  MatmulShared(x, n_rows, &one, 1, pool);
}

}  // namespace glance::kernels
