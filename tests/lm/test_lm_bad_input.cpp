// Bad input is a glance::Error naming what is wrong: missing/misshapen tensors, bad ids,
// bad overrides, a state of another model. Also: tied embeddings need no lm_head.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/model/safetensors_writer.h"
#include "core/util/error.h"
#include "lm_fixture.h"

namespace glance::lm {
namespace {

using testing::Golden;
using testing::TinyModel;
using testing::GetTinyModel;

namespace fs = std::filesystem;

// Copies the tiny-a weights into a temp file, letting `edit` drop (return false) or reshape
// tensors; returns the path.
std::string WriteModifiedCopy(const std::string& tag,
                              const std::function<bool(TensorSpec&)>& edit) {
  const TinyModel& m = GetTinyModel();
  std::vector<TensorBytes> tensors;
  for (const auto& [name, view] : m.store.all()) {
    TensorBytes tb;
    tb.spec = TensorSpec{name, view->dtype, view->shape};
    if (!edit(tb.spec)) continue;
    tb.bytes.assign(view->data, view->data + view->nbytes);
    tensors.push_back(std::move(tb));
  }
  const fs::path dir = fs::temp_directory_path() / ("glance_lm_test_" + tag);
  fs::create_directories(dir);
  const std::string path = (dir / "model.safetensors").string();
  WriteSafetensorsFile(path, tensors);
  return path;
}

std::string LoadError(const std::string& path, const TextConfig& cfg) {
  const TensorStore store = TensorStore::OpenFiles({path});
  try {
    LanguageModel::Load(store, cfg);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(LmBadInput, MissingTensorIsNamed) {
  const std::string name = "model.language_model.layers.5.linear_attn.dt_bias";
  const std::string path = WriteModifiedCopy("missing", [&](TensorSpec& s) { return s.name != name; });
  const std::string msg = LoadError(path, GetTinyModel().cfg.text);
  EXPECT_NE(msg.find(name), std::string::npos) << msg;
}

TEST(LmBadInput, WrongShapeIsNamedWithBothShapes) {
  const std::string name = "model.language_model.layers.7.self_attn.k_proj.weight";
  const std::string path = WriteModifiedCopy("shape", [&](TensorSpec& s) {
    if (s.name == name) s.shape = {32, 128};  // same bytes, other shape (was [64, 64])
    return true;
  });
  const std::string msg = LoadError(path, GetTinyModel().cfg.text);
  EXPECT_NE(msg.find(name), std::string::npos) << msg;
  EXPECT_NE(msg.find("32"), std::string::npos) << msg;
  EXPECT_NE(msg.find("64"), std::string::npos) << msg;
}

TEST(LmBadInput, ConfigThatDisagreesWithTheWeights) {
  TextConfig cfg = GetTinyModel().cfg.text;
  cfg.intermediate_size = 96;
  const std::string msg = LoadError(testing::TinyDir() + "/model.safetensors", cfg);
  EXPECT_NE(msg.find("mlp.gate_proj.weight"), std::string::npos) << msg;
  cfg = GetTinyModel().cfg.text;
  cfg.layer_types.pop_back();
  EXPECT_NE(LoadError(testing::TinyDir() + "/model.safetensors", cfg).find("layer_types"),
            std::string::npos);
}

TEST(LmBadInput, TiedEmbeddingsNeedNoLmHead) {
  const std::string path =
      WriteModifiedCopy("tied", [](TensorSpec& s) { return s.name != "lm_head.weight"; });
  TextConfig cfg = GetTinyModel().cfg.text;
  EXPECT_NE(LoadError(path, cfg).find("lm_head.weight"), std::string::npos);  // untied: needed
  cfg.tie_word_embeddings = true;
  const TensorStore store = TensorStore::OpenFiles({path});
  const LanguageModel tied = LanguageModel::Load(store, cfg);
  EXPECT_EQ(tied.weights().lm_head.data, tied.weights().embed.data);
  LmState st = tied.NewState();
  const int64_t id = 7;
  ForwardInput in;
  in.ids = std::span<const int64_t>(&id, 1);
  ForwardOutput out;
  tied.Forward(in, st, out, nullptr);
  EXPECT_EQ(out.logits.size(), 4096u);
}

TEST(LmBadInput, ForwardRejectsBadRequestsWithoutTouchingTheState) {
  const LanguageModel& model = GetTinyModel().model;
  LmState st = model.NewState();
  ForwardOutput out;
  ForwardInput in;
  EXPECT_THROW(model.Forward(in, st, out, nullptr), Error);  // no tokens
  const std::vector<int64_t> bad = {1, 4096};
  in.ids = bad;
  try {
    model.Forward(in, st, out, nullptr);
    ADD_FAILURE() << "no error for id 4096";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("4096"), std::string::npos) << e.what();
  }
  const std::vector<int64_t> ok = {1, 2};
  const std::vector<float> row(64, 0.0f);
  const EmbeddingOverride ov[] = {{2, row.data()}};
  in.ids = ok;
  in.overrides = ov;
  EXPECT_THROW(model.Forward(in, st, out, nullptr), Error);
  EXPECT_EQ(st.n_tokens, 0);
  LmState other;  // not made for this model
  in.overrides = {};
  EXPECT_THROW(model.Forward(in, other, out, nullptr), Error);
}

}  // namespace
}  // namespace glance::lm
