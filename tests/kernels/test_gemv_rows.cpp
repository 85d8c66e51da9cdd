// The GEMVs for several activation rows — Q8/Q4/Q6 for 1–7 (gemv_int8_body.inc on x86,
// gemv_int16.cpp portable), F32/BF16/F16 for 2–7 (gemv_float.cpp): the speculative verify's
// projections (issue 14). Each against its scalar oracle
// with block, SIMD and weight-group tails, on every x86 instruction set this CPU has and the
// portable kernels (the latter on every Highway target, as test_kernel_ops runs); each
// multi-row result equal bit for bit to the one-row call on that row (what makes speculative
// greedy output identical to plain decoding's); negative controls.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/gemm_int8.h"
#include "kernels/cpu/gemm_packed.h"
#include "kernels/cpu/gemv_int8.h"
#include "kernels/cpu/gemv_kernels.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/numeric.h"
#include "kernels/cpu/quant_formats.h"
#include "kernels/cpu/thread_pool.h"

using namespace glance::kernels;

namespace {

// in: 1 block, odd block counts (the Q4 kernel's natural-order last block), partial blocks,
// block counts that are not a multiple of 8 (the scale tail), the 2B model's 2048 and 6144.
// out: fewer features than weight streams, and counts that leave every group size as a tail.
struct Shape {
  int64_t in, out;
};
const Shape kShapes[] = {{32, 3}, {31, 5}, {96, 9}, {257, 37}, {288, 13}, {2048, 70}, {6144, 11}};

struct Weights {
  std::vector<float> f32;
  WeightRef w;
  std::vector<float> dequantized;  // w.at(o, k), for the error scale
};

Weights MakeWeights(WeightType type, int64_t out, int64_t in, std::mt19937& rng) {
  std::normal_distribution<float> nd(0.0f, 0.5f);
  Weights b;
  b.f32.resize(static_cast<size_t>(out * in));
  for (auto& v : b.f32) v = nd(rng);
  if (in > 40) b.f32[3] = 4.0f;  // one block with a much larger scale than the others
  b.w = QuantizeMatrix(WeightRef{WeightType::F32, b.f32.data(), out, in}, type, nullptr);
  b.dequantized.resize(b.f32.size());
  for (int64_t o = 0; o < out; ++o)
    for (int64_t k = 0; k < in; ++k) b.dequantized[size_t(o * in + k)] = b.w.at(o, k);
  return b;
}

std::vector<float> RandomRows(int64_t rows, int64_t in, std::mt19937& rng) {
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(rows * in));
  for (auto& v : x) v = nd(rng);
  return x;
}

// Worst |y − ref| over Σ|x·w| (+|bias|), the scale of every partial sum an f32 accumulator
// holds: only f32 rounding remains between a kernel and its oracle, ≈ 1e-7 of it.
double WorstRelativeError(const std::vector<float>& x, const Weights& wb, const std::vector<float>& bias,
                          const std::vector<float>& y, const std::vector<float>& ref, int64_t rows,
                          int64_t o_begin, int64_t o_end) {
  const int64_t in = wb.w.cols, out = wb.w.rows;
  double worst = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t o = o_begin; o < o_end; ++o) {
      double mag = std::fabs(double(bias[size_t(o)]));
      for (int64_t k = 0; k < in; ++k)
        mag += std::fabs(double(x[size_t(i * in + k)]) * double(wb.dequantized[size_t(o * in + k)]));
      const size_t at = size_t(i * out + o);
      worst = std::max(worst, std::fabs(double(y[at]) - double(ref[at])) / (mag + 1e-30));
    }
  return worst;
}

constexpr double kTolerance = 4e-6;
constexpr float kCanary = -12345.0f;

// Runs `body(label)` once per x86 instruction set this CPU has (the int8 kernels) and once on
// the portable kernels, restoring the defaults after.
template <class Body>
void ForEveryKernelSet(const Body& body) {
  for (const char* isa : {"avx2", "avx-vnni", "avx512-vnni"}) {
    if (!SelectInt8KernelIsa(isa)) {
      std::printf("gemv rows: %s not on this CPU\n", isa);
      continue;
    }
    SetInt8KernelsEnabled(true);
    body(Int8KernelName());
  }
  SelectInt8KernelIsa("");
  SetInt8KernelsEnabled(false);
  body("portable");
  SetInt8KernelsEnabled(true);
}

