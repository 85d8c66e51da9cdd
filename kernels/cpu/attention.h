#pragma once
// Softmax attention (qwen35.md §2.5), SIMD with Highway runtime dispatch: the scores alone (the
// attention maps' probability rows) and the whole attention of rows (AttentionRows). Keys/values are rows of a cache at a fixed stride (elements), held
// as f32 or as IEEE half bits (*F16: the quantized engines' cache, half the memory; each element
// widens exactly to f32 in registers, so the f16 kernels equal the f32 ones run on the rounded
// rows). *Reference twins are the scalar oracles (tests/kernels/test_vector_kernels.cpp,
// test_attention_f16.cpp).
#include <cstdint>

namespace glance::kernels {

// scores[j] = scale · (q · key_j), key_j = keys + j·key_stride, j in [0, n), rows of length d.
void AttentionScores(const float* q, const float* keys, int64_t key_stride, int64_t n, int64_t d,
                     float scale, float* scores);
void AttentionScoresF16(const float* q, const uint16_t* keys_f16, int64_t key_stride, int64_t n,
                        int64_t d, float scale, float* scores);
void AttentionScoresReference(const float* q, const float* keys, int64_t key_stride, int64_t n,
                              int64_t d, float scale, float* scores);
void AttentionScoresF16Reference(const float* q, const uint16_t* keys_f16, int64_t key_stride,
                                 int64_t n, int64_t d, float scale, float* scores);

// Softmax attention of `rows` query rows that share one key/value head (a GQA group, at one or
// several positions) in one pass over the cache: row r sees keys [0, n_keys[r]) (n_keys[r] ≥ 1),
//   out_r = Σ_j softmax_j(scale · q_r · key_j) · value_j.
// Blocks of keys are scored for a tile of rows while they sit in L1, and the softmax is taken
// online — a running max and sum per row, the partial output rescaled when the max grows
// (Milakov & Gimelshein 2018, "Online normalizer calculation for softmax"; FlashAttention, Dao
// et al. 2022, Algorithm 1) — so each key and value row is read once per tile of rows, not once
// per row, and no row of n scores is kept. Rows are q + r·q_stride and out + r·out_stride.
// *Reference: per row, the three-step scores / SoftmaxInPlace / weighted sum (the
// oracle; the online order rounds differently, within a few ulps of the sum).
void AttentionRows(const float* q, int64_t q_stride, const int64_t* n_keys, int64_t rows,
                   const float* keys, const float* values, int64_t kv_stride, int64_t d, float scale,
                   float* out, int64_t out_stride);
void AttentionRowsF16(const float* q, int64_t q_stride, const int64_t* n_keys, int64_t rows,
                      const uint16_t* keys_f16, const uint16_t* values_f16, int64_t kv_stride, int64_t d,
                      float scale, float* out, int64_t out_stride);
void AttentionRowsReference(const float* q, int64_t q_stride, const int64_t* n_keys, int64_t rows,
                            const float* keys, const float* values, int64_t kv_stride, int64_t d,
                            float scale, float* out, int64_t out_stride);
void AttentionRowsF16Reference(const float* q, int64_t q_stride, const int64_t* n_keys, int64_t rows,
                               const uint16_t* keys_f16, const uint16_t* values_f16, int64_t kv_stride,
                               int64_t d, float scale, float* out, int64_t out_stride);

// dst[i] = IEEE half bits of src[i], rounded to nearest even, saturating at ±65504
// (numeric.h f32_to_f16): how a row enters an f16 cache.
void RoundToF16(const float* src, int64_t n, uint16_t* dst);

}  // namespace glance::kernels
