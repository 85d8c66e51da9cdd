#pragma once
// Next-token selection over a logits row: greedy, or seeded sampling with temperature,
// top-k, top-p, min-p, and repetition / presence penalties. Ids at or past the tokenizer's
// size (the embedding is padded: 248,320 rows for 248,077 tokens) are never produced.
//
// Thread contract: a Sampler is owned by one session/thread.
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace glance {

struct SamplingParams {
  bool greedy = true;
  float temperature = 1.0f;
  int top_k = 0;               // 0 = off
  float top_p = 1.0f;          // 1 = off
  float min_p = 0.0f;          // 0 = off
  float repetition_penalty = 1.0f;  // HF-style: logit/penalty if >0 else logit*penalty, over seen ids
  float presence_penalty = 0.0f;    // OpenAI-style: subtract once per distinct generated id

  static SamplingParams Greedy() { return SamplingParams{}; }

  // Checks ranges; throws glance::Error naming the bad field.
  void Validate() const;
};

class Sampler {
 public:
  // The same params, seed and inputs give the same ids (the seed drives a mt19937_64).
  Sampler(const SamplingParams& params, int64_t valid_vocab, uint64_t seed = 0);

  // `context` = ids that count for the repetition penalty (prompt + generated);
  // `generated` = ids generated this turn (presence penalty). logits is modified in place.
  int32_t Sample(std::span<float> logits, std::span<const int32_t> context,
                 std::span<const int32_t> generated);

  const SamplingParams& params() const { return params_; }

  // Speculative sampling (core/engine/speculative_sampling.h): the distribution Sample draws
  // from for these inputs, dense over the logits' size (zero outside the candidates; a one-hot
  // at the argmax when greedy), and a draw from such a distribution with this sampler's stream.
  std::vector<float> Distribution(std::span<float> logits, std::span<const int32_t> context,
                                  std::span<const int32_t> generated);
  int32_t Draw(std::span<const float> probs);
  std::mt19937_64& rng() { return rng_; }

 private:
  // Penalties in place; returns the usable vocabulary size.
  int64_t ApplyPenalties(std::span<float> logits, std::span<const int32_t> context,
                         std::span<const int32_t> generated) const;
  // scratch_ = the candidates with their probabilities (temperature, top-k, min-p, top-p);
  // returns their total mass.
  double Candidates(std::span<const float> logits, int64_t n);

  SamplingParams params_;
  int64_t valid_vocab_;
  std::mt19937_64 rng_;
  std::vector<std::pair<float, int32_t>> scratch_;
};

// The sampling a checkpoint's generation_config.json asks for, read as Hugging Face's
// GenerationConfig does (transformers generation/configuration_utils.py): do_sample false or
// absent -> greedy; otherwise temperature (default 1.0), top_k (default 50), top_p (1.0),
// min_p (off) and repetition_penalty (1.0). A missing file means greedy. Throws glance::Error
// naming the file and field on a value of the wrong type or out of range.
SamplingParams SamplingFromGenerationConfig(const std::string& path);

// A seed for a turn whose user fixed none: different on every call.
uint64_t FreshSeed();

// First index of the maximum over logits[0, n) (torch.argmax tie-breaking).
int32_t Argmax(const float* logits, int64_t n);

// An index drawn with probability weight[i] / total (weights >= 0, total their sum); the last
// positive index when rounding carries the draw past the end.
template <class T>
int32_t DrawIndex(std::span<const T> weight, double total, std::mt19937_64& rng) {
  double r = std::uniform_real_distribution<double>(0.0, total)(rng);
  int32_t last = 0;
  for (size_t i = 0; i < weight.size(); ++i) {
    if (weight[i] <= T(0)) continue;
    last = static_cast<int32_t>(i);
    r -= static_cast<double>(weight[i]);
    if (r <= 0.0) return last;
  }
  return last;
}

}  // namespace glance
