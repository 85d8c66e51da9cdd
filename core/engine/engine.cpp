#include "core/engine/engine.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "core/lm/language_model.h"
#include "core/model/compressed_tensors.h"
#include "core/model/config_check.h"
#include "core/model/safetensors.h"
#include "core/model/weight_cache.h"
#include "core/npu/backend_select.h"
#include "core/text/chat_template.h"
#include "core/text/tokenizer.h"
#include "core/util/allocator_tuning.h"
#include "core/util/error.h"
#include "core/vision/image_preprocessor.h"
#include "core/vision/vision_tower.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/thread_pool.h"

namespace glance {

namespace fs = std::filesystem;

Engine::Engine() = default;
Engine::~Engine() = default;

static std::string HumanBytes(uint64_t b) {
  char buf[64];
  if (b >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.2f GB", static_cast<double>(b) / 1e9);
  else if (b >= (1ull << 20)) std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(b) / 1e6);
  else std::snprintf(buf, sizeof buf, "%.1f kB", static_cast<double>(b) / 1e3);
  return buf;
}

static std::string RequireFile(const fs::path& dir, const char* name, const char* why) {
  const fs::path p = dir / name;
  std::error_code ec;
  if (fs::exists(p, ec) && !fs::is_regular_file(p, ec))  // a FIFO, device or folder by that name
    throw Error(p.string() + " is not a regular file (" + why + ")");
  if (!fs::is_regular_file(p, ec))
    throw Error(dir.string() + " is not a complete Qwen3.5 model folder: " + name + " is missing (" + why + ")");
  return p.string();
}

namespace {

struct ResolvedPrecision {
  Precision precision;
  std::string reason;  // empty when asked explicitly
};

// Precision::kAuto -> what this checkpoint should run in (engine_options.h).
ResolvedPrecision ResolvePrecision(Precision asked, const std::string& config_path, BackendKind backend) {
  if (asked != Precision::kAuto) return {asked, ""};
  // The NPU backends find a projection's fused kernel by the checkpoint tensor it reads
  // (kernels/npu/fused_dispatch.h); a quantized CPU copy would hide the LM's projections from
  // them, and they pack their own bfp16ebs8 weights anyway.
  if (backend == BackendKind::kNpuEmu || backend == BackendKind::kNpu)
    return {Precision::kF32, "auto: f32 tensors for the NPU backend (it packs its own bfp16ebs8 weights)"};
  if (ReadCompressedTensorsConfig(config_path).present)
    return {Precision::kF32, "auto: the checkpoint's own int4 (compressed-tensors), other matrices as stored"};
  return {kAutoQuantization, "auto: " + std::string(Name(kAutoQuantization)) + " for a " +
                                 "checkpoint stored unquantized (the best measured speed/quality trade)"};
}

}  // namespace

std::shared_ptr<const Engine> Engine::Load(const std::string& model_dir, const EngineOptions& options,
                                           const LoadProgress& progress) {
  auto step = [&](double f, const std::string& what) {
    if (progress && !progress(f, what)) throw Error("loading cancelled");
  };
  const fs::path dir(model_dir);
  if (!fs::is_directory(dir)) throw Error(model_dir + " is not a folder (expected a Qwen3.5 model folder)");
  TuneAllocatorForInference();  // forward passes reuse freed buffers (allocator_tuning.h)
  std::shared_ptr<Engine> e(new Engine());
  step(0.0, "config");
  e->config_ = ModelConfig::FromFile(RequireFile(dir, "config.json", "the model's configuration"));
  const std::string tok_path = RequireFile(dir, "tokenizer.json", "the tokenizer");
  step(0.05, "weights");
  e->store_ = std::make_unique<TensorStore>(TensorStore::OpenFolder(model_dir));
  // Before anything is sized per layer from config.json (issue 12: a config claiming 2^30 layers).
  CheckConfigCountsAgainstWeights(e->config_, *e->store_, (dir / "config.json").string());
  step(0.15, "tokenizer");
  e->tokenizer_ = std::make_unique<Tokenizer>(Tokenizer::FromFile(tok_path));
  e->template_ = std::make_unique<ChatTemplate>(ChatTemplate::FromModelDir(model_dir));
  step(0.3, "image preprocessor");
  const fs::path pre = dir / "preprocessor_config.json";
  e->preprocessor_ = std::make_unique<vision::ImagePreprocessor>(
      fs::exists(pre) ? vision::PreprocessorConfig::FromFile(pre.string()) : vision::PreprocessorConfig{});
  // The pool first: it also quantizes the weights when a precision other than f32 is asked.
  e->pool_ = std::make_unique<kernels::ThreadPool>(options.threads);
  const ResolvedPrecision precision = ResolvePrecision(options.precision, (dir / "config.json").string(), options.backend);
  const std::string precision_name(Name(precision.precision));
  PrecisionPlan plan = PrecisionPlan::For(precision.precision);
  plan.keep_as_stored = ReadCompressedTensorsConfig((dir / "config.json").string()).ignore;
  // Quantized weights are cached on disk keyed by the checkpoint's identity (weight_cache.h).
  std::unique_ptr<WeightCache> cache;
  if (precision.precision != Precision::kF32 && !std::getenv("GLANCE_NO_WEIGHT_CACHE")) {
    cache = std::make_unique<WeightCache>(WeightCache::DefaultDir(), WeightCache::Key(*e->store_, precision_name));
    plan.cache = cache.get();
  }
  step(0.35, "vision tower");
  e->vision_ = vision::VisionTower::Load(*e->store_, e->config_.vision, plan, e->pool_.get());
  step(0.5, "language model");
  // After the vision tower: the language model's load saves the cache with both in it.
  e->lm_ = std::make_unique<lm::LanguageModel>(
      lm::LanguageModel::Load(*e->store_, e->config_.text, plan, e->pool_.get()));
  step(0.95, "threads");

  // Stop ids: the chat turn end and end-of-text (qwen35.md §7), plus any eos in the config.
  std::set<int32_t> stops;
  for (const char* t : {"<|im_end|>", "<|endoftext|>"}) {
    const int32_t id = e->tokenizer_->TokenId(t);
    if (id >= 0) stops.insert(id);
  }
  for (int64_t id : e->config_.text.eos_token_ids) stops.insert(static_cast<int32_t>(id));
  e->stop_ids_.assign(stops.begin(), stops.end());

  ModelInfo& info = e->info_;
  info.dir = fs::absolute(dir).lexically_normal().string();
  info.name = dir.filename().empty() ? dir.parent_path().filename().string() : dir.filename().string();
  std::error_code ec;
  info.is_demo = fs::equivalent(dir, fs::path(DefaultDemoModelDir()), ec);
  std::map<std::string, uint64_t> by_dtype;
  for (const auto& [name, view] : e->store_->all()) {
    info.parameters += view->numel();
    info.weight_bytes += view->nbytes;
    if (name.rfind("model.visual.", 0) == 0 || name.rfind("visual.", 0) == 0)
      info.vision_weight_bytes += view->nbytes;
    by_dtype[DTypeName(view->dtype)] += view->nbytes;
  }
  for (const auto& [dt, bytes] : by_dtype)
    info.dtypes += (info.dtypes.empty() ? "" : ", ") + dt + ": " + HumanBytes(bytes);
  info.tokenizer_size = static_cast<int64_t>(e->tokenizer_->size());
  info.threads = e->pool_->threads();
  info.cpu_kernels = kernels::CpuFeaturesInUse();
  if (cache) info.weight_cache_warning = cache->error();
  info.precision = precision.precision;
  info.precision_reason = precision.reason;
  info.default_sampling = SamplingFromGenerationConfig((dir / "generation_config.json").string());
  step(0.97, "backend");
  npu::BackendChoice choice =
      npu::SelectBackend(options.backend, npu::FindBundleDir(options.npu_bundle, model_dir), *e->store_);
  e->backend_ = std::move(choice.backend);
  e->lm_->set_backend(e->backend_.get());
  e->vision_->set_backend(e->backend_.get());
  info.backend = choice.name;
  info.backend_reason = choice.reason;
  step(1.0, "ready");
  return e;
}

static std::string FirstExisting(const std::vector<fs::path>& candidates) {
  for (const auto& c : candidates)
    if (fs::exists(c)) return c.string();
  return candidates.empty() ? std::string() : candidates.back().string();
}

static fs::path ExecutableDir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

std::string DefaultDemoModelDir() {
  if (const char* env = std::getenv("GLANCE_DEMO_MODEL"); env && *env) return env;
  const fs::path exe_dir = ExecutableDir();
  return FirstExisting({exe_dir / "../share/glance/demo-model",
                        fs::path(GLANCE_INSTALL_DATADIR) / "demo-model",
                        fs::path(GLANCE_SOURCE_RESOURCES) / "demo-model"});
}

std::string DefaultDemoImagePath() {
  if (const char* env = std::getenv("GLANCE_DEMO_IMAGE"); env && *env) return env;
  const fs::path exe_dir = ExecutableDir();
  return FirstExisting({exe_dir / "../share/glance/demo-image.png",
                        fs::path(GLANCE_INSTALL_DATADIR) / "demo-image.png",
                        fs::path(GLANCE_SOURCE_RESOURCES) / "demo-image.png"});
}

void Engine::CheckWeightsUnchanged() const { store_->CheckUnchanged(); }

}  // namespace glance
