#include "core/npu/bundle_export.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/model/config.h"
#include "core/model/safetensors.h"
#include "core/npu/bundle_kernels.h"
#include "core/npu/bundle_plan.h"
#include "core/npu/npu_bundle.h"
#include "core/util/error.h"
#include "kernels/cpu/matmul.h"

namespace glance::npu {

namespace fs = std::filesystem;
using kernels::npu::PackedLayout;
using kernels::npu::PackedWeight;

namespace {

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

}  // namespace

ExportSummary ExportNpuBundle(const std::string& model_dir, const std::string& out_dir, kernels::npu::Rounding rounding,
                              const std::function<void(double, const std::string&)>& progress,
                              bool placeholder_kernels) {
  const ModelConfig cfg = ModelConfig::FromFile((fs::path(model_dir) / "config.json").string());
  const TensorStore store = TensorStore::OpenFolder(model_dir);
  const BundlePlan plan = PlanBundle(store);

  fs::create_directories(out_dir);
  std::ofstream bin(fs::path(out_dir) / "tensors.bin", std::ios::binary | std::ios::trunc);
  std::ofstream txt(fs::path(out_dir) / "tensors.txt", std::ios::trunc);
  ExportSummary sum;
  uint64_t offset = 0;
  std::set<std::string> gemm_shapes;
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    const BundleTensorPlan& t = plan.tensors[i];
    if (progress) progress(static_cast<double>(i) / static_cast<double>(plan.tensors.size()), t.name);
    const std::vector<float> w = AssembleBundleTensor(store, t);
    const PackedWeight p = kernels::npu::PackWeight(w.data(), t.n, t.k, t.layout, rounding);
    const uint64_t aligned = (offset + 63) / 64 * 64;  // 64-byte aligned, as IRON writes
    for (; offset < aligned; ++offset) bin.put('\0');
    bin.write(reinterpret_cast<const char*>(p.bytes.data()), static_cast<std::streamsize>(p.bytes.size()));
    txt << t.name << " u8 " << p.bytes.size() << " " << offset << " " << p.bytes.size() << "\n";
    offset += p.bytes.size();
    sum.tensors += 1;
    sum.bytes += p.bytes.size();
    if (t.layout == PackedLayout::kGemmTiles)
      gemm_shapes.insert("K=" + std::to_string(p.k_pad) + " N=" + std::to_string(p.n_pad) + " (tile_n " + std::to_string(p.tile_n) + ")");
  }
  if (!bin || !txt) throw Error("npu-export: cannot write " + out_dir + " (disk full or read-only?)");
  const TextConfig& tc = cfg.text;
  std::vector<std::string> stop;
  for (const int64_t id : tc.eos_token_ids) stop.push_back(std::to_string(id));
  std::ofstream mf(fs::path(out_dir) / "manifest.txt", std::ios::trunc);
  mf << "# NPU bundle (IRON/taconite format): weights from glance-cli npu-export\n"
     << "version " << kBundleVersion << "\n"
     << "param model_type " << (cfg.model_type.empty() ? "qwen3_5" : cfg.model_type) << "\n"
     << "param D " << plan.hidden << "\n"
     << "param I " << plan.intermediate << "\n"
     << "param layer_types " << Join(plan.layer_types) << "\n"
     << "param vocab " << tc.vocab_size << "\n"
     << "param eps " << tc.rms_norm_eps << "\n"
     << "param heads " << tc.num_attention_heads << "\n"
     << "param kv_heads " << tc.num_key_value_heads << "\n"
     << "param hd " << tc.head_dim << "\n"
     << "param rope_dim " << tc.rotary_dim() << "\n"
     << "param rope_theta " << tc.rope_theta << "\n"
     << "param lin_heads " << tc.linear_num_value_heads << "\n"
     << "param lin_k_heads " << tc.linear_num_key_heads << "\n"
     << "param lin_hk " << tc.linear_key_head_dim << "\n"
     << "param lin_hv " << tc.linear_value_head_dim << "\n"
     << "param conv_k " << tc.linear_conv_kernel_dim << "\n"
     << "param chunk " << kernels::npu::kMChunk << "\n"
     << "param n_down " << plan.n_down << "\n"
     << "param head_rows " << plan.head_rows << "\n"
     << "param n_head " << plan.n_head << "\n"
     << "param stop " << Join(stop) << "\n"
     << "param gemv_format bfp16\n"
     << "param rounding " << kernels::npu::RoundingName(rounding) << "\n"
     << "# Kernels: IRON's xclbin / gemm / gemm_chunks / gemv records and files (kernels/npu/README.md).\n"
     << "# flm.GEMM shapes these weights need:";
  for (const auto& s : gemm_shapes) mf << "\n#   " << s;
  mf << "\n# GEMVbfp16: the same K x N (the layer GEMVs read the GEMM streams), and the head: M="
     << plan.head_rows << " K=" << plan.hidden << " x " << plan.n_head << "\n";
  if (placeholder_kernels) mf << WritePlaceholderKernels(plan, out_dir);
  if (!mf) throw Error("npu-export: cannot write " + out_dir + "/manifest.txt");
  if (progress) progress(1.0, "done");
  return sum;
}

}  // namespace glance::npu
