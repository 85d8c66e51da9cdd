#pragma once
// The machine's int8 peak: how many u8 × s8 multiply-adds per second the dot-product
// instruction the integer GEMM uses (gemm_int8.h, Int8KernelName()) can retire on every thread
// of the pool at once — the compute ceiling prefill is held against (issue "CPU speed, part
// 3"), as the read bandwidth (bandwidth.h) is the ceiling decode is held against.
//
// Measured, not taken from a datasheet: a loop of that instruction on register operands with
// kInt8PeakAccumulators independent accumulator chains, enough to cover the instruction's
// latency × its throughput on current x86 cores (vpdpbusd: latency 4–5 cycles, 1–2 a cycle),
// so only the issue rate limits it. Multiply-adds counted per instruction:
//   avx512-vnni  vpdpbusd zmm                       64 (16 int32 lanes × 4 byte pairs)
//   avx-vnni     vpdpbusd ymm (VEX)                 32
//   avx2         vpmaddubsw ymm + vpaddw ymm        32 (the u8 × s8 step of the AVX2 GEMM, whose
//                                                       pair sums are added in int16)
#include <cstdint>
#include <string>
#include <vector>

namespace glance::kernels {

class ThreadPool;

constexpr int kInt8PeakAccumulators = 12;

struct Int8PeakResult {
  std::vector<double> gmac_per_s;  // one figure per timed pass, all threads (1 GMAC = 1e9 multiply-adds)
  std::string isa;                 // Int8KernelName() the passes ran
  int threads = 0;
};

// Runs `passes` timed passes (after one untimed warm-up that also sizes a pass to ~0.1 s) on
// every thread of pool (null: the calling thread alone). Throws glance::Error when the int8
// kernels are not available (Int8KernelsAvailable()) or passes < 1.
Int8PeakResult MeasureInt8Peak(int passes, ThreadPool* pool);

// Multiply-adds one iteration of Int8PeakLoop retires on the selected instruction set (0 when
// none): kInt8PeakAccumulators × the count above.
int64_t Int8PeakMacsPerIteration();

// The timed loop itself, exposed for tests: `iterations` rounds of kInt8PeakAccumulators dot
// instructions, every weight byte `w` (unsigned) and every activation byte `x` (signed); returns
// the wrapping sum of every accumulator lane. Int8PeakLoopReference computes the same number in
// plain C++ (each lane gains 4·w·x per dot instruction; the AVX2 form's int16 lanes gain
// 2·w·x, wrapping at 16 bits). Requires Int8KernelsAvailable().
uint32_t Int8PeakLoop(int64_t iterations, uint8_t w, int8_t x);
uint32_t Int8PeakLoopReference(int64_t iterations, uint8_t w, int8_t x);

}  // namespace glance::kernels
