// make-model: configs with the real shapes, a tensor manifest that matches the golden HF
// checkpoint, and a random checkpoint the loader accepts, deterministic per seed.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/model/config.h"
#include "core/model/model_folder.h"
#include "core/model/random_init.h"
#include "core/model/random_model.h"
#include "core/model/safetensors.h"
#include "core/model/tensor_manifest.h"
#include "core/util/error.h"
#include "tests/model/temp_dir.h"

using namespace glance;
using glance::test::TempDir;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kTinyA = std::string(GLANCE_TEST_DATA) + "/tiny-a";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Stats {
  double mean = 0, std = 0, min = 1e30, max = -1e30;
};
Stats StatsOf(const std::vector<float>& v) {
  Stats s;
  double sum = 0, sq = 0;
  for (float x : v) {
    sum += double(x);
    sq += double(x) * double(x);
    s.min = std::min(s.min, double(x));
    s.max = std::max(s.max, double(x));
  }
  s.mean = sum / double(v.size());
  s.std = std::sqrt(std::max(0.0, sq / double(v.size()) - s.mean * s.mean));
  return s;
}

}  // namespace

TEST(RandomModel, ConfigsRoundTripThroughTheParser) {
  for (ModelShape shape : {ModelShape::kTiny, ModelShape::k0_8B, ModelShape::k2B, ModelShape::k4B}) {
    SCOPED_TRACE(ModelShapeName(shape));
    const ModelConfig c = ConfigForShape(shape);
    const ModelConfig back = ModelConfig::FromJsonText(ToHfConfigJson(c), "generated/config.json");
    EXPECT_EQ(back.text.hidden_size, c.text.hidden_size);
    EXPECT_EQ(back.text.num_hidden_layers, c.text.num_hidden_layers);
    EXPECT_EQ(back.text.layer_types, c.text.layer_types);
    EXPECT_EQ(back.text.mrope_section, c.text.mrope_section);
    EXPECT_EQ(back.text.linear_num_value_heads, c.text.linear_num_value_heads);
    EXPECT_EQ(back.text.tie_word_embeddings, c.text.tie_word_embeddings);
    EXPECT_EQ(back.text.eos_token_ids, c.text.eos_token_ids);
    EXPECT_EQ(back.vision.depth, c.vision.depth);
    EXPECT_EQ(back.vision.out_hidden_size, c.vision.out_hidden_size);
    EXPECT_EQ(back.image_token_id, 4075);
    EXPECT_EQ(back.vision_start_token_id, 4072);
    EXPECT_EQ(back.vision_end_token_id, 4073);
  }
  // Real sizes of qwen35.md §1.4.
  const ModelConfig b08 = ConfigForShape(ModelShape::k0_8B);
  EXPECT_EQ(b08.text.hidden_size, 1024);
  EXPECT_EQ(b08.text.conv_dim(), 6144);
  EXPECT_EQ(b08.text.linear_value_dim(), 2048);
  EXPECT_EQ(b08.vision.head_dim(), 64);
  const ModelConfig b4 = ConfigForShape(ModelShape::k4B);
  EXPECT_EQ(b4.text.conv_dim(), 8192);
  EXPECT_EQ(b4.text.linear_value_dim(), 4096);
  EXPECT_EQ(LayerPatternString(b4.text.layer_types), "(L,L,L,F)x8");
  EXPECT_THROW(ParseModelShape("9b"), Error);
  EXPECT_EQ(ParseModelShape("0.8B"), ModelShape::k0_8B);
}

// The manifest must list exactly the tensors HF saved for tiny-a (names and shapes).
TEST(RandomModel, ManifestMatchesTheGoldenCheckpoint) {
  const ModelConfig cfg = ModelConfig::FromFile(kTinyA + "/config.json");
  const TensorStore golden = TensorStore::OpenFolder(kTinyA);
  const auto manifest = Qwen35TensorManifest(cfg);
  EXPECT_EQ(manifest.size(), golden.all().size());
  for (const auto& spec : manifest) {
    const TensorView* v = golden.Find(spec.name);
    ASSERT_NE(v, nullptr) << spec.name << " is not in the HF checkpoint";
    EXPECT_EQ(v->shape, spec.shape) << spec.name;
  }
  // And the tiny shape is tiny-a's config.
  const auto tiny = Qwen35TensorManifest(ConfigForShape(ModelShape::kTiny));
  ASSERT_EQ(tiny.size(), manifest.size());
  for (size_t i = 0; i < tiny.size(); ++i) {
    EXPECT_EQ(tiny[i].name, manifest[i].name);
    EXPECT_EQ(tiny[i].shape, manifest[i].shape);
  }
}

