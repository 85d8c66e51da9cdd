// Highway dynamic dispatch: this file is compiled once per SIMD target (pattern: dot.cpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/vector_ops.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/cpu/vector_ops.h"

HWY_BEFORE_NAMESPACE();
namespace glance::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void AxpyImpl(float a, const float* x, float* y, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const auto va = hn::Set(d, a);
  int64_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    hn::StoreU(hn::MulAdd(va, hn::LoadU(d, x + i), hn::LoadU(d, y + i)), d, y + i);
    hn::StoreU(hn::MulAdd(va, hn::LoadU(d, x + i + N), hn::LoadU(d, y + i + N)), d, y + i + N);
  }
  for (; i + N <= n; i += N) hn::StoreU(hn::MulAdd(va, hn::LoadU(d, x + i), hn::LoadU(d, y + i)), d, y + i);
  for (; i < n; ++i) y[i] += a * x[i];
}

// Four rows of C × one or two vectors of columns in registers across the whole p loop; the
// columns Axpy leaves to its scalar tail (past the last whole vector) get its scalar form.
template <int R>
void MatMulAddRows(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t k,
                   int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t j = 0;
  for (; j + 2 * N <= n; j += 2 * N) {
    hn::Vec<decltype(d)> acc0[R], acc1[R];
    for (int r = 0; r < R; ++r) {
      acc0[r] = hn::LoadU(d, c + r * ldc + j);
      acc1[r] = hn::LoadU(d, c + r * ldc + j + N);
    }
    for (int64_t p = 0; p < k; ++p) {
      const auto b0 = hn::LoadU(d, b + p * ldb + j), b1 = hn::LoadU(d, b + p * ldb + j + N);
      for (int r = 0; r < R; ++r) {
        const auto va = hn::Set(d, a[r * lda + p]);
        acc0[r] = hn::MulAdd(va, b0, acc0[r]);
        acc1[r] = hn::MulAdd(va, b1, acc1[r]);
      }
    }
    for (int r = 0; r < R; ++r) {
      hn::StoreU(acc0[r], d, c + r * ldc + j);
      hn::StoreU(acc1[r], d, c + r * ldc + j + N);
    }
  }
  for (; j + N <= n; j += N) {
    hn::Vec<decltype(d)> acc[R];
    for (int r = 0; r < R; ++r) acc[r] = hn::LoadU(d, c + r * ldc + j);
    for (int64_t p = 0; p < k; ++p) {
      const auto bv = hn::LoadU(d, b + p * ldb + j);
      for (int r = 0; r < R; ++r) acc[r] = hn::MulAdd(hn::Set(d, a[r * lda + p]), bv, acc[r]);
    }
    for (int r = 0; r < R; ++r) hn::StoreU(acc[r], d, c + r * ldc + j);
  }
  for (int r = 0; r < R; ++r)
    for (int64_t p = 0; p < k; ++p) {
      const float ap = a[r * lda + p];
      for (int64_t i = j; i < n; ++i) c[r * ldc + i] += ap * b[p * ldb + i];
    }
}

void MatMulAddImpl(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t m,
                   int64_t k, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= m; i += 4) MatMulAddRows<4>(a + i * lda, lda, b, ldb, c + i * ldc, ldc, k, n);
  for (; i < m; ++i) MatMulAddRows<1>(a + i * lda, lda, b, ldb, c + i * ldc, ldc, k, n);
}

void ScaleImpl(float a, float* x, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const auto va = hn::Set(d, a);
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::Mul(va, hn::LoadU(d, x + i)), d, x + i);
  for (; i < n; ++i) x[i] *= a;
}

}  // namespace HWY_NAMESPACE
}  // namespace glance::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace glance::kernels {
HWY_EXPORT(AxpyImpl);
HWY_EXPORT(ScaleImpl);
HWY_EXPORT(MatMulAddImpl);

void Axpy(float a, const float* x, float* y, int64_t n) { HWY_DYNAMIC_DISPATCH(AxpyImpl)(a, x, y, n); }
void Scale(float a, float* x, int64_t n) { HWY_DYNAMIC_DISPATCH(ScaleImpl)(a, x, n); }

void MatMulAdd(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t m,
               int64_t k, int64_t n) {
  HWY_DYNAMIC_DISPATCH(MatMulAddImpl)(a, lda, b, ldb, c, ldc, m, k, n);
}

void MatMulAddReference(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc,
                        int64_t m, int64_t k, int64_t n) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = c[i * ldc + j];
      for (int64_t p = 0; p < k; ++p) s += double(a[i * lda + p]) * double(b[p * ldb + j]);
      c[i * ldc + j] = static_cast<float>(s);
    }
}

void AxpyReference(float a, const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}
void ScaleReference(float a, float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] *= a;
}
}  // namespace glance::kernels
#endif
