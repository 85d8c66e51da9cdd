// A compressed-tensors pack-quantized int4 checkpoint, written here from the tiny golden
// model's weights (quantized by QuantizeRowQ4, then packed the compressed-tensors way:
// 8 nibbles per int32, q + 8, bf16 scale per 32), must load by detecting weight_packed per
// tensor, keep the modules named in quantization_config.ignore as stored, and run: its
// logits equal those of the bf16 model quantized to q4 at load with the same ignore list.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <vector>

#include "core/engine/engine.h"
#include "core/lm/language_model.h"
#include "core/model/compressed_tensors.h"
#include "core/model/config.h"
#include "core/model/safetensors.h"
#include "core/model/safetensors_writer.h"
#include "core/model/weight_cache.h"
#include "core/util/error.h"
#include "kernels/cpu/quant_formats.h"

namespace fs = std::filesystem;
using namespace glance;

namespace {

const std::string kTiny = std::string(GLANCE_TEST_DATA) + "/tiny-a";
// The producer's usual Qwen3.5 recipe keeps these unquantized (qwen35.md §6).
const std::vector<std::string> kIgnore = {"lm_head", "re:.*in_proj_a$", "re:.*in_proj_b$"};

bool IsProjection(const std::string& name) {
  static const std::regex re(R"(model\.language_model\.layers\.\d+\..*_proj\w*\.weight)");
  return std::regex_match(name, re);
}

// Writes dir/model.safetensors (+ the other tiny-a files, config with quantization_config).
void WriteCompressedCheckpoint(const fs::path& dir) {
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(kTiny)) {
    const std::string n = e.path().filename().string();
    if (n != "model.safetensors" && n != "config.json") fs::copy_file(e.path(), dir / n, fs::copy_options::overwrite_existing);
  }
  nlohmann::json cfg;
  std::ifstream(kTiny + "/config.json") >> cfg;
  cfg["quantization_config"] = {
      {"quant_method", "compressed-tensors"},
      {"format", "pack-quantized"},
      {"ignore", kIgnore},
      {"config_groups",
       {{"group_0",
         {{"targets", {"Linear"}},
          {"weights", {{"num_bits", 4}, {"type", "int"}, {"symmetric", true}, {"strategy", "group"}, {"group_size", 32}}}}}}}};
  std::ofstream(dir / "config.json") << cfg.dump(2);

  const TensorStore src = TensorStore::OpenFolder(kTiny);
  std::vector<TensorSpec> specs;
  std::map<std::string, std::vector<uint8_t>> bytes;
  for (const auto& [name, view] : src.all()) {
    const std::string module = name.substr(0, name.size() - 7);
    if (IsProjection(name) && !IsIgnored(kIgnore, module)) {
      const int64_t rows = view->shape[0], cols = view->shape[1];
      const int64_t words = (cols + 7) / 8, nb = kernels::QuantBlocks(cols);
      std::vector<int32_t> packed(static_cast<size_t>(rows * words), 0);
      std::vector<uint16_t> scales(static_cast<size_t>(rows * nb));
      std::vector<float> row(static_cast<size_t>(cols));
      std::vector<uint8_t> q(static_cast<size_t>(nb * 16));
      kernels::WeightRef w{kernels::WeightType::BF16, view->data, rows, cols};
      for (int64_t r = 0; r < rows; ++r) {
        w.row_to_f32(r, row.data());
        kernels::QuantizeRowQ4(row.data(), cols, q.data(), scales.data() + r * nb);
        for (int64_t k = 0; k < cols; ++k) {  // our layout -> compressed-tensors words
          const int64_t b = k / 32, j = k % 32;
          const uint32_t nib = j < 16 ? q[static_cast<size_t>(b * 16 + j)] & 0xfu : q[static_cast<size_t>(b * 16 + j - 16)] >> 4;
          auto& word = packed[static_cast<size_t>(r * words + k / 8)];
          word = int32_t(uint32_t(word) | (nib << (4 * (k % 8))));
        }
      }
      const std::vector<int64_t> shape = {rows, cols};
      specs.push_back({module + ".weight_packed", DType::I32, {rows, words}});
      specs.push_back({module + ".weight_scale", DType::BF16, {rows, nb}});
      specs.push_back({module + ".weight_shape", DType::I64, {2}});
      auto put = [&](const std::string& n, const void* p, size_t size) {
        bytes[n].assign(static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + size);
      };
      put(module + ".weight_packed", packed.data(), packed.size() * 4);
      put(module + ".weight_scale", scales.data(), scales.size() * 2);
      put(module + ".weight_shape", shape.data(), 16);
    } else {
      specs.push_back({name, view->dtype, view->shape});
      bytes[name].assign(view->data, view->data + specs.back().nbytes());
    }
  }
  SafetensorsWriter wr((dir / "model.safetensors").string(), specs);
  for (const TensorSpec& s : wr.order()) wr.Append(bytes[s.name].data(), bytes[s.name].size());
  wr.Finish();
}