TEST(RandomModel, TinyCheckpointLoadsWithEveryShapeAndSideFile) {
  TempDir dir;
  MakeModelOptions o;
  o.shape = ModelShape::kTiny;
  o.out_dir = dir.path();
  o.seed = 7;
  const MakeModelResult r = MakeRandomModel(o);

  const ModelConfig cfg = ModelConfig::FromFile(dir / "config.json");
  const TensorStore store = TensorStore::OpenFolder(dir.path());
  auto manifest = Qwen35TensorManifest(cfg);
  for (auto& spec : Qwen35MtpTensorManifest(cfg)) manifest.push_back(spec);  // make-model writes an MTP layer
  EXPECT_EQ(static_cast<size_t>(r.tensors), manifest.size());
  EXPECT_EQ(store.all().size(), manifest.size());
  int64_t params = 0;
  for (const auto& spec : manifest) {
    const TensorView& v = store.Get(spec.name, spec.shape);
    EXPECT_EQ(v.dtype, spec.name.find("A_log") != std::string::npos ? DType::F32 : DType::BF16) << spec.name;
    params += v.numel();
  }
  EXPECT_EQ(params, r.parameters);
  EXPECT_NE(store.Find("lm_head.weight"), nullptr);  // tiny-a is untied

  const ModelFolderReport info = InspectModelFolder(dir.path());
  EXPECT_TRUE(info.weights_match_config());
  EXPECT_TRUE(info.unexpected_tensors.empty());
  EXPECT_TRUE(info.has_mtp);
  EXPECT_EQ(info.ignored_tensors, 0);
  EXPECT_TRUE(info.has_tokenizer);
  EXPECT_TRUE(info.has_preprocessor);
  EXPECT_EQ(info.chat_template_source, "chat_template.jinja");

  // Special token ids in config.json are the copied tokenizer's ids.
  const json tok = json::parse(ReadAll(dir / "tokenizer.json"));
  std::map<std::string, int64_t> ids;
  for (const auto& t : tok["added_tokens"]) ids[t["content"].get<std::string>()] = t["id"].get<int64_t>();
  EXPECT_EQ(cfg.image_token_id, ids.at("<|image_pad|>"));
  EXPECT_EQ(cfg.video_token_id, ids.at("<|video_pad|>"));
  EXPECT_EQ(cfg.vision_start_token_id, ids.at("<|vision_start|>"));
  EXPECT_EQ(cfg.vision_end_token_id, ids.at("<|vision_end|>"));
  EXPECT_EQ(cfg.text.eos_token_ids, (std::vector<int64_t>{ids.at("<|endoftext|>")}));
  const json gen = json::parse(ReadAll(dir / "generation_config.json"));
  EXPECT_EQ(gen["eos_token_id"], json({ids.at("<|im_end|>"), ids.at("<|endoftext|>")}));
  // tiny keeps the demo files byte for byte.
  const std::string res = std::string(GLANCE_SOURCE_RESOURCES) + "/demo-model/";
  for (const char* f : {"tokenizer.json", "chat_template.jinja", "preprocessor_config.json"})
    EXPECT_EQ(ReadAll(dir / f), ReadAll(res + f)) << f;

  // Distributions follow golden.json weight_init_rules.
  auto stats = [&](const std::string& name) { return StatsOf(store.Get(name).ToF32()); };
  const Stats embed = stats("model.language_model.embed_tokens.weight");  // N(0, 1), 262k values
  EXPECT_NEAR(embed.mean, 0.0, 0.01);
  EXPECT_NEAR(embed.std, 1.0, 0.01);
  const Stats qkv = stats("model.language_model.layers.0.linear_attn.in_proj_qkv.weight");  // N(0, 1/8)
  EXPECT_NEAR(qkv.std, 1.0 / 8.0, 0.005);
  const Stats rms = stats("model.language_model.layers.0.input_layernorm.weight");  // N(0, 0.2), 1+w form
  EXPECT_NEAR(rms.mean, 0.0, 0.1);
  const Stats gated = stats("model.language_model.layers.0.linear_attn.norm.weight");  // 1 + N(0, 0.2)
  EXPECT_NEAR(gated.mean, 1.0, 0.15);
  const Stats a_log = stats("model.language_model.layers.0.linear_attn.A_log");
  EXPECT_GE(a_log.min, std::log(0.02) - 1e-6);
  EXPECT_LT(a_log.max, std::log(0.5));
  const Stats ln = stats("model.visual.blocks.0.norm1.weight");
  EXPECT_NEAR(ln.mean, 1.0, 0.15);

  // Deterministic per seed (thread count does not matter); another seed differs.
  TempDir again, other;
  o.out_dir = again.path();
  o.threads = 1;
  MakeRandomModel(o);
  EXPECT_EQ(ReadAll(dir / "model.safetensors"), ReadAll(again / "model.safetensors"));
  EXPECT_EQ(ReadAll(dir / "config.json"), ReadAll(again / "config.json"));
  o.out_dir = other.path();
  o.seed = 8;
  MakeRandomModel(o);
  EXPECT_NE(ReadAll(dir / "model.safetensors"), ReadAll(other / "model.safetensors"));
}

