// The vision tower as the q8 and q4 engines run it (PrecisionPlan::vision: its LayerNorm-fed
// projections Q8, through the integer GEMM) against the same tower in float32: the image embeddings must keep
// cosine >= 0.9999 (issue "CPU speed, part 2") on tiny-a's golden image and on the trained demo
// model with its own image. Negative control: one corrupted weight scale, loaded through the
// weight cache exactly as a prepared matrix is at start-up, must fail the same gate.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/engine.h"
#include "core/model/config.h"
#include "core/model/prepared_weights.h"
#include "core/model/weight_cache.h"
#include "core/vision/image_preprocessor.h"
#include "core/vision/vision_tower.h"
#include "kernels/cpu/thread_pool.h"
#include "tests/vision/vision_test_util.h"

namespace glance::vision {
namespace {

constexpr double kMinCosine = 0.9999;  // the gate, as in core/checks/gate_table.cpp

struct Model {
  TensorStore store;
  ModelConfig config;
  PreprocessedImage image;
};

Model TinyA() {
  Model m{TensorStore::OpenFolder(test::TinyDir()), ModelConfig::FromFile(test::TinyFile("config.json")), {}};
  const ImagePreprocessor pre(PreprocessorConfig::FromFile(test::TinyFile("preprocessor_config.json")));
  m.image = pre.Preprocess(test::TinyFile("image.png"), ImageMode::kDetail);
  return m;
}

Model Demo() {
  const std::string dir = DefaultDemoModelDir();
  Model m{TensorStore::OpenFolder(dir), ModelConfig::FromFile(dir + "/config.json"), {}};
  const ImagePreprocessor pre(PreprocessorConfig::FromFile(dir + "/preprocessor_config.json"));
  m.image = pre.Preprocess(DefaultDemoImagePath(), ImageMode::kDetail);
  return m;
}

std::vector<float> Embeds(const Model& m, const PrecisionPlan& plan, kernels::ThreadPool* pool) {
  return VisionTower::Load(m.store, m.config.vision, plan, pool)->Forward(m.image, pool);
}

void ExpectQuantizedMatchesFloat(const Model& m, const char* name) {
  kernels::ThreadPool pool(2);
  const std::vector<float> ref = Embeds(m, PrecisionPlan::For(Precision::kF32), &pool);
  ASSERT_FALSE(ref.empty());
  for (const auto& [precision, kind] : {std::pair{"q8", Precision::kQ8}, std::pair{"q4", Precision::kQ4}}) {
    const PrecisionPlan plan = PrecisionPlan::For(kind);
    ASSERT_EQ(plan.vision, kernels::WeightType::Q8) << precision;
    const auto tower = VisionTower::Load(m.store, m.config.vision, plan, &pool);
    // The projections really are Q8 (smaller than the bf16 checkpoint's), not left as stored.
    EXPECT_LT(tower->WeightBytes(), VisionTower::Load(m.store, m.config.vision)->WeightBytes()) << name;
    const std::vector<float> got = tower->Forward(m.image, &pool);
    const double cos = test::Cosine(got, ref);
    std::printf("%s %s vision embeddings: cosine %.8f, max |diff| %.3g\n", name, precision, cos,
                test::MaxAbsDiff(got, ref));
    EXPECT_GE(cos, kMinCosine) << name << " " << precision;
    EXPECT_LT(cos, 1.0 - 1e-12) << name << ": quantized embeddings identical to float32 — not quantized?";
  }
  // bf16 and f32 engines keep the tower as stored: the same numbers as float32.
  EXPECT_EQ(Embeds(m, PrecisionPlan::For(Precision::kBf16), &pool), ref) << name;
}

TEST(VisionQuantized, TinyAEmbeddingsMatchFloat32) { ExpectQuantizedMatchesFloat(TinyA(), "tiny-a"); }

TEST(VisionQuantized, DemoModelEmbeddingsMatchFloat32) { ExpectQuantizedMatchesFloat(Demo(), "demo-model"); }

// Holds a copy of a prepared Q8 matrix (WeightRef does not own by itself).
struct OwnedQ8 {
  std::vector<int8_t> q;
  std::vector<float> s;
};

TEST(VisionQuantized, CorruptedScaleFailsTheGate) {
  const Model m = TinyA();
  kernels::ThreadPool pool(2);
  const std::vector<float> ref = Embeds(m, PrecisionPlan::For(Precision::kF32), &pool);
  const auto dir = std::filesystem::temp_directory_path() / ("glance_test_vision_q8_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string key = "vision-negative-control";
  const std::string name = "model.visual.blocks.0.attn.qkv";
  const int64_t H = m.config.vision.hidden_size;

  // 1. Load once with a cache: the tower records its prepared matrices.
  PrecisionPlan plan = PrecisionPlan::For(Precision::kQ8);
  {
    WeightCache record((dir / "clean").string(), key);
    plan.cache = &record;
    const std::vector<float> clean = Embeds(m, plan, &pool);
    ASSERT_TRUE(record.Save());
    EXPECT_GE(test::Cosine(clean, ref), kMinCosine);
  }
  // 2. From the cache, the same numbers (the vision projections are cached like the LM's).
  WeightCache cached((dir / "clean").string(), key);
  ASSERT_TRUE(cached.loaded());
  const std::optional<kernels::WeightRef> w = cached.Find(name, kernels::WeightType::Q8, 3 * H, H);
  ASSERT_TRUE(w.has_value()) << name << " was not recorded in the weight cache";
  plan.cache = &cached;
  const std::vector<float> from_cache = Embeds(m, plan, &pool);
  EXPECT_GE(test::Cosine(from_cache, ref), kMinCosine);

  // 3. One output feature's first block scale doubled — a single wrong float among thousands.
  auto copy = std::make_shared<OwnedQ8>();
  const int64_t nb = w->blocks();
  copy->q.assign(static_cast<const int8_t*>(w->data), static_cast<const int8_t*>(w->data) + w->rows * nb * 32);
  copy->s.assign(static_cast<const float*>(w->scales), static_cast<const float*>(w->scales) + w->rows * nb);
  copy->s[0] *= 2.0f;
  kernels::WeightRef bad = *w;
  bad.data = copy->q.data();
  bad.scales = copy->s.data();
  bad.owner = copy;
  {
    WeightCache corrupt((dir / "corrupt").string(), key);
    corrupt.Add(name, bad);
    ASSERT_TRUE(corrupt.Save());
  }
  WeightCache corrupt((dir / "corrupt").string(), key);
  plan.cache = &corrupt;
  const double bad_cos = test::Cosine(Embeds(m, plan, &pool), ref);
  std::printf("tiny-a q8 with one scale of %s doubled: cosine %.8f\n", name.c_str(), bad_cos);
  EXPECT_LT(bad_cos, kMinCosine) << "the gate cannot tell a corrupted weight from a good one";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace glance::vision
