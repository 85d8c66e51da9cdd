// SIMD kernels of the non-matmul loops (attention, delta rule, vector ops, triad) against their
// scalar references, with error statistics, plus negative controls showing the comparison bites.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "tests/kernels/random_vectors.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/bandwidth.h"
#include "kernels/cpu/thread_pool.h"
#include "kernels/cpu/delta_rule_simd.h"
#include "kernels/cpu/vector_ops.h"

namespace gk = glance::kernels;

namespace {


struct ErrStats {
  double max_abs = 0.0, max_rel = 0.0, rms = 0.0;
};

// Max absolute error, max error relative to the reference's largest magnitude, RMS error.
ErrStats Compare(const std::vector<float>& got, const std::vector<float>& ref) {
  ErrStats e;
  double peak = 1e-30, ss = 0.0;
  for (float r : ref) peak = std::max(peak, std::fabs(static_cast<double>(r)));
  for (size_t i = 0; i < ref.size(); ++i) {
    const double d = std::fabs(static_cast<double>(got[i]) - static_cast<double>(ref[i]));
    e.max_abs = std::max(e.max_abs, d);
    ss += d * d;
  }
  e.max_rel = e.max_abs / peak;
  e.rms = std::sqrt(ss / static_cast<double>(std::max<size_t>(ref.size(), 1)));
  return e;
}

void Report(const char* what, const ErrStats& e) {
  std::printf("%-28s max_abs %.3g  max_rel %.3g  rms %.3g\n", what, e.max_abs, e.max_rel, e.rms);
}

}  // namespace

TEST(VectorOps, AxpyAndScaleMatchReferenceAtOddLengths) {
  for (int64_t n : {1, 7, 8, 15, 16, 17, 64, 129, 256, 1000}) {
    const auto x = gk::testing::RandomNormal(static_cast<size_t>(n), 1);
    auto y = gk::testing::RandomNormal(static_cast<size_t>(n), 2), y_ref = y;
    gk::Axpy(0.37f, x.data(), y.data(), n);
    gk::AxpyReference(0.37f, x.data(), y_ref.data(), n);
    const ErrStats e = Compare(y, y_ref);
    EXPECT_LE(e.max_rel, 1e-6) << "n=" << n;  // one FMA vs mul+add per element
    gk::Scale(-1.5f, y.data(), n);
    gk::ScaleReference(-1.5f, y_ref.data(), n);
    EXPECT_LE(Compare(y, y_ref).max_rel, 1e-6) << "n=" << n;
  }
}

// MatMulAdd is the Axpy loop it replaces in the delta rule, bit for bit (the same fused
// multiply-adds in the same order), over row counts around the 4-row block, column counts
// around one and two vectors with scalar tails, and leading dimensions past the widths; and it
// is a matrix product (the double-precision reference), so a transposed or skipped operand fails.
TEST(VectorOps, MatMulAddIsTheAxpyLoopBitForBitAndAProduct) {
  for (int64_t m : {1, 3, 4, 5, 9})
    for (int64_t k : {1, 2, 17, 64})
      for (int64_t n : {1, 7, 16, 33, 128, 130}) {
        const int64_t lda = k + 3, ldb = n + 5, ldc = n + 2;
        const auto a = gk::testing::RandomNormal(static_cast<size_t>(m * lda), 11);
        const auto b = gk::testing::RandomNormal(static_cast<size_t>(k * ldb), 12);
        const auto c0 = gk::testing::RandomNormal(static_cast<size_t>(m * ldc), 13);
        std::vector<float> c = c0, c_axpy = c0, c_ref = c0;
        gk::MatMulAdd(a.data(), lda, b.data(), ldb, c.data(), ldc, m, k, n);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t p = 0; p < k; ++p) gk::Axpy(a[size_t(i * lda + p)], b.data() + p * ldb, c_axpy.data() + i * ldc, n);
        gk::MatMulAddReference(a.data(), lda, b.data(), ldb, c_ref.data(), ldc, m, k, n);
        ASSERT_EQ(c, c_axpy) << m << "x" << k << "x" << n;
        // f32 accumulation over k terms of unit-normal products against double.
        for (size_t i = 0; i < c.size(); ++i)
          ASSERT_NEAR(c[i], c_ref[i], 1e-5 * (1.0 + double(k))) << m << "x" << k << "x" << n << " at " << i;
      }
}

