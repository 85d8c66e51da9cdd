#include "kernels/npu/emulate_gemm.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/cpu/activations.h"
#include "kernels/cpu/numeric.h"
#include "kernels/cpu/thread_pool.h"
#include "kernels/kernel_error.h"

namespace glance::kernels::npu {

namespace {

// A matrix side as the core holds it: per 8-block its exponent byte and 8 int8 mantissas.
struct Blocks {
  std::vector<int> exp;          // [rows][k_pad/8]
  std::vector<int8_t> mantissa;  // [rows][k_pad]
};

float Accumulate(const int* ea, const int8_t* ma, const int* eb, const int8_t* mb, int64_t blocks) {
  float acc = 0.0f;
  for (int64_t b = 0; b < blocks; ++b) {
    int32_t s = 0;  // |m| <= 128: |s| <= 8·2^14, exact
    for (int i = 0; i < kBfpGroup; ++i) s += int32_t{ma[b * 8 + i]} * int32_t{mb[b * 8 + i]};
    if (s != 0) acc += std::ldexp(static_cast<float>(s), ea[b] + eb[b] - 266);
  }
  return acc;
}

}  // namespace

void EmulateGemm(const uint16_t* a, int64_t m, const PackedWeight& w, uint16_t* c, Rounding rounding,
                 ThreadPool* pool, Epilogue epilogue) {
  const int64_t K = w.k_pad, N = w.n_pad, KB = K / kBfpGroup;
  const bool pairs = epilogue == Epilogue::kSwiGluPairs;
  if (pairs && N % (2 * kPairHalf) != 0)
    throw Error("NPU emulator: the paired SwiGLU epilogue needs N a multiple of 64, got " + std::to_string(N));
  const int64_t ldc = pairs ? N / 2 : N;
  // The activations, converted in the core: blocks of 8 consecutive k of a row.
  Blocks act{std::vector<int>(static_cast<size_t>(m * KB)), std::vector<int8_t>(static_cast<size_t>(m * K))};
  for (int64_t r = 0; r < m; ++r)
    for (int64_t b = 0; b < KB; ++b) {
      float v[kBfpGroup];
      uint8_t block[kBfpBlockBytes];
      for (int i = 0; i < kBfpGroup; ++i) v[i] = bf16_to_f32(a[r * K + b * 8 + i]);
      EncodeBlock(v, block, rounding);
      act.exp[static_cast<size_t>(r * KB + b)] = block[0];
      for (int i = 0; i < kBfpGroup; ++i) act.mantissa[static_cast<size_t>(r * K + b * 8 + i)] = static_cast<int8_t>(block[1 + i]);
    }
  // One unit of work: 8 columns (kNone) or one 64-column pair block (kSwiGluPairs), whose
  // f32 accumulators the store combines before rounding.
  const int64_t unit = pairs ? 2 * kPairHalf : 8;
  auto work = [&](size_t u0, size_t u1) {
    std::vector<int> we(static_cast<size_t>(KB));
    std::vector<int8_t> wm(static_cast<size_t>(K));
    std::vector<float> acc(static_cast<size_t>(m * unit));
    for (size_t u = u0; u < u1; ++u) {
      const int64_t n0 = static_cast<int64_t>(u) * unit;
      for (int64_t j = 0; j < unit; ++j) {
        for (int64_t b = 0; b < KB; ++b) {
          const uint8_t* blk = w.bytes.data() + BlockOffset(n0 + j, b * 8, w);
          we[static_cast<size_t>(b)] = blk[0];
          for (int i = 0; i < kBfpGroup; ++i) wm[static_cast<size_t>(b * 8 + i)] = static_cast<int8_t>(blk[1 + i]);
        }
        for (int64_t r = 0; r < m; ++r)
          acc[static_cast<size_t>(r * unit + j)] =
              Accumulate(act.exp.data() + r * KB, act.mantissa.data() + r * K, we.data(), wm.data(), KB);
      }
      for (int64_t r = 0; r < m; ++r) {
        const float* ar = acc.data() + r * unit;
        if (pairs) {
          for (int64_t j = 0; j < kPairHalf; ++j)
            c[r * ldc + n0 / 2 + j] = F32ToBf16(Silu(ar[j]) * ar[kPairHalf + j], rounding);
        } else {
          for (int64_t j = 0; j < unit; ++j) c[r * ldc + n0 + j] = F32ToBf16(ar[j], rounding);
        }
      }
    }
  };
  ParallelFor(pool, static_cast<size_t>(N / unit), work, 1);
}

// Quantizes each 8-block of a row of length k by the value rule.
static void QuantizeRow(const float* in, int64_t k, Rounding rounding, float* out) {
  for (int64_t k0 = 0; k0 < k; k0 += kBfpGroup) {
    const int64_t k1 = std::min(k, k0 + kBfpGroup);
    int e = 0;
    for (int64_t i = k0; i < k1; ++i) e = std::max(e, BiasedExponent(in[i]));
    for (int64_t i = k0; i < k1; ++i) out[i] = QuantizeInBlock(in[i], e, rounding);
  }
}

void ReferenceBfpMatmul(const float* x, int64_t m, const float* w, int64_t n, int64_t k, Rounding rounding,
                        float* y) {
  std::vector<float> wq(static_cast<size_t>(n * k)), xq(static_cast<size_t>(k)), xb(static_cast<size_t>(k));
  for (int64_t r = 0; r < n; ++r) QuantizeRow(w + r * k, k, rounding, wq.data() + r * k);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < k; ++j) xb[static_cast<size_t>(j)] = round_bf16(x[i * k + j]);
    QuantizeRow(xb.data(), k, rounding, xq.data());
    for (int64_t o = 0; o < n; ++o) {
      float acc = 0.0f;
      for (int64_t k0 = 0; k0 < k; k0 += kBfpGroup) {
        double s = 0.0;
        for (int64_t j = k0; j < std::min(k, k0 + kBfpGroup); ++j)
          s += static_cast<double>(xq[static_cast<size_t>(j)]) * static_cast<double>(wq[static_cast<size_t>(o * k + j)]);
        acc += static_cast<float>(s);
      }
      y[i * n + o] = bf16_to_f32(F32ToBf16(acc, rounding));
    }
  }
}

