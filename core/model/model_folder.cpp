#include "core/model/model_folder.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "core/model/config_check.h"
#include "core/model/safetensors.h"
#include "core/model/tensor_manifest.h"
#include "core/util/error.h"
#include "core/util/read_file.h"

namespace glance {

namespace fs = std::filesystem;

namespace {

std::string ShapeString(const std::vector<int64_t>& shape) {
  TensorView v;
  v.shape = shape;
  return v.ShapeString();
}

// HF keeps the template in chat_template.jinja (new), chat_template.json (processor), or the
// "chat_template" key of tokenizer_config.json (old).
std::string FindChatTemplate(const fs::path& d) {
  if (fs::exists(d / "chat_template.jinja")) return "chat_template.jinja";
  if (fs::exists(d / "chat_template.json")) return "chat_template.json";
  const fs::path tc = d / "tokenizer_config.json";
  if (fs::exists(tc)) {
    try {
      const auto j = nlohmann::json::parse(ReadWholeFile(tc.string(), "cannot open " + tc.string()));
      if (j.is_object() && j.contains("chat_template") && !j["chat_template"].is_null()) return "tokenizer_config.json";
    } catch (const std::exception&) {
      // A broken (or unreadable: a FIFO) tokenizer_config.json is the tokenizer loader's to
      // report; here it holds no template.
    }
  }
  return {};
}

}  // namespace

std::string LayerPatternString(const std::vector<LayerType>& types) {
  auto letter = [](LayerType t) { return t == LayerType::kFullAttention ? "F" : "L"; };
  const size_t n = types.size();
  for (size_t p = 1; p < n; ++p) {
    if (n % p != 0) continue;
    bool periodic = true;
    for (size_t i = p; i < n && periodic; ++i) periodic = types[i] == types[i - p];
    if (!periodic) continue;
    std::string s = "(";
    for (size_t i = 0; i < p; ++i) s += std::string(i ? "," : "") + letter(types[i]);
    return s + ")x" + std::to_string(n / p);
  }
  std::string s;
  for (size_t i = 0; i < n; ++i) s += std::string(i ? "," : "") + letter(types[i]);
  return s;
}

ModelFolderReport InspectModelFolder(const std::string& dir) {
  const fs::path d(dir);
  if (!fs::exists(d)) throw Error(dir + " does not exist");
  if (!fs::is_directory(d)) throw Error(dir + " is not a folder; pass the model folder (the one holding config.json)");
  if (!fs::exists(d / "config.json"))
    throw Error(dir + " is not a model folder: config.json is missing (expected a Hugging Face Qwen3.5 checkpoint "
                      "with config.json and model.safetensors)");
  ModelFolderReport r;
  r.dir = dir;
  r.config = ModelConfig::FromFile((d / "config.json").string());
  const TensorStore store = TensorStore::OpenFolder(dir);
  CheckConfigCountsAgainstWeights(r.config, store, (d / "config.json").string());

  for (const auto& f : store.files())
    r.weight_files.push_back({fs::path(f->path()).filename().string(), static_cast<uint64_t>(f->file_size())});
  for (const auto& [name, view] : store.all()) {
    ++r.tensor_count;
    r.parameters += view->numel();
    r.bytes_by_dtype[DTypeName(view->dtype)] += view->nbytes;
  }
  // The main model's tensors, and the MTP layer's (speculative decoding's drafter,
  // core/lm/mtp.h) when the file has one.
  std::vector<TensorSpec> specs = Qwen35TensorManifest(r.config);
  r.has_mtp = store.Find("mtp.fc.weight") != nullptr;
  if (r.has_mtp)
    for (TensorSpec& spec : Qwen35MtpTensorManifest(r.config)) specs.push_back(std::move(spec));
  std::set<std::string> expected;
  for (const TensorSpec& spec : specs) {
    expected.insert(spec.name);
    const TensorView* v = store.Find(spec.name);
    if (!v) {
      r.missing_tensors.push_back(spec.name);
    } else if (v->shape != spec.shape) {
      r.shape_mismatches.push_back(spec.name + ": file " + v->ShapeString() + ", config " + ShapeString(spec.shape));
    }
  }
  for (const auto& [name, view] : store.all()) {
    if (expected.count(name)) continue;
    if (name.rfind("mtp.", 0) == 0) ++r.ignored_tensors;  // e.g. MoE MTP experts: not run
    else r.unexpected_tensors.push_back(name);
  }
  r.has_tokenizer = fs::exists(d / "tokenizer.json");
  r.has_preprocessor = fs::exists(d / "preprocessor_config.json");
  r.chat_template_source = FindChatTemplate(d);
  return r;
}

}  // namespace glance
