#include "kernels/cpu/bandwidth.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "kernels/cpu/thread_pool.h"
#include "kernels/kernel_error.h"

namespace glance::kernels {

void Triad(float* a, const float* b, const float* c, float s, size_t n) {
  // A plain loop: the compiler vectorises it, and at these sizes only DRAM matters.
  for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
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
  run(triad);  // warm-up
  BandwidthResult r;
  r.array_bytes = n * sizeof(float);
  for (int p = 0; p < std::max(passes, 1); ++p) {
    const auto t0 = std::chrono::steady_clock::now();
    run(triad);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.gb_per_s.push_back(3.0 * static_cast<double>(r.array_bytes) / std::max(s, 1e-9) / 1e9);
  }
  // Keep the result observable so the passes cannot be optimised away.
  if (a[n / 2] != 7.0f) throw Error("bandwidth: triad produced a wrong value");
  return r;
}

}  // namespace glance::kernels
