#include "core/model/random_init.h"

#include <cmath>

namespace glance {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// splitmix64 finaliser: a bijective mixer, so (seed, index) -> independent-looking 64 bits.
inline uint64_t Mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

InitRule InitRuleFor(const TensorSpec& spec, int conv_kernel) {
  const std::string& n = spec.name;
  InitRule r;
  auto normal = [&](double mean, double std) {
    r.kind = InitKind::kNormal;
    r.mean = mean;
    r.std = std;
    return r;
  };
  if (EndsWith(n, ".A_log")) {
    r.kind = InitKind::kLogUniform;
    r.lo = 0.02;
    r.hi = 0.5;
    return r;
  }
  if (EndsWith(n, ".dt_bias")) return normal(0.0, 0.5);
  if (EndsWith(n, "conv1d.weight")) return normal(0.0, 1.0 / std::sqrt(static_cast<double>(conv_kernel)));
  if (EndsWith(n, "linear_attn.norm.weight")) return normal(1.0, 0.2);  // RMSNormGated uses w as is
  if (Contains(n, "model.visual.") && (Contains(n, ".norm1.") || Contains(n, ".norm2.") || Contains(n, "merger.norm.")))
    return EndsWith(n, ".weight") ? normal(1.0, 0.2) : normal(0.0, 0.1);  // LayerNorm w, b
  if (EndsWith(n, "layernorm.weight") || EndsWith(n, "q_norm.weight") || EndsWith(n, "k_norm.weight") ||
      n == "model.language_model.norm.weight" || n == "mtp.norm.weight" || Contains(n, "mtp.pre_fc_norm_"))
    return normal(0.0, 0.2);  // zero-centred RMSNorm, applied as 1 + w (qwen35.md §2.3; the MTP's too)
  if (EndsWith(n, ".bias")) return normal(0.0, 0.1);
  if (EndsWith(n, "pos_embed.weight")) return normal(0.0, 0.5);
  if (EndsWith(n, "embed_tokens.weight")) return normal(0.0, 1.0);
  // Projections (Linear [out, in], Conv3d [out, C, T, P, P]): fan_in = product of dims after the first.
  int64_t fan_in = 1;
  for (size_t i = 1; i < spec.shape.size(); ++i) fan_in *= spec.shape[i];
  return normal(0.0, 1.0 / std::sqrt(static_cast<double>(fan_in > 0 ? fan_in : 1)));
}

uint64_t TensorSeed(uint64_t seed, const std::string& name) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
  return Mix(h ^ Mix(seed));
}

void GenerateInit(const InitRule& rule, uint64_t tensor_seed, uint64_t first, size_t n, float* out) {
  if (rule.kind == InitKind::kLogUniform) {
    for (size_t i = 0; i < n; ++i) {
      const double u = static_cast<double>(Mix(tensor_seed + first + i) >> 11) * 0x1.0p-53;  // [0, 1)
      out[i] = static_cast<float>(std::log(rule.lo + (rule.hi - rule.lo) * u));
    }
    return;
  }
  // Sum of four U{0..65535}: mean 4·32767.5, variance 4·(65536² − 1)/12.
  constexpr double kMean = 4 * 32767.5;
  const double inv_sd = 1.0 / std::sqrt(4.0 * (65536.0 * 65536.0 - 1.0) / 12.0);
  const float scale = static_cast<float>(rule.std * inv_sd);
  const float offset = static_cast<float>(rule.mean - kMean * rule.std * inv_sd);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = Mix(tensor_seed + first + i);
    const uint32_t s = static_cast<uint32_t>(r & 0xffff) + static_cast<uint32_t>((r >> 16) & 0xffff) +
                       static_cast<uint32_t>((r >> 32) & 0xffff) + static_cast<uint32_t>(r >> 48);
    out[i] = static_cast<float>(s) * scale + offset;
  }
}

}  // namespace glance
