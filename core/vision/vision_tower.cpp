#include "core/vision/vision_tower.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/util/error.h"
#include "core/vision/vision_position.h"
#include "kernels/backend.h"
#include "kernels/cpu/activations.h"
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

std::unique_ptr<VisionTower> VisionTower::Load(const TensorStore& store, const VisionConfig& config) {
  CheckConfig(config);
  std::unique_ptr<VisionTower> t(new VisionTower());
  t->config_ = config;
  const std::string p = store.Find("model.visual.patch_embed.proj.weight") ? "model.visual." : "visual.";
  const int64_t H = config.hidden_size, I = config.intermediate_size, O = config.out_hidden_size;
  const int64_t C = config.in_channels, T = config.temporal_patch_size, P = config.patch_size;
  const int64_t M = H * config.spatial_merge_size * config.spatial_merge_size;

  auto linear = [&](const std::string& name, int64_t out, int64_t in) {
    Linear l;
    l.w = MatrixRef(store.Get(name + ".weight", {out, in}), out, in);
    l.b = VectorF32(store, name + ".bias", out);
    return l;
  };
  auto norm = [&](const std::string& name) {
    Norm n;
    n.w = VectorF32(store, name + ".weight", H);
    n.b = VectorF32(store, name + ".bias", H);
    return n;
  };

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
    blk.qkv = linear(b + "attn.qkv", 3 * H, H);
    blk.proj = linear(b + "attn.proj", H, H);
    blk.fc1 = linear(b + "mlp.linear_fc1", I, H);
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

void VisionTower::Attention(const float* qkv, int n, int frame_len, const float* cos, const float* sin,
                            float* out, kernels::ThreadPool* pool) const {
  const int H = static_cast<int>(config_.hidden_size), nh = config_.num_heads, dh = config_.head_dim();
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  // Rotated q and k, laid out [n][hidden] like the qkv output (head-major inside a row).
  std::vector<float> q(size_t(n) * size_t(H)), k(size_t(n) * size_t(H));
  auto rotate = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const float* row = qkv + i * size_t(3 * H);
      std::copy(row, row + H, q.data() + i * size_t(H));
      std::copy(row + H, row + 2 * H, k.data() + i * size_t(H));
      if (cos == nullptr) continue;
      for (int h = 0; h < nh; ++h) {
        ApplyRotaryHead(q.data() + i * size_t(H) + size_t(h * dh), cos + i * size_t(dh), sin + i * size_t(dh), dh);
        ApplyRotaryHead(k.data() + i * size_t(H) + size_t(h * dh), cos + i * size_t(dh), sin + i * size_t(dh), dh);
      }
    }
  };
  if (pool) pool->ParallelFor(size_t(n), rotate, 16); else rotate(0, size_t(n));

  // One task = one (head, query row); keys are the rows of the same frame (cu_seqlens in HF).
  auto attend = [&](size_t begin, size_t end) {
    std::vector<float> scores(static_cast<size_t>(frame_len));
    for (size_t task = begin; task < end; ++task) {
      const int h = static_cast<int>(task / size_t(n)), i = static_cast<int>(task % size_t(n));
      const int f0 = (i / frame_len) * frame_len;
      const float* qi = q.data() + size_t(i) * size_t(H) + size_t(h * dh);
      for (int j = 0; j < frame_len; ++j) {
        const float* kj = k.data() + size_t(f0 + j) * size_t(H) + size_t(h * dh);
        float dot = 0.0f;
        for (int d = 0; d < dh; ++d) dot += qi[d] * kj[d];
        scores[size_t(j)] = dot * scale;
      }
      kernels::SoftmaxInPlace(scores.data(), frame_len);
      float* o = out + size_t(i) * size_t(H) + size_t(h * dh);
      std::fill(o, o + dh, 0.0f);
      for (int j = 0; j < frame_len; ++j) {
        const float* vj = qkv + size_t(f0 + j) * size_t(3 * H) + size_t(2 * H + h * dh);
        const float pj = scores[size_t(j)];
        for (int d = 0; d < dh; ++d) o[d] += pj * vj[d];
      }
    }
  };
  const size_t tasks = size_t(nh) * size_t(n);
  if (pool) pool->ParallelFor(tasks, attend, 8); else attend(0, tasks);
}

