#pragma once
// Random initialisation rules of the golden tiny-a model (tests/data/tiny-a/golden.json
// `weight_init_rules`), by tensor name, and a fast counter-based generator for them.
#include <cstdint>
#include <string>

#include "core/model/safetensors_writer.h"

namespace glance {

enum class InitKind {
  kNormal,       // mean + N(0, std)
  kLogUniform,   // log(U(lo, hi))  (A_log)
};

struct InitRule {
  InitKind kind = InitKind::kNormal;
  double mean = 0.0;
  double std = 1.0;
  double lo = 0.0, hi = 1.0;
};

// The rule for one tensor of Qwen35TensorManifest or Qwen35MtpTensorManifest (projections
// N(0, 1/sqrt(fan_in)), zero-centred RMSNorm weights N(0, 0.2), gated-norm and LayerNorm weights
// 1 + N(0, 0.2), biases N(0, 0.1), ...).
InitRule InitRuleFor(const TensorSpec& spec, int conv_kernel);

// Fills out[0..n) with values of element index [first, first + n) of a tensor whose stream is
// `tensor_seed`. Counter-based: value i depends only on (tensor_seed, i), so any chunking or
// thread split gives the same numbers. Normals use the Irwin-Hall sum of four 16-bit uniforms
// (mean/std exact, tails cut at ±3.46σ) — fine for random test weights and ~10x faster than
// Box-Muller.
void GenerateInit(const InitRule& rule, uint64_t tensor_seed, uint64_t first, size_t n, float* out);

// A stable 64-bit seed for a tensor name under a global seed.
uint64_t TensorSeed(uint64_t seed, const std::string& name);

}  // namespace glance
