// Kernel throughput on 2B-shaped projections (LM hidden 2048, intermediate 6144; vision hidden
// 1024, mlp 4096): GEMV GB/s of weight bytes streamed (decode) and GEMM GFLOP/s (prefill,
// vision), per weight type, 1 and 2 threads.
// Usage: bench_kernels [gemm_rows=128] [seconds_per_case=0.4] [gemm] [int8_gemm_min_rows]
//   ("gemm": skip GEMV; the last sets from how many rows Q8/Q4 take the integer GEMM)
//        bench_kernels q4direct [seconds_per_case=0.8] [avx2|avx-vnni|avx512-vnni]
//   (the Q4 integer GEMM reading the stored panels directly vs packing per call, by row count)
//        bench_kernels rows [seconds_per_case=0.4] [avx2|avx-vnni|avx512-vnni]
//   (the speculative verify's question: time of a 2..8-row GEMV over a 1-row one, 2 threads,
//   on a matrix far larger than the caches, as decode streams it; the last picks the x86
//   integer kernels' instruction set, default the best)
//        bench_kernels attention [seconds_per_case=0.4]
//   (decode's attention over an f16 KV cache as a 2B model reads it: 6 attention layers × 2 key/
//   value heads, a GQA group of 4 query rows each, head 256, 2 threads, at 512..16384 keys; the
//   12 caches are distinct so that, as in decode, they come from memory, not the caches)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/attention.h"
#include "kernels/cpu/gemm_int8.h"
#include "kernels/cpu/gemv_int8.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/quant_formats.h"
#include "kernels/cpu/thread_pool.h"

using namespace glance::kernels;

