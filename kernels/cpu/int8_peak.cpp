// The int8 peak micro-benchmark of int8_peak.h: one loop per x86 instruction set, compiled
// under `#pragma GCC target` as the integer kernels are (gemv_int8_x86.cpp), chosen at run time
// by the instruction set those kernels use.
#include "kernels/cpu/int8_peak.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "kernels/cpu/gemv_int8.h"
#include "kernels/cpu/thread_pool.h"
#include "kernels/kernel_error.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GLANCE_PEAK_X86 1
#include <immintrin.h>
#else
#define GLANCE_PEAK_X86 0
#endif

namespace glance::kernels {
namespace {

constexpr int kAcc = kInt8PeakAccumulators;

enum class PeakIsa { kNone, kAvx2, kAvxVnni, kAvx512Vnni };

PeakIsa SelectedIsa() {
  const char* n = Int8KernelName();
  if (std::strcmp(n, "avx512-vnni") == 0) return PeakIsa::kAvx512Vnni;
  if (std::strcmp(n, "avx-vnni") == 0) return PeakIsa::kAvxVnni;
  if (std::strcmp(n, "avx2") == 0) return PeakIsa::kAvx2;
  return PeakIsa::kNone;
}

// The accumulators start at 0, 1, …, kAcc − 1 (every lane of accumulator a holds a): twelve
// identical chains could be merged into one by the compiler, different ones cannot.
#if GLANCE_PEAK_X86
// GCC 12's avx512fintrin.h warns about its own _mm512_undefined_*() (see gemv_int8_x86.cpp).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC push_options
#pragma GCC target("avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni")
uint32_t LoopAvx512Vnni(int64_t iterations, uint8_t w, int8_t x) {
  const __m512i wv = _mm512_set1_epi8(static_cast<char>(w)), xv = _mm512_set1_epi8(x);
  __m512i acc[kAcc];
  for (int a = 0; a < kAcc; ++a) acc[a] = _mm512_set1_epi32(a);
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int a = 0; a < kAcc; ++a) acc[a] = _mm512_dpbusd_epi32(acc[a], wv, xv);
  }
  __m512i s = acc[0];
  for (int a = 1; a < kAcc; ++a) s = _mm512_add_epi32(s, acc[a]);
  return static_cast<uint32_t>(_mm512_reduce_add_epi32(s));
}
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma,avxvnni")
uint32_t LoopAvxVnni(int64_t iterations, uint8_t w, int8_t x) {
  const __m256i wv = _mm256_set1_epi8(static_cast<char>(w)), xv = _mm256_set1_epi8(x);
  __m256i acc[kAcc];
  for (int a = 0; a < kAcc; ++a) acc[a] = _mm256_set1_epi32(a);
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int a = 0; a < kAcc; ++a) acc[a] = _mm256_dpbusd_avx_epi32(acc[a], wv, xv);
  }
  alignas(32) uint32_t lanes[8];
  __m256i s = acc[0];
  for (int a = 1; a < kAcc; ++a) s = _mm256_add_epi32(s, acc[a]);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), s);
  uint32_t sum = 0;
  for (uint32_t v : lanes) sum += v;
  return sum;
}
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma")
uint32_t LoopAvx2(int64_t iterations, uint8_t w, int8_t x) {
  const __m256i wv = _mm256_set1_epi8(static_cast<char>(w)), xv = _mm256_set1_epi8(x);
  __m256i acc[kAcc];  // int16 lanes, as the AVX2 GEMM adds its pair sums
  for (int a = 0; a < kAcc; ++a) acc[a] = _mm256_set1_epi16(static_cast<short>(a));
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int a = 0; a < kAcc; ++a) acc[a] = _mm256_add_epi16(acc[a], _mm256_maddubs_epi16(wv, xv));
  }
  alignas(32) int16_t lanes[16];
  uint32_t sum = 0;
  for (int a = 0; a < kAcc; ++a) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc[a]);
    for (int16_t v : lanes) sum += static_cast<uint32_t>(static_cast<int32_t>(v));
  }
  return sum;
}
#pragma GCC pop_options
#pragma GCC diagnostic pop
#endif

