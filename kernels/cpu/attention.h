#pragma once
// The two inner loops of softmax attention for one query row (qwen35.md §2.5), f32, SIMD with
// Highway runtime dispatch. Keys/values are rows of a cache at a fixed stride (floats).
// *Reference twins are the scalar oracles (tests/kernels/test_vector_kernels.cpp).
#include <cstdint>

namespace glance::kernels {

// scores[j] = scale · (q · key_j), key_j = keys + j·key_stride, j in [0, n), rows of length d.
void AttentionScores(const float* q, const float* keys, int64_t key_stride, int64_t n, int64_t d,
                     float scale, float* scores);
void AttentionScoresReference(const float* q, const float* keys, int64_t key_stride, int64_t n,
                              int64_t d, float scale, float* scores);

// out[i] = Σ_j p[j] · value_j[i], value_j = values + j·value_stride, i in [0, d). Overwrites out.
void AttentionWeightedSum(const float* p, const float* values, int64_t value_stride, int64_t n,
                          int64_t d, float* out);
void AttentionWeightedSumReference(const float* p, const float* values, int64_t value_stride,
                                   int64_t n, int64_t d, float* out);

}  // namespace glance::kernels
