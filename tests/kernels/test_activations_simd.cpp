// SIMD activations (kernels/cpu/activations_simd.h) against their scalar references from
// activations.h, with the measured error printed, plus a negative control per kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "kernels/cpu/activations_simd.h"

namespace gk = glance::kernels;

namespace {

std::vector<float> Normal(size_t n, uint32_t seed, float sigma) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, sigma);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// Normal(0, 3) values plus an even sweep over [-12, 12] and a few extremes.
std::vector<float> GeluInputs() {
  std::vector<float> v = Normal(100003, 7, 3.0f);  // odd length: exercises the tail
  for (int i = 0; i <= 24000; ++i) v.push_back(-12.0f + 0.001f * static_cast<float>(i));
  for (float x : {0.0f, -0.0f, 1e-30f, -1e-30f, 30.0f, -30.0f, 100.0f, -100.0f, 1e4f, -1e4f})
    v.push_back(x);
  return v;
}

// Largest |got - ref| / max(1, |x|) (absolute for |x| ≤ 1, relative to x beyond).
double MaxScaledErr(const std::vector<float>& x, const std::vector<float>& got,
                    const std::vector<float>& ref) {
  double e = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = std::fabs(double(got[i]) - double(ref[i]));
    e = std::max(e, d / std::max(1.0, std::fabs(double(x[i]))));
  }
  return e;
}

}  // namespace

TEST(ActivationsSimd, GeluTanhMatchesScalar) {
  const std::vector<float> x = GeluInputs();
  for (size_t n : {x.size(), size_t(1), size_t(7), size_t(33)}) {
    std::vector<float> got(x.begin(), x.begin() + long(n)), ref = got;
    gk::GeluTanhInPlace(got.data(), int64_t(n));
    gk::GeluTanhInPlaceReference(ref.data(), int64_t(n));
    const std::vector<float> xs(x.begin(), x.begin() + long(n));
    const double e = MaxScaledErr(xs, got, ref);
    if (n == x.size()) std::printf("gelu_tanh: max |err| / max(1,|x|) = %.3g over %zu inputs\n", e, n);
    EXPECT_LE(e, 1e-6) << n;
    for (float g : got) ASSERT_TRUE(std::isfinite(g));
  }
}

TEST(ActivationsSimd, GeluErfMatchesScalar) {
  const std::vector<float> x = GeluInputs();
  std::vector<float> got = x, ref = x;
  gk::GeluErfInPlace(got.data(), int64_t(got.size()));
  gk::GeluErfInPlaceReference(ref.data(), int64_t(ref.size()));
  const double e = MaxScaledErr(x, got, ref);
  std::printf("gelu_erf: max |err| / max(1,|x|) = %.3g over %zu inputs\n", e, x.size());
  EXPECT_LE(e, 1e-6);
  for (float g : got) ASSERT_TRUE(std::isfinite(g));
}

TEST(ActivationsSimd, GeluNegativeControl) {
  // A tanh gelu is not an erf gelu: the comparison sees the ~1e-3 difference between them.
  const std::vector<float> x = GeluInputs();
  std::vector<float> a = x, b = x;
  gk::GeluTanhInPlace(a.data(), int64_t(a.size()));
  gk::GeluErfInPlaceReference(b.data(), int64_t(b.size()));
  EXPECT_GT(MaxScaledErr(x, a, b), 1e-4);
}

TEST(ActivationsSimd, SoftmaxMatchesScalar) {
  for (int64_t n : {1, 5, 16, 17, 196, 1200, 1201}) {
    const std::vector<float> x = Normal(size_t(n), uint32_t(n), 8.0f);
    std::vector<float> got = x, ref = x;
    gk::SoftmaxScaledInPlace(got.data(), n, 0.125f);
    gk::SoftmaxScaledInPlaceReference(ref.data(), n, 0.125f);
    double max_rel = 0.0, sum = 0.0;
    for (size_t i = 0; i < got.size(); ++i) {
      max_rel = std::max(max_rel, std::fabs(double(got[i]) - double(ref[i])) / std::max(1e-30, double(ref[i])));
      sum += double(got[i]);
    }
    std::printf("softmax n=%lld: max rel err %.3g\n", static_cast<long long>(n), max_rel);
    EXPECT_LE(max_rel, 1e-5) << n;
    EXPECT_NEAR(sum, 1.0, 1e-5) << n;
  }
  // Negative control: a different scale is visibly different.
  const std::vector<float> x = Normal(196, 3, 8.0f);
  std::vector<float> a = x, b = x;
  gk::SoftmaxScaledInPlace(a.data(), 196, 0.125f);
  gk::SoftmaxScaledInPlaceReference(b.data(), 196, 0.13f);
  double d = 0.0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(double(a[i]) - double(b[i])));
  EXPECT_GT(d, 1e-4);
}