void VisionTower::RunBlock(const Block& blk, int n, int frame_len, const float* cos, const float* sin,
                           std::vector<float>* h, kernels::ThreadPool* pool) const {
  const int64_t H = config_.hidden_size, I = config_.intermediate_size;
  const float eps = static_cast<float>(config_.layer_norm_eps);
  std::vector<float> x(size_t(n) * size_t(H));
  auto norm_rows = [&](const Norm& nm) {
    for (int i = 0; i < n; ++i) {
      kernels::LayerNormRow(h->data() + size_t(i) * size_t(H), H, nm.w.data(), nm.b.data(), eps,
                            x.data() + size_t(i) * size_t(H));
    }
  };
  // h = h + proj(attn(norm1(h)))
  norm_rows(blk.norm1);
  std::vector<float> qkv(size_t(n) * size_t(3 * H));
  kernels::Compute{backend_, pool}.Project(x.data(), n, blk.qkv.w, blk.qkv.b.data(), qkv.data());
  std::vector<float> attn(size_t(n) * size_t(H));
  Attention(qkv.data(), n, frame_len, cos, sin, attn.data(), pool);
  std::vector<float> y(size_t(n) * size_t(H));
  kernels::Compute{backend_, pool}.Project(attn.data(), n, blk.proj.w, blk.proj.b.data(), y.data());
  for (size_t k = 0; k < y.size(); ++k) (*h)[k] += y[k];
  // h = h + fc2(gelu_tanh(fc1(norm2(h))))
  norm_rows(blk.norm2);
  std::vector<float> mid(size_t(n) * size_t(I));
  kernels::Compute{backend_, pool}.Project(x.data(), n, blk.fc1.w, blk.fc1.b.data(), mid.data());
  for (float& v : mid) v = kernels::GeluTanh(v);
  kernels::Compute{backend_, pool}.Project(mid.data(), n, blk.fc2.w, blk.fc2.b.data(), y.data());
  for (size_t k = 0; k < y.size(); ++k) (*h)[k] += y[k];
}

std::vector<float> VisionTower::Forward(const PreprocessedImage& img, kernels::ThreadPool* pool,
                                        VisionTrace* trace, const VisionAblation& ablation) const {
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
  kernels::Compute{backend_, pool}.Project(img.pixel_values.data(), n, patch_embed_.w, patch_embed_.b.data(), h.data());
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
  for (const Block& blk : blocks_) {
    RunBlock(blk, n, frame_len, cos, sin, &h, pool);
    if (trace) trace->block_outputs.push_back(h);
  }

  // Merger: LayerNorm each row, concatenate m² consecutive rows, fc1, exact GELU, fc2 (§3.7).
  const float eps = static_cast<float>(config_.layer_norm_eps);
  std::vector<float> x(size_t(n) * size_t(H));
  for (int i = 0; i < n; ++i) {
    kernels::LayerNormRow(h.data() + size_t(i) * size_t(H), H, merger_norm_.w.data(), merger_norm_.b.data(), eps,
                          x.data() + size_t(i) * size_t(H));
  }
  const int tokens = n / (m * m);
  std::vector<float> mid(size_t(tokens) * size_t(merger_fc1_.w.rows));
  kernels::Compute{backend_, pool}.Project(x.data(), tokens, merger_fc1_.w, merger_fc1_.b.data(), mid.data());
  for (float& v : mid) v = kernels::GeluErf(v);
  std::vector<float> out(size_t(tokens) * size_t(config_.out_hidden_size));
  kernels::Compute{backend_, pool}.Project(mid.data(), tokens, merger_fc2_.w, merger_fc2_.b.data(), out.data());
  return out;
}

}  // namespace glance::vision