std::vector<float> PromptLogits(const lm::LanguageModel& m) {
  const std::vector<int64_t> ids = {1, 17, 300, 42, 4000, 9, 77, 5, 2048, 3};
  lm::LmState st = m.NewState();
  lm::ForwardOutput out;
  lm::ForwardInput in;
  in.ids = ids;
  in.all_logits = true;
  m.Forward(in, st, out, nullptr);
  return out.logits;
}

class CompressedTensors : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ::setenv("GLANCE_NO_WEIGHT_CACHE", "1", 1);
    dir_ = fs::temp_directory_path() / ("glance_ct_" + std::to_string(::getpid()));
    WriteCompressedCheckpoint(dir_);
  }
  static void TearDownTestSuite() {
    ::unsetenv("GLANCE_NO_WEIGHT_CACHE");
    fs::remove_all(dir_);
  }
  static fs::path dir_;
};
fs::path CompressedTensors::dir_;

TEST_F(CompressedTensors, LoadsPackedInt4AndMatchesQ4AtLoad) {
  const ModelConfig cfg = ModelConfig::FromFile(kTiny + "/config.json");
  const TensorStore ct = TensorStore::OpenFolder(dir_.string());
  ASSERT_NE(ct.Find("model.language_model.layers.0.mlp.gate_proj.weight_packed"), nullptr);
  ASSERT_EQ(ct.Find("model.language_model.layers.0.mlp.gate_proj.weight"), nullptr);
  const lm::LanguageModel m_ct = lm::LanguageModel::Load(ct, cfg.text);
  EXPECT_EQ(m_ct.weights().layers[0].mlp.gate_proj.type, kernels::WeightType::Q4);
  EXPECT_EQ(m_ct.weights().layers[0].linear.in_proj_a.type, kernels::WeightType::BF16);

  const TensorStore orig = TensorStore::OpenFolder(kTiny);
  PrecisionPlan plan;
  plan.projections = kernels::WeightType::Q4;
  plan.keep_as_stored = kIgnore;
  const lm::LanguageModel m_q4 = lm::LanguageModel::Load(orig, cfg.text, plan, nullptr);
  EXPECT_EQ(m_q4.weights().layers[0].linear.in_proj_b.type, kernels::WeightType::BF16);
  const std::vector<float> a = PromptLogits(m_ct), b = PromptLogits(m_q4);
  EXPECT_EQ(a, b) << "the checkpoint's int4 weights differ from q4 quantization at load";
  // Negative control: the f32 model's logits are not those of the int4 one.
  const std::vector<float> f = PromptLogits(lm::LanguageModel::Load(orig, cfg.text));
  double d = 0;
  for (size_t i = 0; i < f.size(); ++i) d = std::max(d, double(std::fabs(f[i] - a[i])));
  EXPECT_GT(d, 1e-3);
}

TEST_F(CompressedTensors, EngineLoadsAndHonoursIgnoreUnderQ4) {
  EngineOptions o;
  o.precision = Precision::kQ4;
  o.threads = 2;
  const auto e = Engine::Load(dir_.string(), o);
  const auto& L0 = e->lm().weights().layers[0];
  EXPECT_EQ(L0.mlp.down_proj.type, kernels::WeightType::Q4);
  EXPECT_EQ(L0.linear.in_proj_a.type, kernels::WeightType::BF16);  // ignored: kept as stored
  EXPECT_EQ(e->lm().weights().lm_head.type, kernels::WeightType::BF16);
  EXPECT_EQ(e->lm().weights().embed.type, kernels::WeightType::BF16);  // lookups stay as stored
  const std::vector<float> logits = PromptLogits(e->lm());
  for (float v : logits) ASSERT_TRUE(std::isfinite(v));
}

