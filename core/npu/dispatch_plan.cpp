#include "core/npu/dispatch_plan.h"

#include <map>

#include "core/util/error.h"

namespace glance::npu {

using kernels::npu::Combine;
using kernels::npu::Epilogue;
using kernels::npu::FusedPlan;
using kernels::npu::FusedProjection;
using kernels::npu::FusedSlice;

namespace {

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// "l3.g.down1" → {"3", "down1"}; false for other names.
bool LayerPart(const std::string& name, std::string* layer, std::string* part) {
  if (name.size() < 5 || name[0] != 'l') return false;
  const size_t dot = name.find(".g.");
  if (dot == std::string::npos || dot < 2) return false;
  *layer = name.substr(1, dot - 1);
  *part = name.substr(dot + 3);
  return layer->find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

FusedSlice SliceOf(const BundlePiece& piece) {
  return {piece.checkpoint, piece.row_base, piece.row_base + (piece.n_end - piece.n_begin)};
}

FusedPlan PlanDispatch(const BundlePlan& plan) {
  FusedPlan out;
  std::map<std::string, size_t> down_of_layer, head_index;
  for (const BundleTensorPlan& t : plan.tensors) {
    std::string layer, part;
    const bool in_layer = LayerPart(t.name, &layer, &part);
    if (t.pieces.empty()) throw Error("NPU dispatch plan: bundle tensor " + t.name + " has no checkpoint pieces");
    if (in_layer && part.rfind("down", 0) == 0) {
      // The K slices of one down_proj: one projection, a tensor per slice.
      const auto it = down_of_layer.find(layer);
      if (it == down_of_layer.end()) {
        FusedProjection p;
        p.combine = Combine::kSumKSlices;
        p.gemm_key = p.gemv_key = "down";
        p.slices = {{t.pieces[0].checkpoint, 0, t.n}};
        p.in_cols = plan.intermediate;
        p.out_cols = t.n;
        p.k_slice = t.k;
        down_of_layer[layer] = out.projections.size();
        out.projections.push_back(p);
      }
      out.projections[down_of_layer[layer]].tensors.push_back(t.name);
      continue;
    }
    if (!in_layer && t.name.rfind("head", 0) == 0 && t.layout == kernels::npu::PackedLayout::kGemvRows) {
      if (head_index.empty()) {
        FusedProjection p;
        p.combine = Combine::kRowBlocks;
        p.gemv_key = "head";  // no GEMM: a prompt's head rows are GEMVs too (model.rs `head`)
        p.slices = {{t.pieces[0].checkpoint, 0, plan.n_head * plan.head_rows}};
        p.in_cols = t.k;
        p.out_cols = 0;
        head_index["head"] = out.projections.size();
        out.projections.push_back(p);
      }
      FusedProjection& p = out.projections[head_index["head"]];
      p.tensors.push_back(t.name);
      p.out_cols += t.pieces[0].n_end - t.pieces[0].n_begin;  // the last block is cut to the vocabulary
      continue;
    }
    FusedProjection p;
    p.tensors = {t.name};
    p.in_cols = t.k;
    if (in_layer && part == "gu") {
      if (t.pieces.size() != 2 || t.pieces[0].pair_half != 0 || t.pieces[1].pair_half != 1)
        throw Error("NPU dispatch plan: " + t.name + " is not gate | up interleaved");
      p.combine = Combine::kSwiGlu;
      p.gemm_key = p.gemv_key = "gu";
      p.prefill_epilogue = Epilogue::kSwiGluPairs;
      p.slices = {{t.pieces[0].checkpoint, 0, 0}, {t.pieces[1].checkpoint, 0, 0}};
      p.out_cols = t.pieces[0].n_end - t.pieces[0].n_begin;
    } else {
      p.combine = Combine::kSlices;
      if (in_layer && part == "in") {
        p.gemm_key = p.gemv_key = plan.layer_types.at(static_cast<size_t>(std::stoi(layer))) == "lin" ? "lin" : "att";
        for (const BundlePiece& piece : t.pieces) {
          p.slices.push_back(SliceOf(piece));
          // IRON's runtime keeps the DeltaNet's b and a projections on the host in f32.
          if (EndsWith(piece.checkpoint, "linear_attn.in_proj_qkv.weight")) {
            const std::string base = piece.checkpoint.substr(0, piece.checkpoint.size() - std::string("in_proj_qkv.weight").size());
            out.host_f32.push_back(base + "in_proj_b.weight");
            out.host_f32.push_back(base + "in_proj_a.weight");
          }
        }
      } else if (in_layer && part == "o") {
        p.gemm_key = p.gemv_key = "o";
        p.slices = {SliceOf(t.pieces[0])};
      } else {
        // One instruction stream per shape: vision.K<k_pad>.N<n_pad> (packed_weight.h padding).
        const int64_t k_pad = kernels::npu::RoundUp(t.k, kernels::npu::kKTile);
        const int64_t n_pad = kernels::npu::RoundUp(t.n, kernels::npu::TileNForK(k_pad));
        p.gemm_key = p.gemv_key = "vision.K" + std::to_string(k_pad) + ".N" + std::to_string(n_pad);
        p.slices = {SliceOf(t.pieces[0])};
      }
      p.out_cols = t.n;
    }
    out.projections.push_back(p);
  }
  return out;
}

void UseKernelEpilogues(FusedPlan& plan, const std::vector<kernels::npu::XrtKernelSpec>& specs) {
  for (FusedProjection& p : plan.projections) {
    if (p.combine != Combine::kSwiGlu || p.gemm_key.empty()) continue;
    for (const auto& s : specs)
      if (s.family == kernels::npu::KernelFamily::kGemm && s.key == p.gemm_key && s.chunks == 1)
        p.prefill_epilogue = s.epilogue;
  }
}

}  // namespace glance::npu
