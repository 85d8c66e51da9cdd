#pragma once
// Reading a reference folder (tests/data/tiny-a format): golden.safetensors tensors as f32 or
// int64 vectors, and golden.json. Shared by the reference check and the tests.
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/lm/language_model.h"
#include "core/model/safetensors.h"

namespace glance {
class Engine;
}  // namespace glance

namespace glance::checks {

class ReferenceData {
 public:
  // Throws glance::Error naming the missing file.
  explicit ReferenceData(const std::string& dir);

  const std::string& dir() const { return dir_; }
  const nlohmann::json& meta() const { return meta_; }  // golden.json
  bool Has(const std::string& name) const { return store_.Find(name) != nullptr; }
  const TensorView& View(const std::string& name) const { return store_.Get(name); }
  std::vector<float> F32(const std::string& name) const;
  std::vector<int64_t> I64(const std::string& name) const;

 private:
  std::string dir_;
  nlohmann::json meta_;
  TensorStore store_;
};

struct CheckOptions;

// The engine a check runs: the folder's model with the check's threads, backend, bundle and
// precision.
std::shared_ptr<const Engine> LoadCheckEngine(const std::string& dir, const CheckOptions& options);

// The folder's image(s) (golden.json "image" or "images") through the engine: pixel values in
// detail mode with the folder's preprocessor config, merged grids and vision features, in order.
struct ReferenceImages {
  std::vector<float> pixels;    // [patches][patch_dim], all images
  std::vector<float> features;  // [tokens][hidden], all images
  std::vector<lm::ImageGrid> grids;
  bool resized = false;         // whether any image was resized (pixel gates differ)
  // Where image k's rows start in `features` (what PrefillRows takes).
  std::vector<const float*> FeaturePointers(int64_t hidden) const;
};
ReferenceImages RunReferenceImages(const ReferenceData& ref, const Engine& engine);
// The paths of the folder's image(s), in order (golden.json "images" or "image").
std::vector<std::string> ReferenceImageFiles(const ReferenceData& ref);

// The reference prompt through the product's prompt path: golden.json's prompt.messages
// rendered, tokenized and expanded by BuildPromptStream (as Session does every turn), then
// prefilled on a fresh state with the images' rows and M-RoPE positions (PrefillRows), logits
// at every position. `ids_match`: the stream equals the reference's prompt.input_ids (when it
// does not, the prefill gates compare different prompts and fail too). `observer` sees the
// full-attention rows.
struct ReferencePrefill {
  std::vector<int64_t> ids;  // the stream's
  bool ids_match = false;
  lm::MropePositions positions;
  lm::LmState state;
  lm::ForwardOutput out;
};
ReferencePrefill PrefillReferencePrompt(const ReferenceData& ref, const Engine& engine,
                                        const ReferenceImages& images,
                                        lm::AttentionObserver* observer = nullptr);

// One embedding override per image-placeholder id, taking feature rows in order (for tools
// that hold ids without a PromptStream).
std::vector<lm::EmbeddingOverride> ImageRowOverrides(const std::vector<int64_t>& ids, int64_t image_token_id,
                                                     const std::vector<float>& features, int64_t hidden);

// Figures used by the gates.
double MaxAbsDiff(const float* a, const float* b, size_t n);
double Cosine(const float* a, const float* b, size_t n);
__attribute__((format(printf, 1, 2))) std::string FormatFigure(const char* format, ...);

}  // namespace glance::checks