void ReferenceBfpSwiGlu(const float* x, int64_t m, const float* w, int64_t n, int64_t k, Rounding rounding,
                        float* y) {
  if (n % (2 * kPairHalf) != 0) throw Error("ReferenceBfpSwiGlu: n must be a multiple of 64");
  std::vector<float> wq(static_cast<size_t>(n * k)), xq(static_cast<size_t>(k)), xb(static_cast<size_t>(k));
  std::vector<float> acc(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) QuantizeRow(w + r * k, k, rounding, wq.data() + r * k);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < k; ++j) xb[static_cast<size_t>(j)] = round_bf16(x[i * k + j]);
    QuantizeRow(xb.data(), k, rounding, xq.data());
    for (int64_t o = 0; o < n; ++o) {
      float sum = 0.0f;
      for (int64_t k0 = 0; k0 < k; k0 += kBfpGroup) {
        double s = 0.0;
        for (int64_t j = k0; j < std::min(k, k0 + kBfpGroup); ++j)
          s += static_cast<double>(xq[static_cast<size_t>(j)]) * static_cast<double>(wq[static_cast<size_t>(o * k + j)]);
        sum += static_cast<float>(s);
      }
      acc[static_cast<size_t>(o)] = sum;
    }
    // Pair block b: rows 64·b .. 64·b + 31 are gate, the next 32 up.
    for (int64_t b = 0; b < n / (2 * kPairHalf); ++b)
      for (int64_t j = 0; j < kPairHalf; ++j) {
        const float g = acc[static_cast<size_t>(2 * kPairHalf * b + j)], u = acc[static_cast<size_t>(2 * kPairHalf * b + kPairHalf + j)];
        y[i * (n / 2) + kPairHalf * b + j] = bf16_to_f32(F32ToBf16(Silu(g) * u, rounding));
      }
  }
}

}  // namespace glance::kernels::npu
