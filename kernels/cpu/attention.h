#pragma once
// The two inner loops of softmax attention for one query row (qwen35.md §2.5), SIMD with
// Highway runtime dispatch. Keys/values are rows of a cache at a fixed stride (elements), held
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

// out[i] = Σ_j p[j] · value_j[i], value_j = values + j·value_stride, i in [0, d). Overwrites out.
void AttentionWeightedSum(const float* p, const float* values, int64_t value_stride, int64_t n,
                          int64_t d, float* out);
void AttentionWeightedSumF16(const float* p, const uint16_t* values_f16, int64_t value_stride,
                             int64_t n, int64_t d, float* out);
void AttentionWeightedSumReference(const float* p, const float* values, int64_t value_stride,
                                   int64_t n, int64_t d, float* out);
void AttentionWeightedSumF16Reference(const float* p, const uint16_t* values_f16,
                                      int64_t value_stride, int64_t n, int64_t d, float* out);

// dst[i] = IEEE half bits of src[i], rounded to nearest even, saturating at ±65504
// (numeric.h f32_to_f16): how a row enters an f16 cache.
void RoundToF16(const float* src, int64_t n, uint16_t* dst);

}  // namespace glance::kernels