TEST(AttentionKernels, ScoresMatchReference) {
  for (int64_t D : {64, 128, 256, 100}) {
    for (int64_t n : {1, 5, 64, 333}) {
      const int64_t stride = D + 3;  // not a multiple of the vector width
      const auto q = gk::testing::RandomNormal(static_cast<size_t>(D), 3);
      const auto keys = gk::testing::RandomNormal(static_cast<size_t>(n * stride), 4);
      std::vector<float> s(static_cast<size_t>(n)), s_ref(s.size());
      const float scale = 1.0f / std::sqrt(static_cast<float>(D));
      gk::AttentionScores(q.data(), keys.data(), stride, n, D, scale, s.data());
      gk::AttentionScoresReference(q.data(), keys.data(), stride, n, D, scale, s_ref.data());
      const ErrStats es = Compare(s, s_ref);
      // Summation-order error is bounded by the condition scale Σ|q_i·k_i|, not by |q·k|
      // (a single score may cancel to near zero).
      std::vector<float> qa(q), ka(keys), bound(s.size());
      for (auto& x : qa) x = std::fabs(x);
      for (auto& x : ka) x = std::fabs(x);
      gk::AttentionScoresReference(qa.data(), ka.data(), stride, n, D, scale, bound.data());
      for (size_t j = 0; j < s.size(); ++j)
        EXPECT_LE(std::fabs(s[j] - s_ref[j]), 1e-6f * static_cast<float>(D) * bound[j])
            << "D=" << D << " n=" << n << " j=" << j;

      if (D == 256 && n == 333) Report("attention scores", es);
    }
  }
}

TEST(AttentionKernels, NegativeControlWrongStrideIsDetected) {
  const int64_t D = 128, n = 16;
  const auto q = gk::testing::RandomNormal(D, 6);
  const auto keys = gk::testing::RandomNormal(static_cast<size_t>(n * (D + 1)), 7);
  std::vector<float> s(n), s_ref(n);
  gk::AttentionScores(q.data(), keys.data(), D, n, D, 1.0f, s.data());  // wrong stride
  gk::AttentionScoresReference(q.data(), keys.data(), D + 1, n, D, 1.0f, s_ref.data());
  EXPECT_GT(Compare(s, s_ref).max_rel, 1e-2);
}

// Many decode steps with realistic inputs (unit-norm k, q/√dk, decays near 1): the fused
// two-pass step must track the literal loops over a long sequence.
TEST(DeltaRuleStep, MatchesReferenceOverManySteps) {
  for (int dv : {128, 64, 36}) {
    const int dk = 128;
    std::vector<float> S(static_cast<size_t>(dk * dv), 0.0f), S_ref(S);
    std::vector<float> out(static_cast<size_t>(dv)), out_ref(out.size()), scratch(2 * static_cast<size_t>(dv));
    std::mt19937 rng(8);
    std::uniform_real_distribution<float> u01(0.0f, 1.0f);
    ErrStats worst;
    for (int t = 0; t < 200; ++t) {
      auto q = gk::testing::RandomNormal(static_cast<size_t>(dk), 100u + static_cast<uint32_t>(t));
      auto k = gk::testing::RandomNormal(static_cast<size_t>(dk), 1000u + static_cast<uint32_t>(t));
      const auto v = gk::testing::RandomNormal(static_cast<size_t>(dv), 5000u + static_cast<uint32_t>(t));
      float qn = 0.0f, kn = 0.0f;
      for (int a = 0; a < dk; ++a) {
        qn += q[static_cast<size_t>(a)] * q[static_cast<size_t>(a)];
        kn += k[static_cast<size_t>(a)] * k[static_cast<size_t>(a)];
      }
      for (int a = 0; a < dk; ++a) {
        q[static_cast<size_t>(a)] /= std::sqrt(qn) * std::sqrt(static_cast<float>(dk));
        k[static_cast<size_t>(a)] /= std::sqrt(kn);
      }
      const float decay = std::exp(-0.5f * u01(rng)), beta = u01(rng);
      gk::DeltaRuleStep(S.data(), dk, dv, q.data(), k.data(), v.data(), decay, beta, out.data(), scratch.data());
      gk::DeltaRuleStepReference(S_ref.data(), dk, dv, q.data(), k.data(), v.data(), decay, beta,
                                 out_ref.data(), scratch.data());
      const ErrStats e = Compare(out, out_ref);
      worst.max_rel = std::max(worst.max_rel, e.max_rel);
      worst.max_abs = std::max(worst.max_abs, e.max_abs);
      worst.rms = std::max(worst.rms, e.rms);
    }
    const ErrStats es = Compare(S, S_ref);
    if (dv == 128) {
      Report("delta step out (worst step)", worst);
      Report("delta step state (t=200)", es);
    }
    EXPECT_LE(worst.max_rel, 1e-5) << "dv=" << dv;
    EXPECT_LE(es.max_rel, 1e-5) << "dv=" << dv;
  }
}

