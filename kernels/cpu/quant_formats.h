#pragma once
// Block-quantized weight formats (issue "CPU speed"). Every row of W[out][in] is cut into
// blocks of kQuantBlock = 32 consecutive input columns; a short last block is zero-padded.
//
//   Q8: int8 q[32] per block, values in [−127, 127], plus one f32 scale per block
//       (W = q · scale). f32 rather than f16 scales: exact, no f16 range issues for tiny
//       weights, and only 4/32 bytes of overhead.
//       Storage: data = rows·blocks·32 int8, scales = rows·blocks f32, both in panels of 16
//       rows with the blocks interleaved by pair (2 bytes) across a panel's rows
//       (weight_panels.h); QuantizeRowQ8 writes one row in the plain order, StoreQ8Row
//       places it.
//   Q4: 4-bit symmetric, q in [−8, 7] stored as the nibble q + 8 (the compressed-tensors
//       pack-quantized convention, qwen35.md §6), one bf16 scale per block (the scale dtype
//       of those checkpoints, so they load without re-rounding).
//       Nibble order inside a block (16 bytes): byte j holds element j in its low nibble and
//       element j + 16 in its high nibble — one load then gives two contiguous halves by
//       mask and shift. (compressed-tensors packs 8 consecutive elements per int32 word; it
//       is repacked into this order at load: RepackCompressedTensorsQ4Row.)
//       Storage: data = rows·blocks·16 bytes, scales = rows·blocks uint16 (bf16 bits), both in
//       panels of 16 rows with the blocks interleaved by dword across a panel's rows
//       (weight_panels.h: what the multi-row GEMV needs); QuantizeRowQ4 and
//       RepackCompressedTensorsQ4Row write one row in the plain order, StoreQ4Row places it.
//   Q6: 6-bit symmetric, q in [−32, 31] stored as u = q + 32, one bf16 scale per block (what
//       the 4-bit models' LM head uses since issue 31: 26 bytes a block against Q8's 36, so a
//       2B model's 508 M-weight head reads 413 MB a decoded token instead of 572 MB;
//       llama.cpp's Q4_0 files keep their output matrix in 6-bit Q6_K for the same reason).
//       A block is 24 bytes: bytes 0..15 the low nibbles of u in Q4's order (byte j: element j
//       low, element j + 16 high), bytes 16..23 the top two bits, arranged so that the dword
//       d (bytes 16 + 4d .. 16 + 4d + 3) serves the nibble dwords c = 2d and 2d + 1: its byte
//       k holds at bits 0–1 / 2–3 / 4–5 / 6–7 the top bits of elements 8d + k, 16 + 8d + k,
//       8d + 4 + k and 16 + 8d + 4 + k. A kernel that holds nibble dword c then gets its
//       elements' top bits at bits 4–5 of each byte by one shift and one mask (Q6TopBits).
//       Storage: data = rows·blocks·24 bytes in Q4's panels (six dwords a block), scales as Q4.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/cpu/matmul.h"

