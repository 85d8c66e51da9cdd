#include "core/vision/vision_tower.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/util/error.h"
#include "core/vision/vision_position.h"
#include "kernels/backend.h"
#include "kernels/cpu/activations_simd.h"
#include "kernels/cpu/quant_formats.h"
#include "kernels/cpu/thread_pool.h"

namespace glance::vision {
namespace {

kernels::WeightRef MatrixRef(const TensorView& t, int64_t rows, int64_t cols) {
  kernels::WeightRef r;
  switch (t.dtype) {
    case DType::F32: r.type = kernels::WeightType::F32; break;
    case DType::BF16: r.type = kernels::WeightType::BF16; break;
    case DType::F16: r.type = kernels::WeightType::F16; break;
    default:
      throw Error("tensor " + t.name + " in " + t.file + " is " + DTypeName(t.dtype) +
                  "; the vision tower reads BF16, F16 or F32 weights");
  }
  r.data = t.data;
  r.rows = rows;
  r.cols = cols;
  return r;
}

std::vector<float> VectorF32(const TensorStore& s, const std::string& name, int64_t n) {
  return s.Get(name, {n}).ToF32();
}

void CheckConfig(const VisionConfig& c) {
  auto bad = [](const std::string& what) { throw Error("vision_config: " + what); };
  if (c.depth < 1 || c.hidden_size < 1 || c.intermediate_size < 1 || c.out_hidden_size < 1) {
    bad("depth, hidden_size, intermediate_size and out_hidden_size must be positive");
  }
  if (c.num_heads < 1 || c.hidden_size % c.num_heads != 0) bad("hidden_size must be a multiple of num_heads");
  if (c.head_dim() % 4 != 0) bad("head_dim (hidden_size / num_heads) must be a multiple of 4 for the 2-D rotary");
  if (c.in_channels != 3) bad("in_channels must be 3 (RGB)");
  if (c.spatial_merge_size < 1 || c.patch_size < 1 || c.temporal_patch_size < 1) bad("patch sizes must be positive");
  const auto side = static_cast<int64_t>(std::llround(std::sqrt(static_cast<double>(c.num_position_embeddings))));
  if (side < 1 || side * side != c.num_position_embeddings) bad("num_position_embeddings must be a square number");
}

}  // namespace

std::unique_ptr<VisionTower> VisionTower::Load(const TensorStore& store, const VisionConfig& config,
                                               const PrecisionPlan& plan, kernels::ThreadPool* pool) {
  CheckConfig(config);
  std::unique_ptr<VisionTower> t(new VisionTower());
  t->config_ = config;
  const std::string p = store.Find("model.visual.patch_embed.proj.weight") ? "model.visual." : "visual.";
  const int64_t H = config.hidden_size, I = config.intermediate_size, O = config.out_hidden_size;
  const int64_t C = config.in_channels, T = config.temporal_patch_size, P = config.patch_size;
  const int64_t M = H * config.spatial_merge_size * config.spatial_merge_size;

  // `target`: the format this projection runs in (nullopt: as stored). The checkpoint's own
  // quantization ignore list is not consulted: converting the tower is the engine's choice,
  // gated by the embedding-cosine test, not a quantizer's.
  auto linear = [&](const std::string& name, int64_t out, int64_t in,
                    std::optional<kernels::WeightType> target = std::nullopt) {
    Linear l;
    l.w = PrepareWeight(MatrixRef(store.Get(name + ".weight", {out, in}), out, in), target, pool, plan.cache, name);
    l.b = VectorF32(store, name + ".bias", out);
    return l;
  };
  auto norm = [&](const std::string& name) {
    Norm n;
    n.w = VectorF32(store, name + ".weight", H);
    n.b = VectorF32(store, name + ".bias", H);
    return n;
  };

  // Which projections plan.vision converts: qkv and mlp fc1 of every block — 7/12 of a block's
  // multiply-adds, and the inputs are a LayerNorm's output, well spread within each block of 32,
  // so the integer GEMM's int8 activations (error <= 1/254 of the block's max) cost little. The
  // others stay as stored: proj and fc2 take the attention output and a GELU's, heavy-tailed;
  // with them in Q8 too the embeddings fell below the gate (cosine against float32, every
  // projection Q8 / qkv + fc1 only: tiny-a 0.99989 / 0.99998, the demo model 0.99988 / 0.99997).
  // The merger (2% of the work) and the patch embedding (raw pixels) stay as stored as well:
  // the merger's fc1 in Q8 moved tiny-a's q8 max KL (core/checks/gate_table.cpp) from 0.069 to
  // 0.105 for no measurable time.
  // Conv3d(kernel = stride) == Linear over the flattened (c, t, y, x) patch: qwen35.md §3.2.
  const TensorView& pe = store.Get(p + "patch_embed.proj.weight", {H, C, T, P, P});
  t->patch_embed_.w = MatrixRef(pe, H, C * T * P * P);
  t->patch_embed_.b = VectorF32(store, p + "patch_embed.proj.bias", H);
  t->pos_side_ = static_cast<int>(std::llround(std::sqrt(static_cast<double>(config.num_position_embeddings))));
  t->pos_table_ = MatrixRef(store.Get(p + "pos_embed.weight", {config.num_position_embeddings, H}),
                            config.num_position_embeddings, H);
  for (int j = 0; j < config.depth; ++j) {
    const std::string b = p + "blocks." + std::to_string(j) + ".";
    Block blk;
    blk.norm1 = norm(b + "norm1");
    blk.norm2 = norm(b + "norm2");
    blk.qkv = linear(b + "attn.qkv", 3 * H, H, plan.vision);
    blk.proj = linear(b + "attn.proj", H, H);
    blk.fc1 = linear(b + "mlp.linear_fc1", I, H, plan.vision);
    blk.fc2 = linear(b + "mlp.linear_fc2", H, I);
    t->blocks_.push_back(std::move(blk));
  }
  if (store.Find(p + "blocks." + std::to_string(config.depth) + ".norm1.weight")) {
    throw Error("checkpoint has more vision blocks than vision_config.depth = " + std::to_string(config.depth));
  }
  t->merger_norm_ = norm(p + "merger.norm");
  t->merger_fc1_ = linear(p + "merger.linear_fc1", M, M);
  t->merger_fc2_ = linear(p + "merger.linear_fc2", O, M);
  return t;
}

uint64_t VisionTower::WeightBytes() const {
  auto bytes = [](const kernels::WeightRef& w) { return kernels::WeightBytes(w.type, w.rows, w.cols); };
  auto vec = [](const std::vector<float>& v) { return uint64_t(v.size() * sizeof(float)); };
  auto linear = [&](const Linear& l) { return bytes(l.w) + vec(l.b); };
  auto norm = [&](const Norm& n) { return vec(n.w) + vec(n.b); };
  uint64_t b = linear(patch_embed_) + bytes(pos_table_) + norm(merger_norm_) + linear(merger_fc1_) +
               linear(merger_fc2_);
  for (const Block& blk : blocks_)
    b += norm(blk.norm1) + norm(blk.norm2) + linear(blk.qkv) + linear(blk.proj) + linear(blk.fc1) + linear(blk.fc2);
  return b;
}

// Per-Forward buffers, allocated once and reused by every block.
namespace {

// Leaves floats uninitialised on resize. The block scratch of a detail-mode image is hundreds of
// MB, every element is written before it is read, and zero-filling it in one go (first block)
// took 1.8 s on a loaded machine with no Stop check possible (issue 10: Stop within 0.5 s).
// Uninitialised, its pages are touched by the projections themselves, in row blocks that check
// Stop between them.
template <typename T>
struct NoInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = NoInitAllocator<U>;
  };
  NoInitAllocator() = default;
  template <typename U>
  NoInitAllocator(const NoInitAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-, not value-initialised
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using ScratchBuffer = std::vector<float, NoInitAllocator<float>>;

}  // namespace

struct VisionTower::Scratch {
  ScratchBuffer x, qkv, attn, y, mid;  // [n][H], [n][3H], [n][H], [n][H], [n][I]
  ScratchBuffer q, k, vt;              // per head: [nh][n][dh] ×2, [nh][frames][dh][frame_len]
};

namespace {

// Runs fn(task) for task in [0, tasks) on the pool's threads, each thread taking the next task
// as it finishes one (a busy core does not hold back a share of fixed size).
template <class F>
void ForEachTask(kernels::ThreadPool* pool, size_t tasks, const F& fn) {
  if (!pool || pool->threads() < 2 || tasks < 2) {
    for (size_t t = 0; t < tasks; ++t) fn(t);
    return;
  }
  std::atomic<size_t> next{0};
  pool->ParallelFor(size_t(pool->threads()), [&](size_t, size_t) {
    for (size_t t = next.fetch_add(1); t < tasks; t = next.fetch_add(1)) fn(t);
  });
}

// y = x·Wᵀ + b in blocks of rows with Stop checked between them when `cancel` is given: one
// projection of a detail-mode image (thousands of rows × 4096) takes about a second on a 2B
// tower, longer than Stop may take (issue 10: 0.5 s). Rows are independent, so the result is
// the same as one call. False when stopped (y then partly written).
bool ProjectRows(const kernels::Compute& compute, const float* x, int64_t n, const kernels::WeightRef& w,
                 const float* bias, float* y, const std::atomic<bool>* cancel) {
  if (cancel == nullptr) {
    compute.Project(x, n, w, bias, y);
    return true;
  }
  constexpr int64_t kRows = 256;
  for (int64_t r = 0; r < n; r += kRows) {
    if (cancel->load(std::memory_order_relaxed)) return false;
    compute.Project(x + r * w.cols, std::min(kRows, n - r), w, bias, y + r * w.rows);
  }
  return !cancel->load(std::memory_order_relaxed);
}

}  // namespace

void VisionTower::Attention(const float* qkv, int n, int frame_len, const float* cos, const float* sin,
                            float* out, Scratch* s, kernels::ThreadPool* pool,
                            const std::atomic<bool>* cancel) const {
  const int H = static_cast<int>(config_.hidden_size), nh = config_.num_heads, dh = config_.head_dim();
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  const int frames = n / frame_len;
  const size_t head_size = size_t(n) * size_t(dh);
  // Per head, contiguous: rotated q and k [n][dh], and v transposed per frame [dh][frame_len],
  // so that scores = q·kᵀ and out = p·v are packed GEMMs with k and vᵀ as the "weights".
  s->q.resize(size_t(nh) * head_size);
  s->k.resize(size_t(nh) * head_size);
  s->vt.resize(size_t(nh) * head_size);
  float *q = s->q.data(), *k = s->k.data(), *vt = s->vt.data();
  kernels::ParallelFor(pool, size_t(n), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const float* row = qkv + i * size_t(3 * H);
      const size_t f = i / size_t(frame_len), j = i % size_t(frame_len);
      for (int h = 0; h < nh; ++h) {
        float* qh = q + size_t(h) * head_size + i * size_t(dh);
        float* kh = k + size_t(h) * head_size + i * size_t(dh);
        std::copy_n(row + h * dh, dh, qh);
        std::copy_n(row + H + h * dh, dh, kh);
        if (cos != nullptr) {
          ApplyRotaryHead(qh, cos + i * size_t(dh), sin + i * size_t(dh), dh);
          ApplyRotaryHead(kh, cos + i * size_t(dh), sin + i * size_t(dh), dh);
        }
        const float* v = row + 2 * H + h * dh;
        float* vth = vt + size_t(h) * head_size + f * size_t(dh) * size_t(frame_len) + j;
        for (int d = 0; d < dh; ++d) vth[size_t(d) * size_t(frame_len)] = v[d];
      }
    }
  }, 16);

  // One task = (head, frame, block of query rows); keys are the rows of the same frame
  // (cu_seqlens in HF). A block's scores [rows][frame_len] stay in L2 between the two GEMMs.
  constexpr int kMaxBlock = 96;
  const int qblocks = (frame_len + kMaxBlock - 1) / kMaxBlock;
  const int block = std::min(frame_len, ((frame_len + qblocks - 1) / qblocks + 5) / 6 * 6);
  const int blocks_per_frame = (frame_len + block - 1) / block;
  const size_t tasks = size_t(nh) * size_t(frames) * size_t(blocks_per_frame);
  ForEachTask(pool, tasks, [&](size_t task) {
    // Stop: the remaining tasks return at once (a detail-mode image has thousands of them).
    if (cancel && cancel->load(std::memory_order_relaxed)) return;
    // Per thread and kept between calls: a fresh 0.5 MB buffer per task would be a fresh mmap.
    thread_local std::vector<float> sc, ob;
    sc.resize(size_t(block) * size_t(frame_len));
    ob.resize(size_t(block) * size_t(dh));
    const int h = static_cast<int>(task / size_t(frames * blocks_per_frame));
    const int rem = static_cast<int>(task % size_t(frames * blocks_per_frame));
    const int f = rem / blocks_per_frame, b = rem % blocks_per_frame;
    const int f0 = f * frame_len, i0 = f0 + b * block, rows = std::min(block, frame_len - b * block);
    kernels::WeightRef kw;
    kw.type = kernels::WeightType::F32;
    kw.data = k + size_t(h) * head_size + size_t(f0) * size_t(dh);
    kw.rows = frame_len;
    kw.cols = dh;
    kernels::Matmul(q + size_t(h) * head_size + size_t(i0) * size_t(dh), rows, kw, nullptr, sc.data(), nullptr);
    for (int r = 0; r < rows; ++r) kernels::SoftmaxScaledInPlace(sc.data() + size_t(r) * size_t(frame_len), frame_len, scale);
    kernels::WeightRef vw;
    vw.type = kernels::WeightType::F32;
    vw.data = vt + size_t(h) * head_size + size_t(f0) * size_t(dh);
    vw.rows = dh;
    vw.cols = frame_len;
    kernels::Matmul(sc.data(), rows, vw, nullptr, ob.data(), nullptr);
    for (int r = 0; r < rows; ++r)
      std::copy_n(ob.data() + size_t(r) * size_t(dh), dh, out + size_t(i0 + r) * size_t(H) + size_t(h * dh));
  });
}

