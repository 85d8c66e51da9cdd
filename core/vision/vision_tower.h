#pragma once
// The Qwen3.5 vision tower (qwen35.md §3): patch embedding (Conv3d as a matmul over each
// C·T·P·P row) + bilinearly resampled learned position table -> `depth` pre-LN blocks with 2-D
// rotary, full bidirectional attention within each frame -> 2×2 patch merger. Output: one row
// of out_hidden_size (= the text hidden size) per image token, in raster order of the merged grid.
//
// Activations are f32. The large matrices are used in place from the mmapped checkpoint through
// kernels::WeightRef (BF16/F16/F32), or — when the precision plan asks (PrecisionPlan::vision:
// Q8 for the q8 and q4 engines) — the block projections and the merger are prepared at load in
// that format, so that Matmul runs them through the integer GEMM; only biases and norm weights
// are widened to f32.
//
// Thread contract: immutable after Load; Forward is const and may run concurrently from several
// threads (each with its own pool, or none). The TensorStore must outlive the tower.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/prepared_weights.h"
#include "core/model/safetensors.h"
#include "core/vision/image_preprocessor.h"
#include "kernels/cpu/matmul.h"

namespace glance::kernels {
class ThreadPool;
class Backend;
}

namespace glance::vision {

// Intermediates of one Forward, for tests and inspection. Filled only when passed.
struct VisionTrace {
  std::vector<float> patch_embed;                 // [n_patches][hidden]
  std::vector<float> pos_embed;                   // [n_patches][hidden] (resampled table)
  std::vector<int32_t> rope_positions;            // [n_patches][2] (row, col)
  std::vector<float> block_input;                 // [n_patches][hidden] = patch_embed + pos_embed
  std::vector<std::vector<float>> block_outputs;  // [depth][n_patches][hidden]
};

// Switches parts of the model off — only for negative controls and for showing what each part
// contributes. Default: the real model.
struct VisionAblation {
  bool skip_pos_embed = false;
  bool skip_rotary = false;
};

class VisionTower {
 public:
  // Reads `model.visual.*` (or `visual.*`) tensors; throws glance::Error naming a missing or
  // mis-shaped tensor, or an unsupported dtype. Config must describe the same checkpoint.
  // plan.vision (with plan.cache) converts the projections as the language model's are
  // (PrepareWeight); the default plan keeps every matrix as stored. pool: for the conversion.
  static std::unique_ptr<VisionTower> Load(const TensorStore& store, const VisionConfig& config,
                                           const PrecisionPlan& plan = {}, kernels::ThreadPool* pool = nullptr);

  // Returns [image.tokens()][out_hidden_size] f32. pool may be null (single thread).
  // Throws glance::Error if the image does not fit this tower (patch size, merge size, sizes).
  // `on_block(done, depth)` runs before each block and after the last; when it returns false,
  // or `cancel` is set (checked inside every block too: between blocks of 256 rows of each
  // projection and between the attention's tasks, since one block of a detail-mode image takes
  // seconds on a 2B tower), Forward stops and returns an empty vector (cancelled).
  std::vector<float> Forward(const PreprocessedImage& image, kernels::ThreadPool* pool,
                             VisionTrace* trace = nullptr, const VisionAblation& ablation = {},
                             const std::function<bool(int done, int depth)>& on_block = {},
                             const std::atomic<bool>* cancel = nullptr) const;

  const VisionConfig& config() const { return config_; }
  // Where projections run (null = CPU). Set once by the Engine at load, before sharing.
  void set_backend(const kernels::Backend* backend) { backend_ = backend; }
  int64_t out_hidden_size() const { return config_.out_hidden_size; }
  // Bytes of the matrices Forward reads, in the formats it runs them in (biases, norms included).
  uint64_t WeightBytes() const;

 private:
  struct Linear {
    kernels::WeightRef w;    // [out][in], in the checkpoint's dtype
    std::vector<float> b;    // [out] f32
  };
  struct Norm {
    std::vector<float> w, b;  // [dim] f32
  };
  struct Block {
    Norm norm1, norm2;
    Linear qkv;   // [3·hidden][hidden]; output [q heads | k heads | v heads]
    Linear proj;  // [hidden][hidden]
    Linear fc1;   // [intermediate][hidden]
    Linear fc2;   // [hidden][intermediate]
  };

  struct Scratch;  // per-Forward buffers (vision_tower.cpp)

  VisionTower() = default;
  // False when `cancel` was set between its stages (h is then half-updated).
  bool RunBlock(const Block& blk, int n, int frame_len, const float* cos, const float* sin,
                std::vector<float>* h, Scratch* s, kernels::ThreadPool* pool,
                const std::atomic<bool>* cancel = nullptr) const;
  void Attention(const float* qkv, int n, int frame_len, const float* cos, const float* sin,
                 float* out, Scratch* s, kernels::ThreadPool* pool,
                 const std::atomic<bool>* cancel = nullptr) const;  // stopped: out is partial

  VisionConfig config_;
  int pos_side_ = 0;                 // learned table is pos_side_ × pos_side_
  Linear patch_embed_;               // [hidden][C·T·P·P] (Conv3d weight viewed flat)
  kernels::WeightRef pos_table_;     // [pos_side²][hidden]
  std::vector<Block> blocks_;        // [depth]
  Norm merger_norm_;                 // [hidden]
  Linear merger_fc1_;                // [4·hidden][4·hidden]
  Linear merger_fc2_;                // [out_hidden][4·hidden]
  const kernels::Backend* backend_ = nullptr;
};

}  // namespace glance::vision