namespace glance::kernels {

constexpr int64_t kQuantBlock = 32;

inline int64_t QuantBlocks(int64_t cols) { return (cols + kQuantBlock - 1) / kQuantBlock; }

// Block-absmax quantization, the one implementation behind Q8 weights, int16 activations and
// int8 activations: q = round(x / scale) clamped to [−kMax, kMax], scale = max|x| / kMax.
// The rounding and the reciprocal are parameters because the callers must keep theirs:
//   Q8 weights, int16 activations: half away from zero (lround), x · (1 / scale);
//   int8 activations (gemv_int8.h): half to even, x · (kMax / max|x|) — bit for bit what the
//   AVX2 quantizer computes (vcvtps2dq rounds half to even), whose oracle this is.
// (1 / (m / 127) and 127 / m can differ in the last bit, and a changed rounding would change
// prepared q8 weights and hence the golden figures.)
enum class Rounding { kHalfAwayFromZero, kHalfToEven };
enum class Reciprocal { kOfScale, kDirect };

// One block: x[0, n) (n ≤ kQuantBlock) → q[0, kQuantBlock) zero-padded; returns the scale.
template <typename Q, int kMax, Rounding kRound, Reciprocal kRecip>
inline float QuantizeBlockAbsmax(const float* x, int64_t n, Q* q) {
  float amax = 0.0f;
  for (int64_t j = 0; j < n; ++j) amax = std::max(amax, std::fabs(x[j]));
  const float scale = amax / static_cast<float>(kMax);
  float inv;
  if constexpr (kRecip == Reciprocal::kOfScale) {
    inv = scale > 0.0f ? 1.0f / scale : 0.0f;
  } else {
    inv = amax > 0.0f ? static_cast<float>(kMax) / amax : 0.0f;
  }
  for (int64_t j = 0; j < kQuantBlock; ++j) {
    long v = 0;
    if (j < n) {
      if constexpr (kRound == Rounding::kHalfAwayFromZero) {
        v = std::lround(x[j] * inv);
      } else {
        v = static_cast<long>(std::nearbyint(x[j] * inv));  // default mode: half to even
      }
    }
    q[j] = static_cast<Q>(std::clamp(v, -static_cast<long>(kMax), static_cast<long>(kMax)));
  }
  return scale;
}

// Round-to-nearest quantization of one row of `cols` floats into `QuantBlocks(cols)` blocks.
// Q8: scale = max|w| / 127. Q4: the element of largest magnitude m maps to −8 exactly
// (scale = bf16(m / −8)), the rest round to nearest and clamp to [−8, 7].
void QuantizeRowQ8(const float* src, int64_t cols, int8_t* q, float* scales);
void QuantizeRowQ4(const float* src, int64_t cols, uint8_t* packed, uint16_t* scales_bf16);
// Q6: as Q4 with −32 and [−32, 31] (the element of largest magnitude maps to −32 exactly).
void QuantizeRowQ6(const float* src, int64_t cols, uint8_t* packed, uint16_t* scales_bf16);

// Q6 block bytes (the plain 24-byte order above) → u = q + 32 of element j, 0..63.
inline int Q6Unsigned(const uint8_t* block, int64_t j) {
  const int64_t i = j & 15, c = i / 4, k = i & 3, d = c / 2;
  const int low = j < 16 ? (block[i] & 0xf) : (block[i] >> 4);
  // bit pair within byte k of top dword d: (c odd ? 2 : 0) + (j ≥ 16 ? 1 : 0)
  const int pair = static_cast<int>((c & 1) * 2 + (j >= 16 ? 1 : 0));
  const int top = (block[16 + 4 * d + k] >> (2 * pair)) & 3;
  return low | (top << 4);
}
// (Dequantizing: WeightRef::at for one element, WeightRef::row_to_f32 for a row.)

// compressed-tensors int4 row: `words` = int32 [ceil(cols/8)] (element k in word k/8 at bits
// 4·(k%8)), scales bf16 [ceil(cols/32)] -> this Q4 layout (scales copied as they are).
void RepackCompressedTensorsQ4Row(const int32_t* words, int64_t cols, uint8_t* packed);

// An owning quantized (or bf16) copy of `src` (any type), rows quantized in parallel when a
// pool is given. target: Q8, Q4 or BF16 (BF16 rounds to nearest even). The returned ref owns
// its storage (WeightRef::owner).
WeightRef QuantizeMatrix(const WeightRef& src, WeightType target, ThreadPool* pool);

// Bytes of data + scales a matrix of this shape takes in `type`.
uint64_t WeightBytes(WeightType type, int64_t rows, int64_t cols);

// Activations quantized per block of 32 to int16 (QuantizeBlockAbsmax, kMax 32767), zero-padded to
// whole blocks; what the Q8/Q4 kernels multiply with (int16 × int8/int4 products summed
// exactly in int32 per block).
struct QuantizedActivations {
  int64_t n_rows = 0, blocks = 0;
  std::vector<int16_t> q;  // [n_rows][blocks·32]
  std::vector<float> s;    // [n_rows][blocks]
};
void QuantizeActivations(const float* x, int64_t n_rows, int64_t cols, QuantizedActivations* out);

}  // namespace glance::kernels