// The kernel Matmul runs below the integer GEMM for this weight type and kernel set, on
// features [o_begin, o_end) of x_kernel, into y; and its oracle on x_oracle into ref: the
// same quantized activations times the dequantized weights in double.
void KernelAndOracle(const WeightRef& w, const std::vector<float>& x_kernel, const std::vector<float>& x_oracle,
                     int64_t rows, const std::vector<float>& bias, int64_t o_begin, int64_t o_end,
                     std::vector<float>& y, std::vector<float>& ref) {
  const bool x86 = Int8KernelsActive();
  if (x86 && (w.type == WeightType::Q4 || w.type == WeightType::Q6)) {
    Int8Activations xa;
    QuantizeActivationsInt8(x_kernel.data(), rows, w.cols, &xa);
    if (w.type == WeightType::Q4) {
      GemvQ4Int8Range(xa, w, bias.data(), y.data(), o_begin, o_end);
    } else {
      GemvQ6Int8Range(xa, w, bias.data(), y.data(), o_begin, o_end);
    }
    QuantizeActivationsInt8(x_oracle.data(), rows, w.cols, &xa);
    MatmulInt8Reference(xa, w, bias.data(), ref.data());
  } else {
    QuantizedActivations xa;
    QuantizeActivations(x_kernel.data(), rows, w.cols, &xa);
    if (x86) {
      GemvQ8Int16Range(xa, w, bias.data(), y.data(), o_begin, o_end);
    } else {
      detail::GemvInt16Range(xa, w, bias.data(), y.data(), o_begin, o_end);
    }
    QuantizeActivations(x_oracle.data(), rows, w.cols, &xa);
    MatmulInt16Reference(xa, w, bias.data(), ref.data());
  }
}

// Every row count below the integer GEMM, on a sub-range of the features (the unit a thread
// gets), against the oracle; the features outside the sub-range must be left alone.
TEST(GemvRows, MatchOracleOnSubRangesWithTails) {
  ForEveryKernelSet([](const char* set) {
    for (WeightType type : {WeightType::Q8, WeightType::Q4, WeightType::Q6})
      for (const Shape& s : kShapes)
        for (int64_t rows = 1; rows <= 7; ++rows) {
          std::mt19937 rng(unsigned(s.in * 7 + s.out * 3 + rows + int(type)));
          const Weights wb = MakeWeights(type, s.out, s.in, rng);
          const std::vector<float> x = RandomRows(rows, s.in, rng), bias = RandomRows(1, s.out, rng);
          const int64_t o_begin = s.out > 4 ? 1 : 0, o_end = s.out > 4 ? s.out - 2 : s.out;
          std::vector<float> y(size_t(rows * s.out), kCanary), ref(y.size());
          KernelAndOracle(wb.w, x, x, rows, bias, o_begin, o_end, y, ref);
          EXPECT_LE(WorstRelativeError(x, wb, bias, y, ref, rows, o_begin, o_end), kTolerance)
              << set << " " << WeightTypeName(type) << " rows " << rows << " " << s.out << "x" << s.in;
          for (int64_t i = 0; i < rows; ++i)
            for (int64_t o = 0; o < s.out; ++o)
              if (o < o_begin || o >= o_end) {
                EXPECT_EQ(y[size_t(i * s.out + o)], kCanary) << set << " wrote outside its range";
              }
        }
  });
}

// Row i of an n-row Matmul is bit for bit the one-row Matmul of x[i], for every row count that
// takes the GEMV (below Int8GemmMinRows), with threads: per (weight row, activation row) the
// kernels do the same arithmetic whatever the tile. Negative control: the check sees a
// one-ulp difference, and rows given in another order do not match.
TEST(GemvRows, EveryRowEqualsItsOneRowCallBitForBit) {
  ThreadPool pool(2);
  ForEveryKernelSet([&](const char* set) {
    for (WeightType type : {WeightType::Q8, WeightType::Q4, WeightType::Q6})
      for (const Shape& s : kShapes)
        for (int64_t rows = 2; rows < Int8GemmMinRows(); ++rows) {
          std::mt19937 rng(unsigned(s.in * 5 + s.out + rows * 11 + int(type)));
          const Weights wb = MakeWeights(type, s.out, s.in, rng);
          const std::vector<float> x = RandomRows(rows, s.in, rng), bias = RandomRows(1, s.out, rng);
          std::vector<float> multi(size_t(rows * s.out)), one(multi.size());
          Matmul(x.data(), rows, wb.w, bias.data(), multi.data(), &pool);
          for (int64_t i = 0; i < rows; ++i)
            Matmul(x.data() + i * s.in, 1, wb.w, bias.data(), one.data() + i * s.out, &pool);
          EXPECT_EQ(multi, one) << set << " " << WeightTypeName(type) << " rows " << rows << " " << s.out
                                << "x" << s.in;
          // Negative controls.
          std::vector<float> off = one;
          off[size_t(s.out / 2)] = std::nextafter(off[size_t(s.out / 2)], 1e30f);
          EXPECT_NE(multi, off);
          std::vector<float> swapped = x;
          std::swap_ranges(swapped.begin(), swapped.begin() + s.in, swapped.begin() + s.in);
          Matmul(swapped.data(), rows, wb.w, bias.data(), multi.data(), &pool);
          EXPECT_NE(multi, one) << set << " rows in another order matched";
        }
  });
}