TEST(ActivationsSimd, LayerNormRowsMatchesScalar) {
  const int64_t rows = 9, dim = 1029;  // dim not a multiple of any vector width
  std::vector<float> x = Normal(size_t(rows * dim), 11, 2.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] += 3.0f;  // a mean to subtract
  const std::vector<float> w = Normal(size_t(dim), 12, 1.0f), b = Normal(size_t(dim), 13, 1.0f);
  std::vector<float> got(x.size()), ref(x.size());
  for (const float* bias : {b.data(), static_cast<const float*>(nullptr)}) {
    gk::LayerNormRows(x.data(), rows, dim, w.data(), bias, 1e-6f, got.data());
    gk::LayerNormRowsReference(x.data(), rows, dim, w.data(), bias, 1e-6f, ref.data());
    double e = 0.0;
    for (size_t i = 0; i < got.size(); ++i) e = std::max(e, std::fabs(double(got[i]) - double(ref[i])));
    std::printf("layer_norm: max |err| %.3g\n", e);
    EXPECT_LE(e, 1e-5);
  }
  // In place gives the same numbers.
  std::vector<float> inplace = x;
  gk::LayerNormRows(inplace.data(), rows, dim, w.data(), b.data(), 1e-6f, inplace.data());
  gk::LayerNormRows(x.data(), rows, dim, w.data(), b.data(), 1e-6f, got.data());
  EXPECT_EQ(inplace, got);
  // Negative control: another eps is visible.
  gk::LayerNormRowsReference(x.data(), rows, dim, w.data(), b.data(), 1e-1f, ref.data());
  double e = 0.0;
  for (size_t i = 0; i < got.size(); ++i) e = std::max(e, std::fabs(double(got[i]) - double(ref[i])));
  EXPECT_GT(e, 1e-4);
}

// SiLU and the two gates (issue 31: the language model's DeltaNet conv output, gated RMSNorm
// and attention output gate, once a scalar expf each) against their scalar references.
TEST(ActivationsSimd, SiluAndGatesMatchScalar) {
  const std::vector<float> x = GeluInputs();
  for (size_t n : {x.size(), size_t(1), size_t(7), size_t(33)}) {
    const std::vector<float> xs(x.begin(), x.begin() + long(n));
    std::vector<float> got = xs, ref = xs;
    gk::SiluInPlace(got.data(), int64_t(n));
    gk::SiluInPlaceReference(ref.data(), int64_t(n));
    const double e = MaxScaledErr(xs, got, ref);
    if (n == x.size()) std::printf("silu: max |err| / max(1,|x|) = %.3g over %zu inputs\n", e, n);
    EXPECT_LE(e, 1e-6) << n;
    // y ⊙ silu(z) and y ⊙ sigmoid(z), y normal(0, 2): error relative to max(1, |y·z|) and to
    // max(1, |y|).
    const std::vector<float> y = Normal(n, 11, 2.0f);
    std::vector<float> prod(n);
    for (size_t i = 0; i < n; ++i) prod[i] = y[i] * xs[i];
    std::vector<float> g1 = y, r1 = y, g2 = y, r2 = y;
    gk::MulSiluInPlace(g1.data(), xs.data(), int64_t(n));
    gk::MulSiluInPlaceReference(r1.data(), xs.data(), int64_t(n));
    gk::MulSigmoidInPlace(g2.data(), xs.data(), int64_t(n));
    gk::MulSigmoidInPlaceReference(r2.data(), xs.data(), int64_t(n));
    const double e1 = MaxScaledErr(prod, g1, r1), e2 = MaxScaledErr(y, g2, r2);
    if (n == x.size()) std::printf("y*silu(z): %.3g, y*sigmoid(z): %.3g\n", e1, e2);
    EXPECT_LE(e1, 1e-6) << n;
    EXPECT_LE(e2, 1e-6) << n;
    for (size_t i = 0; i < n; ++i) ASSERT_TRUE(std::isfinite(got[i]) && std::isfinite(g1[i]) && std::isfinite(g2[i]));
  }
  // Negative control: a sigmoid gate is not a SiLU gate — the comparison sees it.
  const std::vector<float> y(x.size(), 1.0f);
  std::vector<float> a = y, b = y;
  gk::MulSigmoidInPlace(a.data(), x.data(), int64_t(x.size()));
  gk::MulSiluInPlaceReference(b.data(), x.data(), int64_t(x.size()));
  EXPECT_GT(MaxScaledErr(x, a, b), 1e-2);
}