namespace {
double Seconds(const std::chrono::steady_clock::time_point& t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs fn repeatedly for at least `budget` seconds; returns seconds per call.
template <class F>
double Time(F&& fn, double budget) {
  fn();  // warm-up (page faults, caches)
  int n = 0;
  const auto t0 = std::chrono::steady_clock::now();
  do {
    fn();
    ++n;
  } while (Seconds(t0) < budget);
  return Seconds(t0) / n;
}

// Seconds of one call of fn.
template <class F>
double Once(F&& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return Seconds(t0);
}

// Seconds of an R-row Matmul over a 1-row one, for R = 2..8, on a 65536 × 2048 matrix (Q4:
// 72 MiB, beyond any L3) per weight type, 2 threads. The two are timed in turns (A B A B …,
// median of the ratios of each turn) so that a load change on a shared machine hits both.
int RowsBench(double budget) {
  constexpr int64_t kOut = 65536, kIn = 2048, kMaxRows = 8;
  std::mt19937 rng(1);
  std::normal_distribution<float> nd(0.0f, 0.02f);
  std::vector<float> wf(static_cast<size_t>(kOut * kIn));
  for (auto& v : wf) v = nd(rng);
  const WeightRef src{WeightType::F32, wf.data(), kOut, kIn};
  std::vector<float> x(static_cast<size_t>(kMaxRows * kIn)), y(static_cast<size_t>(kMaxRows * kOut));
  for (auto& v : x) v = nd(rng) * 50.0f;
  ThreadPool pool(2);
  std::printf("int8 kernels: %s; time of R rows / time of 1 row, 2 threads, %ldx%ld\n", Int8KernelName(),
              static_cast<long>(kOut), static_cast<long>(kIn));
  std::printf("%-5s %8s", "type", "1-row ms");
  for (int64_t r = 2; r <= kMaxRows; ++r) std::printf(" %6ld", static_cast<long>(r));
  std::printf("\n");
  for (WeightType t : {WeightType::Q4, WeightType::Q8, WeightType::BF16}) {
    const WeightRef w = QuantizeMatrix(src, t, &pool);
    std::vector<double> ratio;
    double one_ms = 0;
    for (int64_t r = 2; r <= kMaxRows; ++r) {
      std::vector<double> turns;
      double ones = 0;
      const auto t0 = std::chrono::steady_clock::now();
      do {
        const double a = Once([&] { Matmul(x.data(), 1, w, nullptr, y.data(), &pool); });
        const double b = Once([&] { Matmul(x.data(), r, w, nullptr, y.data(), &pool); });
        turns.push_back(b / a);
        ones += a;
      } while (Seconds(t0) < budget || turns.size() < 5);
      std::sort(turns.begin(), turns.end());
      ratio.push_back(turns[turns.size() / 2]);
      one_ms = std::max(one_ms, 1e3 * ones / static_cast<double>(turns.size()));
    }
    std::printf("%-5s %8.2f", WeightTypeName(t), one_ms);
    for (double v : ratio) std::printf(" %6.2f", v);
    std::printf("\n");
  }
  return 0;
}
}  // namespace

// The Q4 integer GEMM read directly from the stored panels against packing per call
// (gemm_int8.h kGemmQ4DirectMaxRows), 2 threads, on the LM's shapes, alternating the two
// several times per case so a drifting machine hits both alike; GFLOP/s medians.
int Q4DirectBench(double budget) {
  struct Shape {
    int64_t out, in;
    const char* what;
  };
  const Shape shapes[] = {{2048, 2048, "proj 2048x2048"}, {6144, 2048, "gate/up 6144x2048"},
                          {2048, 6144, "down 2048x6144"}};
  std::mt19937 rng(3);
  std::normal_distribution<float> nd(0.0f, 0.02f);
  ThreadPool pool(2);
  std::printf("int8 kernels: %s\n%-18s %5s %14s %14s %7s\n", Int8KernelName(), "shape", "rows",
              "packed GFLOP/s", "direct GFLOP/s", "ratio");
  for (const Shape& s : shapes) {
    std::vector<float> wf(static_cast<size_t>(s.out * s.in));
    for (auto& v : wf) v = nd(rng);
    const WeightRef w = QuantizeMatrix(WeightRef{WeightType::F32, wf.data(), s.out, s.in}, WeightType::Q4, &pool);
    for (int64_t rows : {16, 32, 64, 128, 256, 512}) {
      std::vector<float> x(static_cast<size_t>(rows * s.in)), y(static_cast<size_t>(rows * s.out));
      for (auto& v : x) v = nd(rng) * 50.0f;
      std::vector<double> packed, direct;
      for (int round = 0; round < 4; ++round)
        for (int64_t limit : {int64_t{0}, int64_t{1} << 30}) {
          const int64_t before = SetGemmQ4DirectMaxRows(limit);
          const double t = Time([&] { Matmul(x.data(), rows, w, nullptr, y.data(), &pool); }, budget / 4);
          SetGemmQ4DirectMaxRows(before);
          (limit ? direct : packed).push_back(2.0 * static_cast<double>(rows * s.out * s.in) / t * 1e-9);
        }
      std::sort(packed.begin(), packed.end());
      std::sort(direct.begin(), direct.end());
      const double p = (packed[1] + packed[2]) / 2, d = (direct[1] + direct[2]) / 2;
      std::printf("%-18s %5lld %14.1f %14.1f %7.2f\n", s.what, static_cast<long long>(rows), p, d, d / p);
    }
  }
  return 0;
}

// `heads` caches of `elements` standard-normal values, each rounded to f16 as a KV cache holds them.
std::vector<std::vector<uint16_t>> RandomF16Caches(int64_t heads, int64_t elements, std::mt19937& rng) {
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> row(static_cast<size_t>(elements));
  std::vector<std::vector<uint16_t>> caches(static_cast<size_t>(heads));
  for (std::vector<uint16_t>& c : caches) {
    for (float& x : row) x = nd(rng);
    c.resize(row.size());
    RoundToF16(row.data(), elements, c.data());
  }
  return caches;
}

int AttentionBench(double budget) {
  constexpr int64_t kHeads = 12, kRows = 4, kDim = 256;
  const float scale = 0.0625f;  // 1/sqrt(256)
  std::mt19937 rng(1);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  ThreadPool pool(2);
  std::printf("decode attention, f16 cache, %ld heads x %ld rows x %ld, 2 threads\n", static_cast<long>(kHeads),
              static_cast<long>(kRows), static_cast<long>(kDim));
  std::printf("%8s %12s %12s\n", "keys", "ms/token", "cache GB/s");
  for (const int64_t n : {512, 2048, 8192, 16384}) {
    const auto k = RandomF16Caches(kHeads, n * kDim, rng), v = RandomF16Caches(kHeads, n * kDim, rng);
    std::vector<float> q(static_cast<size_t>(kHeads * kRows * kDim)), out(q.size());
    for (float& x : q) x = nd(rng);
    const std::vector<int64_t> n_keys(kRows, n);
    const double s = Time([&] {
      ParallelFor(&pool, kHeads, [&](size_t b, size_t e) {
        for (size_t h = b; h < e; ++h)
          AttentionRowsF16(q.data() + h * kRows * kDim, kDim, n_keys.data(), kRows, k[h].data(), v[h].data(), kDim,
                           kDim, scale, out.data() + h * kRows * kDim, kDim);
      });
    }, budget);
    const double bytes = 2.0 * kHeads * static_cast<double>(n) * kDim * sizeof(uint16_t);
    std::printf("%8ld %12.3f %12.1f\n", static_cast<long>(n), s * 1e3, bytes / s / 1e9);
  }
  // Prefill: one layer's 64-row chunk (the app's PrefillChunkRows) after n keys, as
  // core/lm/gated_attention.cpp tiles it: 2 positions × the group of 4 heads a tile, 2 KV heads.
  constexpr int64_t kChunk = 64, kKvHeads = 2, kGroup = 4, kTilePositions = 2;
  std::printf("prefill attention, one layer's %ld-row chunk after n keys, f16 cache, 2 threads\n",
              static_cast<long>(kChunk));
  std::printf("%8s %12s\n", "keys", "ms/chunk");
  for (const int64_t n : {2048, 8192}) {
    const int64_t total = n + kChunk;
    const auto k = RandomF16Caches(kKvHeads, total * kDim, rng), v = RandomF16Caches(kKvHeads, total * kDim, rng);
    constexpr int64_t kTileRows = kTilePositions * kGroup, kTiles = kChunk / kTilePositions;
    std::vector<float> q(static_cast<size_t>(kKvHeads * kChunk * kGroup * kDim)), out(q.size());
    for (float& x : q) x = nd(rng);
    const double s = Time([&] {
      ParallelFor(&pool, kKvHeads * kTiles, [&](size_t b, size_t e) {
        int64_t n_keys[kTileRows];
        for (size_t task = b; task < e; ++task) {
          const int64_t h = static_cast<int64_t>(task) / kTiles, tile = static_cast<int64_t>(task) % kTiles;
          for (int64_t r = 0; r < kTileRows; ++r) n_keys[r] = n + tile * kTilePositions + r / kGroup + 1;
          const size_t at = static_cast<size_t>((h * kTiles + tile) * kTileRows * kDim);
          AttentionRowsF16(q.data() + at, kDim, n_keys, kTileRows, k[h].data(), v[h].data(), kDim, kDim, scale,
                           out.data() + at, kDim);
        }
      });
    }, budget);
    std::printf("%8ld %12.3f\n", static_cast<long>(n), s * 1e3);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "attention") return AttentionBench(argc > 2 ? std::atof(argv[2]) : 0.4);
  if (argc > 1 && std::string(argv[1]) == "q4direct") {
    if (argc > 3 && !SelectInt8KernelIsa(argv[3])) {
      std::fprintf(stderr, "bench_kernels: integer kernels '%s' not available on this CPU\n", argv[3]);
      return 2;
    }
    return Q4DirectBench(argc > 2 ? std::atof(argv[2]) : 0.8);
  }
  if (argc > 1 && std::string(argv[1]) == "rows") {
    if (argc > 3 && !SelectInt8KernelIsa(argv[3])) {
      std::fprintf(stderr, "bench_kernels: integer kernels '%s' not available on this CPU\n", argv[3]);
      return 2;
    }
    return RowsBench(argc > 2 ? std::atof(argv[2]) : 0.4);
  }
  const int64_t gemm_rows = argc > 1 ? std::atoll(argv[1]) : 128;
  const double budget = argc > 2 ? std::atof(argv[2]) : 0.4;
  const bool gemm_only = argc > 3 && std::string(argv[3]) == "gemm";
  if (argc > 4) SetInt8GemmMinRows(std::atoll(argv[4]));
  struct Shape {
    int64_t out, in;
    const char* what;
  };
  const Shape shapes[] = {{2048, 2048, "proj 2048x2048"},
                          {6144, 2048, "gate/up 6144x2048"},
                          {2048, 6144, "down 2048x6144"},
                          {4096, 1024, "vis fc1 4096x1024"},
                          {1024, 4096, "vis fc2 1024x4096"}};
  const WeightType types[] = {WeightType::F32, WeightType::BF16, WeightType::Q8, WeightType::Q4};
  std::mt19937 rng(1);
  std::normal_distribution<float> nd(0.0f, 0.02f);
  ThreadPool pool1(1), pool2(2);
  std::printf("int8 kernels: %s\n", Int8KernelName());
  std::printf("%-18s %-7s %3s %12s %12s\n", "shape", "type", "thr", "GEMV GB/s", "GEMM GFLOP/s");
  for (const Shape& s : shapes) {
    std::vector<float> wf(static_cast<size_t>(s.out * s.in));
    for (auto& v : wf) v = nd(rng);
    const WeightRef src{WeightType::F32, wf.data(), s.out, s.in};
    std::vector<float> x(static_cast<size_t>(gemm_rows * s.in)), y(static_cast<size_t>(gemm_rows * s.out));
    for (auto& v : x) v = nd(rng) * 50.0f;
    for (WeightType t : types) {
      const WeightRef w = t == WeightType::F32 ? src : QuantizeMatrix(src, t, &pool2);
      const double bytes = static_cast<double>(WeightBytes(t, s.out, s.in));
      // Q8/Q4 run twice: the x86 integer kernels (gemv_int8.h, gemm_int8.h) and the portable ones.
      const bool quantized = t == WeightType::Q8 || t == WeightType::Q4;
      for (int variant = 0; variant < (quantized && Int8KernelsAvailable() ? 2 : 1); ++variant)
      for (ThreadPool* pool : {&pool1, &pool2}) {
        SetInt8KernelsEnabled(variant == 0);
        const char* act = !quantized ? "" : Int8KernelsActive() ? "/x86" : "/port";
        const double gemv =
            gemm_only ? 0.0
                      : Time([&] { Matmul(x.data(), 1, w, nullptr, y.data(), pool); }, budget);
        const double gemm =
            Time([&] { Matmul(x.data(), gemm_rows, w, nullptr, y.data(), pool); }, budget);
        const double flops = 2.0 * static_cast<double>(gemm_rows * s.out * s.in);
        std::printf("%-18s %-3s%-4s %3d %12.2f %12.2f\n", s.what, WeightTypeName(t), act, pool->threads(),
                    gemm_only ? 0.0 : bytes / gemv * 1e-9, flops / gemm * 1e-9);
      }
    }
  }
  return 0;
}
