#pragma once
// Block-quantized weight formats (issue "CPU speed"). Every row of W[out][in] is cut into
// blocks of kQuantBlock = 32 consecutive input columns; a short last block is zero-padded.
//
//   Q8: int8 q[32] per block, values in [−127, 127], plus one f32 scale per block
//       (W = q · scale). f32 rather than f16 scales: exact, no f16 range issues for tiny
//       weights, and only 4/32 bytes of overhead.
//       Storage: data = int8 [rows][blocks·32], scales = float [rows][blocks].
//   Q4: 4-bit symmetric, q in [−8, 7] stored as the nibble q + 8 (the compressed-tensors
//       pack-quantized convention, qwen35.md §6), one bf16 scale per block (the scale dtype
//       of those checkpoints, so they load without re-rounding).
//       Nibble order inside a block (16 bytes): byte j holds element j in its low nibble and
//       element j + 16 in its high nibble — one load then gives two contiguous halves by
//       mask and shift. (compressed-tensors packs 8 consecutive elements per int32 word; it
//       is repacked into this order at load: RepackCompressedTensorsQ4Row.)
//       Storage: data = uint8 [rows][blocks·16], scales = uint16 (bf16 bits) [rows][blocks].
#include <cstdint>
#include <vector>

#include "kernels/cpu/matmul.h"

namespace glance::kernels {

constexpr int64_t kQuantBlock = 32;

inline int64_t QuantBlocks(int64_t cols) { return (cols + kQuantBlock - 1) / kQuantBlock; }

// Round-to-nearest quantization of one row of `cols` floats into `QuantBlocks(cols)` blocks.
// Q8: scale = max|w| / 127. Q4: the element of largest magnitude m maps to −8 exactly
// (scale = bf16(m / −8)), the rest round to nearest and clamp to [−8, 7].
void QuantizeRowQ8(const float* src, int64_t cols, int8_t* q, float* scales);
void QuantizeRowQ4(const float* src, int64_t cols, uint8_t* packed, uint16_t* scales_bf16);
void DequantizeRowQ8(const int8_t* q, const float* scales, int64_t cols, float* dst);
void DequantizeRowQ4(const uint8_t* packed, const uint16_t* scales_bf16, int64_t cols,
                     float* dst);

// compressed-tensors int4 row: `words` = int32 [ceil(cols/8)] (element k in word k/8 at bits
// 4·(k%8)), scales bf16 [ceil(cols/32)] -> this Q4 layout (scales copied as they are).
void RepackCompressedTensorsQ4Row(const int32_t* words, int64_t cols, uint8_t* packed);

// An owning quantized (or bf16) copy of `src` (any type), rows quantized in parallel when a
// pool is given. target: Q8, Q4 or BF16 (BF16 rounds to nearest even). The returned ref owns
// its storage (WeightRef::owner).
WeightRef QuantizeMatrix(const WeightRef& src, WeightType target, ThreadPool* pool);

// Bytes of data + scales a matrix of this shape takes in `type`.
uint64_t WeightBytes(WeightType type, int64_t rows, int64_t cols);

// Activations quantized per block of 32 to int16 (scale = max|x| / 32767), zero-padded to
// whole blocks; what the Q8/Q4 kernels multiply with (int16 × int8/int4 products summed
// exactly in int32 per block).
struct QuantizedActivations {
  int64_t n_rows = 0, blocks = 0;
  std::vector<int16_t> q;  // [n_rows][blocks·32]
  std::vector<float> s;    // [n_rows][blocks]
};
void QuantizeActivations(const float* x, int64_t n_rows, int64_t cols, QuantizedActivations* out);

}  // namespace glance::kernels
