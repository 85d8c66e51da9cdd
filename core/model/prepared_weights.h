#pragma once
// Which weight format each tensor class of the language model gets (EngineOptions::precision),
// and the preparation step that converts a checkpoint matrix into it at load.
//   "f32"  : every matrix as stored (bf16/f16 widened exactly in the kernels) — the reference
//   "bf16" : projections and LM head rounded to bf16
//   "q8"   : projections and LM head in Q8 (quant_formats.h)
//   "q4"   : projections in Q4; LM head in Q8 (the head decides the argmax and is the most
//            sensitive to quantization)
// The embedding table stays as stored in every precision: a lookup reads one row per token,
// so it costs no bandwidth, and leaving it mmapped costs no memory (measured on tiny-a: q8
// embeddings alone moved mean KL to 4e-4 and flipped 10/94 argmaxes). With tied embeddings
// the LM head therefore gets its own quantized copy.
// Norms, conv kernels and other small vectors always stay f32. A matrix that is already
// quantized in the checkpoint (compressed-tensors int4) is kept as it is.
// The vision tower's LayerNorm-fed block projections (qkv, MLP fc1) are Q8 for "q8" and
// "q4" and as stored otherwise: every image runs hundreds to thousands of rows through them, so
// they are compute-bound and the integer GEMM (kernels/cpu/gemm_int8.h) is what makes them
// fast; Q8 and not Q4 because the image embeddings are gated at cosine >= 0.9999 against
// float32 (tests/vision/test_vision_quantized.cpp; which projections and why:
// core/vision/vision_tower.cpp, Load).
#include <optional>
#include <string>
#include <vector>

#include "core/model/precision.h"
#include "kernels/cpu/matmul.h"

namespace glance::kernels {
class ThreadPool;
}

namespace glance {

class WeightCache;

struct PrecisionPlan {
  std::optional<kernels::WeightType> projections;  // nullopt: as stored
  std::optional<kernels::WeightType> lm_head;
  std::optional<kernels::WeightType> embed;
  std::optional<kernels::WeightType> vision;  // the vision tower's projections
  // Modules never converted (compressed-tensors quantization_config.ignore: exact names or
  // "re:" regexes, compressed_tensors.h IsIgnored).
  std::vector<std::string> keep_as_stored;
  // Where prepared matrices are looked up first and recorded for saving (weight_cache.h);
  // null: always prepare. Not owned.
  WeightCache* cache = nullptr;

  // What `precision` prepares. Throws glance::Error for kAuto (the engine resolves it first).
  static PrecisionPlan For(Precision precision);
};

// `w` converted to `target` (an owning copy), or `w` itself when target is nullopt, equal to
// w's type, f32/f16, or w is already block-quantized. With a cache, a matching cached matrix
// `name` is returned instead of converting, and a fresh conversion is recorded under `name`.
kernels::WeightRef PrepareWeight(const kernels::WeightRef& w,
                                 std::optional<kernels::WeightType> target,
                                 kernels::ThreadPool* pool, WeightCache* cache = nullptr,
                                 const std::string& name = {});

}  // namespace glance