bool VisionTower::RunBlock(const Block& blk, int n, int frame_len, const float* cos, const float* sin,
                           std::vector<float>* h, Scratch* s, kernels::ThreadPool* pool,
                           const std::atomic<bool>* cancel) const {
  auto stopped = [cancel] { return cancel && cancel->load(); };
  const int64_t H = config_.hidden_size, I = config_.intermediate_size;
  const float eps = static_cast<float>(config_.layer_norm_eps);
  s->x.resize(size_t(n) * size_t(H));
  s->qkv.resize(size_t(n) * size_t(3 * H));
  s->attn.resize(size_t(n) * size_t(H));
  s->y.resize(size_t(n) * size_t(H));
  s->mid.resize(size_t(n) * size_t(I));
  float* hd = h->data();
  auto norm_rows = [&](const Norm& nm) {
    kernels::ParallelFor(pool, size_t(n), [&](size_t begin, size_t end) {
      kernels::LayerNormRows(hd + begin * size_t(H), int64_t(end - begin), H, nm.w.data(), nm.b.data(), eps,
                             s->x.data() + begin * size_t(H));
    }, 16);
  };
  auto add_y = [&]() {
    kernels::ParallelFor(pool, size_t(n), [&](size_t begin, size_t end) {
      float* dst = hd + begin * size_t(H);
      const float* src = s->y.data() + begin * size_t(H);
      const size_t len = (end - begin) * size_t(H);
      for (size_t k = 0; k < len; ++k) dst[k] += src[k];
    }, 16);
  };
  const kernels::Compute compute{backend_, pool};
  // h = h + proj(attn(norm1(h)))
  norm_rows(blk.norm1);
  if (!ProjectRows(compute, s->x.data(), n, blk.qkv.w, blk.qkv.b.data(), s->qkv.data(), cancel)) return false;
  Attention(s->qkv.data(), n, frame_len, cos, sin, s->attn.data(), s, pool, cancel);
  if (stopped()) return false;
  if (!ProjectRows(compute, s->attn.data(), n, blk.proj.w, blk.proj.b.data(), s->y.data(), cancel)) return false;
  add_y();
  if (stopped()) return false;
  // h = h + fc2(gelu_tanh(fc1(norm2(h))))
  norm_rows(blk.norm2);
  if (!ProjectRows(compute, s->x.data(), n, blk.fc1.w, blk.fc1.b.data(), s->mid.data(), cancel)) return false;
  kernels::ParallelFor(pool, size_t(n), [&](size_t begin, size_t end) {
    kernels::GeluTanhInPlace(s->mid.data() + begin * size_t(I), int64_t(end - begin) * I);
  }, 16);
  if (!ProjectRows(compute, s->mid.data(), n, blk.fc2.w, blk.fc2.b.data(), s->y.data(), cancel)) return false;
  add_y();
  return true;
}