// The float formats: below kPackedGemmMinRows (8) rows go through the GEMV (3 rows per weight
// pass, then the rest), each row bit for bit its one-row result (the oracle comparison of
// these rows is test_quant_kernels.cpp's), odd lengths for the vector and scalar tails.
TEST(GemvRows, FloatRowsEqualTheirOneRowCallBitForBit) {
  ThreadPool pool(2);
  for (WeightType type : {WeightType::F32, WeightType::BF16, WeightType::F16})
    for (const Shape& s : kShapes)
      for (int64_t rows = 2; rows < detail::kPackedGemmMinRows; ++rows) {
        std::mt19937 rng(unsigned(s.in * 3 + s.out + rows + int(type)));
        std::vector<float> wf = RandomRows(s.out, s.in, rng);
        std::vector<uint16_t> half(wf.size());
        WeightRef w{WeightType::F32, wf.data(), s.out, s.in};
        if (type == WeightType::BF16) {
          for (size_t i = 0; i < wf.size(); ++i) half[i] = f32_to_bf16(wf[i]);
          w = WeightRef{WeightType::BF16, half.data(), s.out, s.in};
        } else if (type == WeightType::F16) {  // sign, exponent 2^-5 .. 2^3, random mantissa
          for (auto& h : half) h = static_cast<uint16_t>((rng() & 0x8000) | ((10 + rng() % 9) << 10) | (rng() & 0x3ff));
          w = WeightRef{WeightType::F16, half.data(), s.out, s.in};
        }
        const std::vector<float> x = RandomRows(rows, s.in, rng), bias = RandomRows(1, s.out, rng);
        std::vector<float> multi(size_t(rows * s.out)), one(multi.size());
        Matmul(x.data(), rows, w, bias.data(), multi.data(), &pool);
        for (int64_t i = 0; i < rows; ++i)
          Matmul(x.data() + i * s.in, 1, w, bias.data(), one.data() + i * s.out, &pool);
        EXPECT_EQ(multi, one) << WeightTypeName(type) << " rows " << rows << " " << s.out << "x" << s.in;
        std::vector<float> swapped = x;  // negative control: rows in another order do not match
        std::swap_ranges(swapped.begin(), swapped.begin() + s.in, swapped.begin() + s.in);
        Matmul(swapped.data(), rows, w, bias.data(), multi.data(), &pool);
        EXPECT_NE(multi, one);
      }
}

// Negative control of the oracle comparison: a kernel result with one activation row
// replaced by another (as a kernel mixing up its rows would give) is far outside the tolerance.
TEST(GemvRows, NegativeControlMixedUpRowsAreCaught) {
  ForEveryKernelSet([](const char* set) {
    for (WeightType type : {WeightType::Q8, WeightType::Q4, WeightType::Q6}) {
      std::mt19937 rng(5);
      const int64_t rows = 3, in = 288, out = 13;
      const Weights wb = MakeWeights(type, out, in, rng);
      const std::vector<float> x = RandomRows(rows, in, rng), bias = RandomRows(1, out, rng);
      std::vector<float> mixed = x;
      std::copy(x.begin(), x.begin() + in, mixed.begin() + 2 * in);  // row 2 := row 0
      std::vector<float> y(size_t(rows * out)), ref(y.size());
      KernelAndOracle(wb.w, mixed, x, rows, bias, 0, out, y, ref);
      EXPECT_GT(WorstRelativeError(x, wb, bias, y, ref, rows, 0, out), 1e3 * kTolerance)
          << set << " " << WeightTypeName(type);
    }
  });
}

}  // namespace
