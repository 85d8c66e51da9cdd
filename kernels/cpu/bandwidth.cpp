#include "kernels/cpu/bandwidth.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

#include "kernels/cpu/thread_pool.h"
#include "kernels/kernel_error.h"

namespace glance::kernels {

void Triad(float* a, const float* b, const float* c, float s, size_t n) {
  // A plain loop: the compiler vectorises it, and at these sizes only DRAM matters.
  for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

namespace {
// 16-byte vectors of the compiler's generic vector extension: SSE2 / NEON loads without
// depending on the build's -march, and XOR is associative, so nothing serialises the loads.
typedef uint64_t U64x2 __attribute__((vector_size(16)));

// GB/s of `passes` (at least 1) timed runs of `pass`, after one untimed warm-up run, counting
// `bytes_per_pass` each.
template <class Pass>
std::vector<double> TimePasses(int passes, double bytes_per_pass, const Pass& pass) {
  pass();  // warm-up
  std::vector<double> gb_per_s;
  for (int p = 0; p < std::max(passes, 1); ++p) {
    const auto t0 = std::chrono::steady_clock::now();
    pass();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    gb_per_s.push_back(bytes_per_pass / std::max(s, 1e-9) / 1e9);
  }
  return gb_per_s;
}
}  // namespace

uint64_t ReadStreams(const uint64_t* p, size_t n_bytes, int streams) {
  constexpr size_t kLine = 64;  // bytes per stream per step: one cache line
  const size_t lines = n_bytes / kLine, s = static_cast<size_t>(std::max(streams, 1));
  const size_t per = lines / s;  // lines per stream; the rest go to the last one below
  U64x2 acc[4] = {};
  for (size_t i = 0; i < per; ++i)
    for (size_t k = 0; k < s; ++k) {
      const U64x2* line = reinterpret_cast<const U64x2*>(p + ((k * per + i) * kLine) / 8);
      acc[0] ^= line[0];
      acc[1] ^= line[1];
      acc[2] ^= line[2];
      acc[3] ^= line[3];
    }
  for (size_t i = per * s; i < lines; ++i) {
    const U64x2* line = reinterpret_cast<const U64x2*>(p + i * kLine / 8);
    for (int j = 0; j < 4; ++j) acc[j] ^= line[j];
  }
  const U64x2 x = acc[0] ^ acc[1] ^ acc[2] ^ acc[3];
  return x[0] ^ x[1];
}

BandwidthResult MeasureReadBandwidth(size_t array_bytes, int streams, int passes, ThreadPool* pool) {
  if (array_bytes < 64) throw Error("bandwidth: array size must be at least 64 bytes");
  if (streams < 1) throw Error("bandwidth: at least one read stream");
  const size_t words = array_bytes / 64 * 8;  // whole cache lines of 64-bit words
  std::unique_ptr<uint64_t[]> a(new uint64_t[words]);
  // Work in whole lines: ranges of 8-word multiples.
  auto run = [&](const auto& fn) {
    ParallelFor(pool, words / 8, [&](size_t b, size_t e) { fn(b * 8, e * 8); }, 1 << 13);
  };
  run([&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) a[i] = i;
  });
  std::atomic<uint64_t> sum{0};
  const auto read = [&](size_t begin, size_t end) {
    sum.fetch_xor(ReadStreams(a.get() + begin, (end - begin) * 8, streams));
  };
  BandwidthResult r;
  r.array_bytes = words * 8;
  r.gb_per_s = TimePasses(passes, static_cast<double>(r.array_bytes), [&] { run(read); });
  // Keep the reads observable so the passes cannot be optimised away: XOR of 0..words-1 read
  // an odd number of times (warm-up + passes) or an even number.
  uint64_t expect = 0;
  if ((std::max(passes, 1) + 1) % 2 == 1)
    for (size_t i = 0; i < words; ++i) expect ^= i;
  if (sum.load() != expect) throw Error("bandwidth: read pass produced a wrong checksum");
  return r;
}

BandwidthResult MeasureTriadBandwidth(size_t array_bytes, int passes, ThreadPool* pool) {
  if (array_bytes < sizeof(float)) throw Error("bandwidth: array size must be at least 4 bytes");
  const size_t n = array_bytes / sizeof(float);
  // Uninitialised storage: the first-touch loop below decides which thread faults each page.
  std::unique_ptr<float[]> a(new float[n]), b(new float[n]), c(new float[n]);
  auto run = [&](const auto& fn) { ParallelFor(pool, n, fn, 1 << 16); };
  run([&](size_t begin, size_t end) {
    std::fill(a.get() + begin, a.get() + end, 0.0f);
    std::fill(b.get() + begin, b.get() + end, 1.0f);
    std::fill(c.get() + begin, c.get() + end, 2.0f);
  });
  const auto triad = [&](size_t begin, size_t end) {
    Triad(a.get() + begin, b.get() + begin, c.get() + begin, 3.0f, end - begin);
  };
  BandwidthResult r;
  r.array_bytes = n * sizeof(float);
  r.gb_per_s = TimePasses(passes, 3.0 * static_cast<double>(r.array_bytes), [&] { run(triad); });
  // Keep the result observable so the passes cannot be optimised away.
  if (a[n / 2] != 7.0f) throw Error("bandwidth: triad produced a wrong value");
  return r;
}

}  // namespace glance::kernels
