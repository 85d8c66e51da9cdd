#pragma once
// Memory bandwidth, two ways, over arrays much larger than the last-level cache, split over the
// pool's threads (each thread touches its own contiguous range first, so pages land near it):
//   * read-only, several streams per thread — what decode does (it reads 4 weight rows at once
//     from different quarters of each thread's rows, gemv_int8.h): the decode roofline's
//     denominator. A triad understates it (its write stream and write-allocate share the bus),
//     so a decode could read "more than 100 % of the bandwidth" against the triad.
//   * a STREAM-like triad a[i] = b[i] + s·c[i] (STREAM's own accounting: 3 arrays × n × 4
//     bytes per pass, two reads, one write; write-allocate not counted), reported beside it
//     for comparison with published STREAM figures (McCalpin, https://www.cs.virginia.edu/stream/).
#include <cstddef>
#include <cstdint>
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

// Runs `passes` timed read-only passes (after one untimed warm-up) over one array of
// `array_bytes`, each thread reading its range as `streams` equal parts in lockstep. Bytes
// counted per pass: array_bytes. Throws glance::Error if array_bytes < 64 or streams < 1.
BandwidthResult MeasureReadBandwidth(size_t array_bytes, int streams, int passes, ThreadPool* pool);

// The read itself, exposed for tests: a checksum (XOR of 64-bit words) of bytes [0, n) of p
// (n a multiple of 64), read as `streams` equal parts in lockstep.
uint64_t ReadStreams(const uint64_t* p, size_t n_bytes, int streams);

// The triad itself, exposed for tests: a[i] = b[i] + s·c[i] for i in [0, n).
void Triad(float* a, const float* b, const float* c, float s, size_t n);

}  // namespace glance::kernels
