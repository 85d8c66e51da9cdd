#include "core/npu/bundle_plan.h"

#include <algorithm>
#include <set>

#include "core/model/safetensors.h"
#include "core/util/error.h"
#include "kernels/cpu/matmul.h"

namespace glance::npu {

using kernels::npu::PackedLayout;

int64_t BundlePiece::BundleRow(int64_t n) const {
  const int64_t r = n - n_begin;
  if (pair_half < 0) return row_base + r;
  return row_base + 64 * (r / 32) + 32 * pair_half + r % 32;
}

namespace {

const std::string kLm = "model.language_model.";

// Rows × columns of a 2-D checkpoint tensor, or {0, 0} when absent.
std::pair<int64_t, int64_t> Shape2(const TensorStore& store, const std::string& name) {
  const TensorView* v = store.Find(name);
  if (!v || v->shape.size() != 2) return {0, 0};
  return {v->shape[0], v->shape[1]};
}

// Bundle tensor `name` = the checkpoint tensors `parts` stacked by rows.
BundleTensorPlan Stacked(const TensorStore& store, const std::string& name, const std::vector<std::string>& parts) {
  BundleTensorPlan t;
  t.name = name;
  for (const std::string& p : parts) {
    const auto [rows, cols] = Shape2(store, p);
    if (rows == 0) throw Error("NPU bundle: checkpoint tensor " + p + " is missing or not 2-D");
    if (t.k && cols != t.k) throw Error("NPU bundle: " + p + " has " + std::to_string(cols) + " inputs, " + name + " needs " + std::to_string(t.k));
    t.k = cols;
    t.pieces.push_back({p, 0, rows, 0, cols, t.n, -1});
    t.n += rows;
  }
  return t;
}

}  // namespace

BundlePlan PlanBundle(const TensorStore& store, int64_t head_rows) {
  BundlePlan plan;
  std::set<std::string> covered;
  for (int i = 0;; ++i) {
    const std::string p = kLm + "layers." + std::to_string(i) + ".";
    std::string l = "l";  // built in steps: GCC 12 warns falsely (-Wrestrict) on "l" + string
    l += std::to_string(i);
    l += ".g.";
    std::vector<std::string> in, o;
    if (store.Find(p + "linear_attn.in_proj_qkv.weight")) {
      plan.layer_types.push_back("lin");
      in = {p + "linear_attn.in_proj_qkv.weight", p + "linear_attn.in_proj_z.weight"};
      o = {p + "linear_attn.out_proj.weight"};
      covered.insert(p + "linear_attn.in_proj_b.weight");  // host f32 in IRON's runtime
      covered.insert(p + "linear_attn.in_proj_a.weight");
    } else if (store.Find(p + "self_attn.q_proj.weight")) {
      plan.layer_types.push_back("att");
      in = {p + "self_attn.q_proj.weight", p + "self_attn.k_proj.weight", p + "self_attn.v_proj.weight"};
      o = {p + "self_attn.o_proj.weight"};
    } else {
      break;
    }
    plan.tensors.push_back(Stacked(store, l + "in", in));
    plan.tensors.push_back(Stacked(store, l + "o", o));
    const std::string gate = p + "mlp.gate_proj.weight", up = p + "mlp.up_proj.weight", down = p + "mlp.down_proj.weight";
    const auto [I, D] = Shape2(store, gate);
    const auto [Du, Iu] = Shape2(store, up);
    const auto [Dd, Id] = Shape2(store, down);
    if (I == 0 || Du == 0 || Dd == 0 || I != Du || D != Iu || Dd != D || Id != I)
      throw Error("NPU bundle: layer " + std::to_string(i) + "'s MLP (gate_proj, up_proj, down_proj) is missing or mis-shaped");
    if (D % 8) throw Error("NPU bundle: hidden size " + std::to_string(D) + " is not a multiple of 8");
    if (plan.hidden && (plan.hidden != D || plan.intermediate != I)) throw Error("NPU bundle: layers differ in MLP shape");
    plan.hidden = D;
    plan.intermediate = I;
    plan.n_down = (I + D - 1) / D;
    BundleTensorPlan gu{l + "gu", 2 * ((I + 31) / 32 * 32), D, PackedLayout::kGemmTiles, {}};
    gu.pieces.push_back({gate, 0, I, 0, D, 0, 0});
    gu.pieces.push_back({up, 0, I, 0, D, 0, 1});
    plan.tensors.push_back(gu);
    for (int64_t j = 0; j < plan.n_down; ++j) {
      BundleTensorPlan dj{l + "down" + std::to_string(j), D, D, PackedLayout::kGemmTiles, {}};
      dj.pieces.push_back({down, 0, D, j * D, std::min(I, (j + 1) * D), 0, -1});
      plan.tensors.push_back(dj);
    }
    for (const auto& name : in) covered.insert(name);
    covered.insert(o[0]);
    covered.insert(gate);
    covered.insert(up);
    covered.insert(down);
  }
  if (plan.layer_types.empty()) throw Error("NPU bundle: no Qwen3.5 language-model layers in the checkpoint");

  // The LM head, in head_rows-row dispatches.
  std::string head = "lm_head.weight";
  if (!store.Find(head)) head = kLm + "embed_tokens.weight";  // tied
  const auto [V, Dh] = Shape2(store, head);
  if (V == 0 || Dh != plan.hidden) throw Error("NPU bundle: the LM head (" + head + ") is missing or mis-shaped");
  if (head_rows <= 0) {
    const int64_t parts = (V + 32767) / 32768;
    head_rows = ((V + parts - 1) / parts + 7) / 8 * 8;
  }
  if (head_rows % 8) throw Error("NPU bundle: head_rows " + std::to_string(head_rows) + " is not a multiple of 8");
  plan.head_rows = head_rows;
  plan.n_head = (V + head_rows - 1) / head_rows;
  for (int64_t j = 0; j < plan.n_head; ++j) {
    BundleTensorPlan h{"head" + std::to_string(j), head_rows, Dh, PackedLayout::kGemvRows, {}};
    h.pieces.push_back({head, j * head_rows, std::min(V, (j + 1) * head_rows), 0, Dh, 0, -1});
    plan.tensors.push_back(h);
  }
  covered.insert(head);
  covered.insert(kLm + "embed_tokens.weight");

  // Every other projection the engine runs (the vision tower), under its own name.
  for (const auto& [name, view] : store.all()) {
    if (covered.count(name) || view->shape.size() < 2 || name.size() < 7 ||
        name.compare(name.size() - 7, 7, ".weight") != 0)
      continue;
    if (name.find("mtp.") != std::string::npos) continue;  // the unused multi-token head
    bool skip = false;
    for (const char* s : {"embed_tokens", "pos_embed", "conv1d", "norm"}) skip |= name.find(s) != std::string::npos;
    // nn.Linear [out, in]; the Conv3d patch embedding [out, C, T, P, P] is a Linear over its rows.
    if (skip || (view->shape.size() != 2 && name.find("patch_embed") == std::string::npos)) continue;
    const int64_t rows = view->shape[0];
    if (rows <= 0) continue;
    const int64_t cols = view->numel() / rows;
    BundleTensorPlan t{name, rows, cols, PackedLayout::kGemmTiles, {}};
    t.pieces.push_back({name, 0, rows, 0, cols, 0, -1});
    plan.tensors.push_back(t);
  }
  return plan;
}

namespace {

kernels::WeightRef RefOf(const TensorView& v) {
  kernels::WeightRef ref;
  switch (v.dtype) {
    case DType::F32: ref.type = kernels::WeightType::F32; break;
    case DType::BF16: ref.type = kernels::WeightType::BF16; break;
    case DType::F16: ref.type = kernels::WeightType::F16; break;
    default: throw Error("NPU bundle: " + v.name + " is " + DTypeName(v.dtype) + "; only F32/BF16/F16 can be packed");
  }
  ref.data = v.data;
  ref.rows = v.shape[0];
  ref.cols = v.numel() / v.shape[0];
  return ref;
}

}  // namespace

std::vector<float> AssembleBundleTensor(const TensorStore& store, const BundleTensorPlan& t) {
  std::vector<float> w(static_cast<size_t>(t.n * t.k), 0.0f);
  for (const BundlePiece& p : t.pieces) {
    const kernels::WeightRef ref = RefOf(store.Get(p.checkpoint));
    std::vector<float> row(static_cast<size_t>(ref.cols));
    for (int64_t n = p.n_begin; n < p.n_end; ++n) {
      ref.row_to_f32(n, row.data());
      float* dst = w.data() + p.BundleRow(n) * t.k;
      for (int64_t k = p.k_begin; k < p.k_end; ++k) dst[k - p.k_begin] = row[static_cast<size_t>(k)];
    }
  }
  return w;
}

}  // namespace glance::npu