TEST(RandomModel, InitRulesByName) {
  const InitRule proj = InitRuleFor({"model.language_model.layers.3.self_attn.o_proj.weight", DType::BF16, {64, 128}}, 4);
  EXPECT_DOUBLE_EQ(proj.std, 1.0 / std::sqrt(128.0));
  const InitRule patch = InitRuleFor({"model.visual.patch_embed.proj.weight", DType::BF16, {32, 3, 2, 16, 16}}, 4);
  EXPECT_DOUBLE_EQ(patch.std, 1.0 / std::sqrt(1536.0));
  EXPECT_DOUBLE_EQ(InitRuleFor({"model.language_model.layers.0.linear_attn.conv1d.weight", DType::BF16, {128, 1, 4}}, 4).std, 0.5);
  EXPECT_EQ(InitRuleFor({"model.language_model.layers.0.linear_attn.A_log", DType::F32, {4}}, 4).kind, InitKind::kLogUniform);
  EXPECT_DOUBLE_EQ(InitRuleFor({"model.language_model.norm.weight", DType::BF16, {64}}, 4).mean, 0.0);
  EXPECT_DOUBLE_EQ(InitRuleFor({"model.visual.merger.norm.weight", DType::BF16, {32}}, 4).mean, 1.0);
  EXPECT_DOUBLE_EQ(InitRuleFor({"model.visual.merger.norm.bias", DType::BF16, {32}}, 4).std, 0.1);
  // Chunked generation equals one-shot generation (counter-based stream).
  std::vector<float> whole(1000), parts(1000);
  const InitRule r{InitKind::kNormal, 0.0, 1.0, 0, 1};
  GenerateInit(r, 42, 0, 1000, whole.data());
  GenerateInit(r, 42, 0, 300, parts.data());
  GenerateInit(r, 42, 300, 700, parts.data() + 300);
  EXPECT_EQ(whole, parts);
}

// 0.8B at full size: header and sizes only; the ~1.7 GB file is deleted with the temp dir.
TEST(RandomModel, RealShape08BHasTheReleasedTensorList) {
  TempDir dir;
  MakeModelOptions o;
  o.shape = ModelShape::k0_8B;
  o.out_dir = dir.path();
  const auto start = std::chrono::steady_clock::now();
  const MakeModelResult r = MakeRandomModel(o);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("make-model 0.8b: %lld tensors, %lld parameters, %.0f MiB in %.1f s\n",
              static_cast<long long>(r.tensors), static_cast<long long>(r.parameters),
              static_cast<double>(r.bytes) / double(1 << 20), secs);
  const ModelConfig cfg = ModelConfig::FromFile(dir / "config.json");
  EXPECT_TRUE(cfg.text.tie_word_embeddings);
  auto f = SafetensorsFile::Open(dir / "model.safetensors");
  auto manifest = Qwen35TensorManifest(cfg);
  for (auto& spec : Qwen35MtpTensorManifest(cfg)) manifest.push_back(spec);
  ASSERT_EQ(f->tensors().size(), manifest.size());
  EXPECT_EQ(f->tensors().count("lm_head.weight"), 0u);  // tied
  uint64_t payload = 0;
  for (const auto& spec : manifest) {
    const auto it = f->tensors().find(spec.name);
    ASSERT_NE(it, f->tensors().end()) << spec.name;
    EXPECT_EQ(it->second.shape, spec.shape) << spec.name;
    payload += it->second.nbytes;
  }
  EXPECT_LT(payload, f->file_size());
  EXPECT_EQ(f->tensors().at("model.language_model.embed_tokens.weight").shape, (std::vector<int64_t>{248320, 1024}));
  EXPECT_EQ(f->tensors().at("model.language_model.layers.3.self_attn.q_proj.weight").shape,
            (std::vector<int64_t>{4096, 1024}));
  EXPECT_EQ(f->tensors().at("model.language_model.layers.0.linear_attn.in_proj_qkv.weight").shape,
            (std::vector<int64_t>{6144, 1024}));
  EXPECT_EQ(f->tensors().at("model.visual.merger.linear_fc2.weight").shape, (std::vector<int64_t>{1024, 3072}));
  // 0.8B/2B: non-thinking default template; preprocessor at the released limit.
  const std::string tpl = ReadAll(dir / "chat_template.jinja");
  EXPECT_NE(tpl.find("enable_thinking is defined and enable_thinking is true"), std::string::npos);
  EXPECT_EQ(tpl.find("enable_thinking is defined and enable_thinking is false"), std::string::npos);
  EXPECT_EQ(json::parse(ReadAll(dir / "preprocessor_config.json"))["size"]["shortest_edge"], 65536);
}