TEST(DeltaRuleStep, NegativeControlWrongDecayIsDetected) {
  const int dk = 32, dv = 32;
  auto S = gk::testing::RandomNormal(static_cast<size_t>(dk * dv), 9), S_ref = S;
  const auto q = gk::testing::RandomNormal(dk, 10, 0.2f), k = gk::testing::RandomNormal(dk, 11, 0.2f), v = gk::testing::RandomNormal(dv, 12);
  std::vector<float> out(dv), out_ref(dv), scratch(2 * dv);
  gk::DeltaRuleStep(S.data(), dk, dv, q.data(), k.data(), v.data(), 0.9f, 0.5f, out.data(), scratch.data());
  gk::DeltaRuleStepReference(S_ref.data(), dk, dv, q.data(), k.data(), v.data(), 0.8f, 0.5f,
                             out_ref.data(), scratch.data());
  EXPECT_GT(Compare(out, out_ref).max_rel, 1e-3);
}

TEST(Bandwidth, TriadComputesAndMeasures) {
  std::vector<float> a(1000), b(1000, 1.0f), c(1000, 2.0f);
  gk::Triad(a.data(), b.data(), c.data(), 3.0f, a.size());
  for (float x : a) ASSERT_EQ(x, 7.0f);
  const gk::BandwidthResult r = gk::MeasureTriadBandwidth(8u << 20, 2, nullptr);
  ASSERT_EQ(r.gb_per_s.size(), 2u);
  for (double g : r.gb_per_s) EXPECT_GT(g, 0.1);  // any real machine streams > 0.1 GB/s
  EXPECT_THROW(gk::MeasureTriadBandwidth(0, 1, nullptr), std::exception);
}

TEST(Bandwidth, ReadStreamsReadsEveryWordOnceAndMeasures) {
  // 37 lines: not a multiple of any stream count, so the leftover lines are read too.
  std::vector<uint64_t> a(37 * 8);
  uint64_t all = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = (i + 1) * 0x9E3779B97F4A7C15ull;
    all ^= a[i];
  }
  for (int streams : {1, 2, 3, 4, 5}) EXPECT_EQ(gk::ReadStreams(a.data(), a.size() * 8, streams), all) << streams;
  // Only the counted bytes are read: without the last line its words drop out of the checksum.
  EXPECT_EQ(gk::ReadStreams(a.data(), 36 * 64, 4), all ^ a[36 * 8] ^ a[36 * 8 + 1] ^ a[36 * 8 + 2] ^
                                                       a[36 * 8 + 3] ^ a[36 * 8 + 4] ^ a[36 * 8 + 5] ^
                                                       a[36 * 8 + 6] ^ a[36 * 8 + 7]);
  gk::ThreadPool pool(2);
  for (int passes : {1, 2}) {
    const gk::BandwidthResult r = gk::MeasureReadBandwidth(8u << 20, 4, passes, &pool);
    ASSERT_EQ(r.gb_per_s.size(), size_t(passes));
    for (double g : r.gb_per_s) EXPECT_GT(g, 0.0);
  }
  EXPECT_THROW(gk::MeasureReadBandwidth(0, 4, 1, nullptr), std::exception);
  EXPECT_THROW(gk::MeasureReadBandwidth(1 << 20, 0, 1, nullptr), std::exception);
}
