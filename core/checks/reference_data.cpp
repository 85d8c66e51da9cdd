#include "core/checks/reference_data.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/checks/check_gates.h"
#include "core/checks/reference_check.h"
#include "core/engine/engine.h"
#include "core/engine/prompt_stream.h"
#include "core/util/error.h"
#include "core/util/json_field.h"
#include "core/vision/image_preprocessor.h"
#include "core/vision/vision_tower.h"

namespace glance::checks {

namespace fs = std::filesystem;

ReferenceData::ReferenceData(const std::string& dir) : dir_(dir) {
  const fs::path d(dir);
  for (const char* f : {"golden.json", "golden.safetensors"})
    if (!fs::exists(d / f))
      throw Error(dir + " is not a reference folder: " + f + " is missing (see tests/data/tiny-a/README.md)");
  meta_ = ReadJsonFile((d / "golden.json").string(), "cannot read " + (d / "golden.json").string());
  store_ = TensorStore::OpenFiles({(d / "golden.safetensors").string()});
}

std::vector<float> ReferenceData::F32(const std::string& name) const { return View(name).ToF32(); }

std::vector<int64_t> ReferenceData::I64(const std::string& name) const {
  const TensorView& v = View(name);
  if (v.dtype != DType::I64) throw Error("reference tensor '" + name + "' is not int64");
  std::vector<int64_t> out(static_cast<size_t>(v.numel()));
  std::memcpy(out.data(), v.data, out.size() * sizeof(int64_t));
  return out;
}

std::shared_ptr<const Engine> LoadCheckEngine(const std::string& dir, const CheckOptions& options) {
  EngineOptions eo;
  eo.threads = options.threads;
  eo.backend = options.backend;
  eo.npu_bundle = options.npu_bundle;
  eo.precision = options.precision;
  return Engine::Load(dir, eo);
}

std::vector<std::string> ReferenceImageFiles(const ReferenceData& ref) {
  std::vector<std::string> files;
  const auto& meta = ref.meta();
  if (meta.contains("images"))
    for (const auto& im : meta["images"]) files.push_back((fs::path(ref.dir()) / im.at("file").get<std::string>()).string());
  else if (meta.contains("image"))
    files.push_back((fs::path(ref.dir()) / meta["image"].at("file").get<std::string>()).string());
  return files;
}

std::vector<const float*> ReferenceImages::FeaturePointers(int64_t hidden) const {
  // Image k's rows start after the rows of the images before it.
  std::vector<const float*> pointers;
  int64_t row = 0;
  for (const lm::ImageGrid& g : grids) {
    pointers.push_back(features.data() + row * hidden);
    row += g.h * g.w;
  }
  return pointers;
}

ReferenceImages RunReferenceImages(const ReferenceData& ref, const Engine& engine) {
  ReferenceImages out;
  for (const auto& f : ReferenceImageFiles(ref)) {
    const auto pre = engine.preprocessor().Preprocess(f, vision::ImageMode::kDetail);
    out.resized = out.resized || pre.resized_h != pre.source_h || pre.resized_w != pre.source_w;
    out.pixels.insert(out.pixels.end(), pre.pixel_values.begin(), pre.pixel_values.end());
    out.grids.push_back({pre.merged_h(), pre.merged_w()});
    const auto feats = engine.vision().Forward(pre, engine.pool());
    out.features.insert(out.features.end(), feats.begin(), feats.end());
  }
  return out;
}

std::vector<lm::EmbeddingOverride> ImageRowOverrides(const std::vector<int64_t>& ids, int64_t image_token_id,
                                                     const std::vector<float>& features, int64_t hidden) {
  std::vector<lm::EmbeddingOverride> overrides;
  int64_t row = 0;
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == image_token_id && (row + 1) * hidden <= static_cast<int64_t>(features.size()))
      overrides.push_back({static_cast<int64_t>(i), features.data() + (row++) * hidden});
  return overrides;
}

ReferencePrefill PrefillReferencePrompt(const ReferenceData& ref, const Engine& engine,
                                        const ReferenceImages& images, lm::AttentionObserver* observer) {
  const nlohmann::json& prompt = ref.meta().at("prompt");
  std::optional<bool> thinking;
  if (prompt.contains("enable_thinking") && prompt["enable_thinking"].is_boolean())
    thinking = prompt["enable_thinking"].get<bool>();
  const PromptStream stream = BuildPromptStream(engine, MessagesFromJson(prompt.at("messages")), thinking, images.grids);
  ReferencePrefill r;
  r.ids = stream.ids;
  r.ids_match = stream.ids == ref.I64("prompt.input_ids");
  r.positions = stream.positions;
  const std::vector<const float*> features = images.FeaturePointers(engine.config().text.hidden_size);
  r.state = engine.lm().NewState();
  PrefillRows(engine, stream, 0, stream.size(), features, r.state, r.out, observer, /*all_logits=*/true);
  return r;
}

std::string FormatFigure(const char* format, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(buf, sizeof buf, format, ap);
  va_end(ap);
  return buf;
}

double MaxAbsDiff(const float* a, const float* b, size_t n) {
  double m = 0.0;
  for (size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
  return m;
}

double Cosine(const float* a, const float* b, size_t n) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < n; ++i) {
    ab += static_cast<double>(a[i]) * static_cast<double>(b[i]);
    aa += static_cast<double>(a[i]) * static_cast<double>(a[i]);
    bb += static_cast<double>(b[i]) * static_cast<double>(b[i]);
  }
  return aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : (aa == bb ? 1.0 : 0.0);
}

}  // namespace glance::checks