int64_t MacsPerInstruction(PeakIsa isa) {
  switch (isa) {
    case PeakIsa::kAvx512Vnni: return 64;
    case PeakIsa::kAvxVnni:
    case PeakIsa::kAvx2: return 32;
    case PeakIsa::kNone: break;
  }
  return 0;
}

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int64_t Int8PeakMacsPerIteration() { return kAcc * MacsPerInstruction(SelectedIsa()); }

uint32_t Int8PeakLoop(int64_t iterations, uint8_t w, int8_t x) {
#if GLANCE_PEAK_X86
  switch (SelectedIsa()) {
    case PeakIsa::kAvx512Vnni: return LoopAvx512Vnni(iterations, w, x);
    case PeakIsa::kAvxVnni: return LoopAvxVnni(iterations, w, x);
    case PeakIsa::kAvx2: return LoopAvx2(iterations, w, x);
    case PeakIsa::kNone: break;
  }
#else
  (void)iterations, (void)w, (void)x;
#endif
  throw Error("int8 peak: no int8 dot-product instruction on this CPU or build");
}

uint32_t Int8PeakLoopReference(int64_t iterations, uint8_t w, int8_t x) {
  const PeakIsa isa = SelectedIsa();
  const int32_t prod = static_cast<int32_t>(w) * static_cast<int32_t>(x);
  uint32_t sum = 0;
  if (isa == PeakIsa::kAvx2) {
    // vpmaddubsw: two products summed with signed saturation to int16; vpaddw wraps.
    const int32_t pair = std::clamp(2 * prod, -32768, 32767);
    for (int a = 0; a < kAcc; ++a) {
      const uint16_t lane = static_cast<uint16_t>(static_cast<uint16_t>(a) +
                                                  static_cast<uint64_t>(iterations) * static_cast<uint16_t>(pair));
      sum += 16u * static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(lane)));
    }
    return sum;
  }
  const uint32_t lanes = isa == PeakIsa::kAvx512Vnni ? 16u : 8u;
  for (int a = 0; a < kAcc; ++a) {
    const uint32_t lane = static_cast<uint32_t>(a) +
                          static_cast<uint32_t>(static_cast<uint64_t>(iterations) * static_cast<uint32_t>(4 * prod));
    sum += lanes * lane;
  }
  return sum;
}

Int8PeakResult MeasureInt8Peak(int passes, ThreadPool* pool) {
  if (passes < 1) throw Error("int8 peak: passes must be at least 1");
  if (SelectedIsa() == PeakIsa::kNone) throw Error("int8 peak: no int8 dot-product instruction on this CPU or build");
  Int8PeakResult r;
  r.isa = Int8KernelName();
  r.threads = pool ? pool->threads() : 1;
  const size_t n = static_cast<size_t>(r.threads);
  // Every thread runs the loop once per pass; the checksums are kept so the loop is not dead code.
  std::vector<uint32_t> sink(n);
  auto pass = [&](int64_t iterations) {
    const auto t0 = std::chrono::steady_clock::now();
    ParallelFor(pool, n, [&](size_t b, size_t e) {
      for (size_t t = b; t < e; ++t) sink[t] = Int8PeakLoop(iterations, static_cast<uint8_t>(3 + t), -2);
    });
    return Seconds(t0);
  };
  // Warm-up (clocks up, threads awake), then size a pass to about 0.1 s.
  int64_t iterations = 1 << 16;
  double s = pass(iterations);
  while (s < 0.02) s = pass(iterations *= 4);
  iterations = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(iterations) * 0.1 / s));
  const double macs = static_cast<double>(iterations) * static_cast<double>(Int8PeakMacsPerIteration()) *
                      static_cast<double>(n);
  for (int p = 0; p < passes; ++p) r.gmac_per_s.push_back(macs / pass(iterations) / 1e9);
  return r;
}

}  // namespace glance::kernels
