#include "core/checks/engine_reference.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/checks/reference_check.h"
#include "core/checks/reference_data.h"
#include "core/engine/engine.h"
#include "core/engine/sampler.h"
#include "core/lm/language_model.h"
#include "core/model/safetensors_writer.h"
#include "core/util/error.h"

namespace glance::checks {

namespace fs = std::filesystem;

namespace {

TensorBytes F32Tensor(const std::string& name, std::vector<int64_t> shape, const float* data) {
  TensorBytes t;
  t.spec = {name, DType::F32, std::move(shape)};
  t.bytes.resize(t.spec.nbytes());
  std::memcpy(t.bytes.data(), data, t.bytes.size());
  return t;
}

TensorBytes I64Tensor(const std::string& name, const std::vector<int64_t>& v) {
  TensorBytes t;
  t.spec = {name, DType::I64, {static_cast<int64_t>(v.size())}};
  t.bytes.resize(t.spec.nbytes());
  std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

}  // namespace

void WriteEngineReference(const EngineReferenceOptions& o, const std::string& out_dir) {
  if (o.steps < 2) throw Error("engine reference: steps must be at least 2 (got " + std::to_string(o.steps) + ")");
  std::error_code ec;
  if (!fs::is_regular_file(fs::path(o.model_dir) / "config.json", ec))
    throw Error("engine reference: " + o.model_dir + " has no config.json");
  if (!fs::is_regular_file(o.image, ec)) throw Error("engine reference: no image file " + o.image);
  const fs::path out(out_dir);
  fs::create_directories(out, ec);
  if (ec) throw Error("engine reference: cannot create " + out_dir + ": " + ec.message());
  // The model's files, linked (the check loads the model from the reference folder).
  for (const auto& e : fs::directory_iterator(o.model_dir)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || name.rfind("golden.", 0) == 0 || name == "image.png") continue;
    fs::remove(out / name, ec);
    fs::create_symlink(fs::absolute(e.path()), out / name, ec);
    if (ec) throw Error("engine reference: cannot link " + (out / name).string() + ": " + ec.message());
  }
  fs::remove(out / "image.png", ec);
  fs::copy_file(o.image, out / "image.png", ec);
  if (ec) throw Error("engine reference: cannot copy " + o.image + " to " + out_dir + ": " + ec.message());

  nlohmann::json meta;
  meta["name"] = fs::path(o.model_dir).filename().string();
  meta["reference"] = "glance f32 CPU engine (core/checks/engine_reference.h), not Hugging Face";
  meta["image"] = {{"file", "image.png"}};
  meta["prompt"] = {{"messages", nlohmann::json::array({{{"role", "user"},
                                                         {"content", nlohmann::json::array({{{"type", "image"}},
                                                                                            {{"type", "text"}, {"text", o.prompt}}})}}})},
                    {"enable_thinking", false}};
  std::ofstream(out / "golden.json") << meta.dump(1) << "\n";
  // A first golden.safetensors so the folder reads as a reference; the prompt's ids are only
  // known once the engine has rendered it.
  WriteSafetensorsFile((out / "golden.safetensors").string(), {I64Tensor("prompt.input_ids", {0})});

  CheckOptions copt;
  copt.threads = o.threads;  // kCpu, kF32: the reference engine
  const ReferenceData ref(out_dir);
  const auto engine_ptr = LoadCheckEngine(out_dir, copt);
  const Engine& engine = *engine_ptr;
  const ReferenceImages images = RunReferenceImages(ref, engine);
  ReferencePrefill prefill = PrefillReferencePrompt(ref, engine, images, nullptr);
  const int64_t V = prefill.out.vocab, L = static_cast<int64_t>(prefill.ids.size());
  std::vector<float> decode(prefill.out.last(), prefill.out.last() + V);
  std::vector<int64_t> tokens;
  lm::ForwardOutput step;
  for (int s = 0; s < o.steps; ++s) {
    tokens.push_back(Argmax(decode.data() + static_cast<int64_t>(s) * V, V));
    if (s + 1 == o.steps) break;
    lm::ForwardInput in;
    in.ids = std::span<const int64_t>(&tokens.back(), 1);
    engine.lm().Forward(in, prefill.state, step, engine.pool());
    decode.insert(decode.end(), step.last(), step.last() + V);
  }
  const int64_t H = engine.config().text.hidden_size;
  WriteSafetensorsFile((out / "golden.safetensors").string(),
                       {F32Tensor("vision.image_embeds", {static_cast<int64_t>(images.features.size()) / H, H},
                                  images.features.data()),
                        I64Tensor("prompt.input_ids", prefill.ids),
                        F32Tensor("prefill.logits", {L, V}, prefill.out.logits.data()),
                        I64Tensor("decode.tokens", tokens),
                        F32Tensor("decode.logits", {static_cast<int64_t>(tokens.size()), V}, decode.data())});
}

}  // namespace glance::checks
