#pragma once
// Engine: one loaded model folder — config, tokenizer, chat template, image preprocessor,
// vision tower, language model and a thread pool. Immutable after Load(), so many Sessions
// (and threads) may share one Engine through shared_ptr<const Engine>.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/engine_options.h"
#include "core/engine/sampler.h"
#include "core/model/config.h"

namespace glance {

class Tokenizer;
class ChatTemplate;
class TensorStore;
namespace vision {
class ImagePreprocessor;
class VisionTower;
}  // namespace vision
namespace lm {
class LanguageModel;
}
namespace kernels {
class ThreadPool;
class Backend;
}

// Called during Load with a fraction in [0,1] and what is being loaded; return false to cancel
// (Load then throws glance::Error("loading cancelled")).
using LoadProgress = std::function<bool(double fraction, const std::string& what)>;

struct ModelInfo {
  std::string dir;
  std::string name;          // folder name, or "demo" for the bundled demo model
  bool is_demo = false;      // the bundled random-weight demo
  int64_t parameters = 0;
  uint64_t weight_bytes = 0;
  uint64_t vision_weight_bytes = 0;  // the vision tower's share of weight_bytes
  std::string dtypes;        // "BF16: 1.9 MB, F32: 12 kB"
  int64_t tokenizer_size = 0;
  std::string backend = "cpu";
  std::string backend_reason;
  Precision precision = Precision::kF32;  // as resolved at load (never kAuto)
  std::string precision_reason;           // why auto chose it; empty when asked explicitly
  // What the checkpoint's generation_config.json asks for (greedy when it has none); a turn
  // uses it when GenerateOptions::sampling is unset.
  SamplingParams default_sampling;
  int threads = 1;
  std::string cpu_kernels;   // instruction sets the CPU kernels use ("Highway AVX2, x86 GEMV avx2")
  // One line when the prepared weights could not be cached on disk (no space, an I/O error:
  // WeightCache::error(), naming the file); the model loaded all the same. Empty otherwise.
  std::string weight_cache_warning;
};

class Engine {
 public:
  // Throws glance::Error naming what is wrong with the folder (missing file, bad tensor, ...).
  static std::shared_ptr<const Engine> Load(const std::string& model_dir,
                                            const EngineOptions& options = {},
                                            const LoadProgress& progress = {});
  ~Engine();

  const ModelInfo& info() const { return info_; }
  const ModelConfig& config() const { return config_; }
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  const ChatTemplate& chat_template() const { return *template_; }
  const vision::ImagePreprocessor& preprocessor() const { return *preprocessor_; }
  const vision::VisionTower& vision() const { return *vision_; }
  const lm::LanguageModel& lm() const { return *lm_; }
  kernels::ThreadPool* pool() const { return pool_.get(); }
  // The projection backend the LM and vision tower use (per-kernel times: backend().Stats()).
  const kernels::Backend& backend() const { return *backend_; }

  // Token ids that end a turn: <|im_end|> and <|endoftext|> (plus config eos ids).
  const std::vector<int32_t>& stop_ids() const { return stop_ids_; }

  // Throws glance::Error naming the weights file when it was truncated or overwritten in place
  // since Load (the weights are memory-mapped: reading a truncated page would raise SIGBUS).
  // One fstat per file; a Session calls it before every forward pass it starts.
  void CheckWeightsUnchanged() const;

 private:
  Engine();
  ModelInfo info_;
  ModelConfig config_;
  std::unique_ptr<TensorStore> store_;
  std::unique_ptr<Tokenizer> tokenizer_;
  std::unique_ptr<ChatTemplate> template_;
  std::unique_ptr<vision::ImagePreprocessor> preprocessor_;
  std::unique_ptr<vision::VisionTower> vision_;
  std::unique_ptr<lm::LanguageModel> lm_;
  std::unique_ptr<kernels::ThreadPool> pool_;
  std::unique_ptr<kernels::Backend> backend_;
  std::vector<int32_t> stop_ids_;
};

// The bundled demo model folder: $GLANCE_DEMO_MODEL, the installed copy, or the source tree's.
std::string DefaultDemoModelDir();
// The bundled demo image, found the same way.
std::string DefaultDemoImagePath();

}  // namespace glance