std::vector<float> VisionTower::Forward(const PreprocessedImage& img, kernels::ThreadPool* pool,
                                        VisionTrace* trace, const VisionAblation& ablation,
                                        const std::function<bool(int done, int depth)>& on_block,
                                        const std::atomic<bool>* cancel) const {
  const int m = config_.spatial_merge_size;
  const int64_t H = config_.hidden_size;
  if (img.patch_dim != config_.patch_dim() || img.merge_size != m) {
    throw Error("image was preprocessed for patch rows of " + std::to_string(img.patch_dim) + " and merge " +
                std::to_string(img.merge_size) + ", but this vision tower takes " +
                std::to_string(config_.patch_dim()) + " and " + std::to_string(m) +
                "; preprocessor_config.json and config.json disagree");
  }
  if (img.grid_t < 1 || img.grid_h < m || img.grid_w < m || img.grid_h % m || img.grid_w % m ||
      img.pixel_values.size() != size_t(img.n_patches()) * size_t(img.patch_dim)) {
    throw Error("preprocessed image is inconsistent (grid " + std::to_string(img.grid_t) + "x" +
                std::to_string(img.grid_h) + "x" + std::to_string(img.grid_w) + ", " +
                std::to_string(img.pixel_values.size()) + " values)");
  }
  const int frame_len = img.grid_h * img.grid_w, n = img.n_patches();

  // Patch embedding + learned position table (the same for every frame).
  std::vector<float> h(size_t(n) * size_t(H));
  if (!ProjectRows(kernels::Compute{backend_, pool}, img.pixel_values.data(), n, patch_embed_.w,
                   patch_embed_.b.data(), h.data(), cancel))
    return {};
  if (trace) trace->patch_embed = h;
  const std::vector<float> pos = InterpolatePosEmbed(pos_table_, pos_side_, img.grid_h, img.grid_w, m);
  if (!ablation.skip_pos_embed) {
    for (int f = 0; f < img.grid_t; ++f) {
      float* hf = h.data() + size_t(f) * size_t(frame_len) * size_t(H);
      for (size_t k = 0; k < pos.size(); ++k) hf[k] += pos[k];
    }
  }
  // 2-D rotary over (row, col), frame after frame.
  const std::vector<int32_t> frame_pos = MergeOrderPositions(img.grid_h, img.grid_w, m);
  std::vector<int32_t> all_pos;
  for (int f = 0; f < img.grid_t; ++f) all_pos.insert(all_pos.end(), frame_pos.begin(), frame_pos.end());
  const VisionRotary rot = BuildVisionRotary(all_pos, config_.head_dim(), config_.rope_theta);
  if (trace) {
    trace->pos_embed = pos;
    trace->rope_positions = frame_pos;
    trace->block_input = h;
    trace->block_outputs.clear();
  }
  const float* cos = ablation.skip_rotary ? nullptr : rot.cos.data();
  const float* sin = ablation.skip_rotary ? nullptr : rot.sin.data();
  Scratch scratch;
  const int depth = static_cast<int>(blocks_.size());
  for (int b = 0; b < depth; ++b) {
    if (on_block && !on_block(b, depth)) return {};
    if (!RunBlock(blocks_[static_cast<size_t>(b)], n, frame_len, cos, sin, &h, &scratch, pool, cancel)) return {};
    if (trace) trace->block_outputs.push_back(h);
  }
  if (on_block && !on_block(depth, depth)) return {};

  // Merger: LayerNorm each row, concatenate m² consecutive rows, fc1, exact GELU, fc2 (§3.7).
  const float eps = static_cast<float>(config_.layer_norm_eps);
  std::vector<float> x(size_t(n) * size_t(H));
  kernels::ParallelFor(pool, size_t(n), [&](size_t begin, size_t end) {
    kernels::LayerNormRows(h.data() + begin * size_t(H), int64_t(end - begin), H, merger_norm_.w.data(),
                           merger_norm_.b.data(), eps, x.data() + begin * size_t(H));
  }, 16);
  const int tokens = n / (m * m);
  std::vector<float> mid(size_t(tokens) * size_t(merger_fc1_.w.rows));
  const kernels::Compute compute{backend_, pool};
  if (!ProjectRows(compute, x.data(), tokens, merger_fc1_.w, merger_fc1_.b.data(), mid.data(), cancel)) return {};
  const int64_t mw = merger_fc1_.w.rows;
  kernels::ParallelFor(pool, size_t(tokens), [&](size_t begin, size_t end) {
    kernels::GeluErfInPlace(mid.data() + begin * size_t(mw), int64_t(end - begin) * mw);
  }, 4);
  std::vector<float> out(size_t(tokens) * size_t(config_.out_hidden_size));
  if (!ProjectRows(compute, mid.data(), tokens, merger_fc2_.w, merger_fc2_.b.data(), out.data(), cancel)) return {};
  return out;
}

}  // namespace glance::vision
