#pragma once
// Memory bandwidth as the decode roofline sees it: a STREAM-like triad a[i] = b[i] + s·c[i]
// over arrays much larger than the last-level cache, split over the pool's threads (each
// thread touches its own contiguous range first, so pages land near it). Bytes counted per
// pass follow STREAM: 3 arrays × n × 4 (two reads, one write; write-allocate not counted).
#include <cstddef>
#include <vector>

namespace glance::kernels {

class ThreadPool;

struct BandwidthResult {
  std::vector<double> gb_per_s;  // one figure per timed pass (1 GB = 1e9 bytes)
  size_t array_bytes = 0;        // bytes of each of the three arrays
};

// Runs `passes` timed triads (after one untimed warm-up pass) over three arrays of
// `array_bytes` each. pool may be null (one thread). Throws glance::Error if array_bytes is 0.
BandwidthResult MeasureTriadBandwidth(size_t array_bytes, int passes, ThreadPool* pool);

// The triad itself, exposed for tests: a[i] = b[i] + s·c[i] for i in [0, n).
void Triad(float* a, const float* b, const float* c, float s, size_t n);

}  // namespace glance::kernels