// Precision auto keeps a compressed-tensors checkpoint's own int4 and quantizes nothing else.
TEST_F(CompressedTensors, AutoPrecisionKeepsTheCheckpointsInt4) {
  EngineOptions o;
  o.threads = 2;
  ASSERT_EQ(o.precision, Precision::kAuto);  // the engine's default
  const auto e = Engine::Load(dir_.string(), o);
  EXPECT_EQ(e->info().precision, Precision::kF32);  // "as stored"
  EXPECT_NE(e->info().precision_reason.find("int4"), std::string::npos) << e->info().precision_reason;
  const auto& L0 = e->lm().weights().layers[0];
  EXPECT_EQ(L0.mlp.down_proj.type, kernels::WeightType::Q4);
  EXPECT_EQ(L0.linear.in_proj_a.type, kernels::WeightType::BF16);
  EXPECT_EQ(e->lm().weights().lm_head.type, kernels::WeightType::BF16);
}

// The quantized weights are cached on disk: the second load maps them (same logits); a
// truncated or garbled cache file is ignored and rewritten, never an error.
TEST(WeightCacheTest, SecondLoadUsesCacheAndCorruptFilesAreRebuilt) {
  const fs::path home = fs::temp_directory_path() / ("glance_cache_" + std::to_string(::getpid()));
  fs::remove_all(home);
  ::setenv("XDG_CACHE_HOME", home.string().c_str(), 1);
  EngineOptions o;
  o.precision = Precision::kQ8;
  o.threads = 1;
  const std::vector<float> first = PromptLogits(Engine::Load(kTiny, o)->lm());
  const std::string key = WeightCache::Key(TensorStore::OpenFolder(kTiny), "q8");
  const std::string file = (home / "glance" / (key + ".bin")).string();
  ASSERT_TRUE(fs::exists(file));
  EXPECT_TRUE(WeightCache((home / "glance").string(), key).loaded());
  {
    const auto e = Engine::Load(kTiny, o);
    EXPECT_EQ(e->lm().weights().layers[1].mlp.up_proj.type, kernels::WeightType::Q8);
    EXPECT_EQ(PromptLogits(e->lm()), first);
  }
  // Another precision gets another file (the key covers the precision).
  EXPECT_NE(WeightCache::Key(TensorStore::OpenFolder(kTiny), "q4"), key);
  const auto size = fs::file_size(file);
  for (int damage = 0; damage < 3; ++damage) {
    if (damage == 0) fs::resize_file(file, size / 2);                  // truncated
    if (damage == 1) std::ofstream(file, std::ios::binary) << "GLWCACHE garbage";  // garbled header
    if (damage == 2) {                                                 // entry table overwritten
      std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(90);
      const std::string junk(64, '\xff');
      f.write(junk.data(), 64);
    }
    EXPECT_FALSE(WeightCache((home / "glance").string(), key).loaded()) << damage;
    EXPECT_EQ(PromptLogits(Engine::Load(kTiny, o)->lm()), first) << damage;
    EXPECT_TRUE(WeightCache((home / "glance").string(), key).loaded()) << "rebuilt " << damage;
  }
  ::unsetenv("XDG_CACHE_HOME");
  fs::remove_all(home);
}

TEST(CompressedTensorsConfig, IgnoreMatchingAndBadConfigs) {
  EXPECT_TRUE(IsIgnored(kIgnore, "lm_head"));
  EXPECT_TRUE(IsIgnored(kIgnore, "model.language_model.layers.3.linear_attn.in_proj_a"));
  EXPECT_FALSE(IsIgnored(kIgnore, "model.language_model.layers.3.linear_attn.in_proj_a2"));
  EXPECT_FALSE(IsIgnored(kIgnore, "model.language_model.layers.3.mlp.up_proj"));
  const fs::path p = fs::temp_directory_path() / ("glance_ct_cfg_" + std::to_string(::getpid()) + ".json");
  std::ofstream(p) << R"({"quantization_config": {"quant_method": "compressed-tensors",
      "config_groups": {"g": {"weights": {"num_bits": 8, "group_size": 32, "symmetric": true}}}}})";
  EXPECT_THROW(ReadCompressedTensorsConfig(p.string()), Error);
  std::ofstream(p) << R"({"text_config": {}})";
  EXPECT_FALSE(ReadCompressedTensorsConfig(p.string()).present);
  fs::remove(p);
}

}  // namespace
