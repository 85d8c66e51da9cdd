#include "core/npu/bundle_kernels.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/npu/dispatch_plan.h"
#include "core/util/error.h"
#include "kernels/npu/packed_weight.h"

namespace glance::npu {

namespace fs = std::filesystem;

std::string WritePlaceholderKernels(const BundlePlan& plan, const std::string& out_dir, const std::string& skip) {
  const fs::path dir = fs::path(out_dir) / "kernels";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("npu-export: cannot create " + dir.string() + ": " + ec.message());
  auto write = [&](const std::string& file, const char* data, size_t n) {
    std::ofstream f(dir / file, std::ios::binary | std::ios::trunc);
    f.write(data, static_cast<std::streamsize>(n));
    if (!f) throw Error("npu-export: cannot write " + (dir / file).string());
    return "kernels/" + file;
  };
  std::ostringstream mf;
  mf << "# Kernels: PLACEHOLDER xclbins and instruction streams (core/npu/bundle_kernels.h): they run\n"
     << "# through the stand-in device (--backend npu-emu); hardware needs IRON's compiled kernels.\n"
     << "param kernels " << kPlaceholderKernels << "\n";
  for (const char* ctx : {"gemm", "gemv", "vision"}) {
    const std::string text = std::string("placeholder xclbin for context ") + ctx + " (glance-cli npu-export)\n";
    mf << "xclbin " << ctx << " " << write(std::string(ctx) + ".xclbin", text.data(), text.size()) << " MLIR_AIE\n";
  }
  // Four words per stream, distinct across streams (the stand-in tells runs apart by them);
  // the first spells "GLPH" so a dump shows what they are.
  uint32_t stream = 0;
  auto insts = [&](const std::string& file) {
    ++stream;
    const uint32_t words[4] = {0x48504c47u, stream, stream * 2654435761u, 0xffu};
    return write(file, reinterpret_cast<const char*>(words), sizeof words);
  };
  std::map<std::string, const BundleTensorPlan*> tensors;
  for (const auto& t : plan.tensors) tensors[t.name] = &t;
  std::set<std::string> written;
  for (const auto& p : PlanDispatch(plan).projections) {
    const auto it = tensors.find(p.tensors.at(0));
    if (it == tensors.end()) throw Error("npu-export: the dispatch plan names " + p.tensors[0] + ", not in the bundle plan");
    const BundleTensorPlan& t = *it->second;
    const auto g = kernels::npu::PackedShape(t.n, t.k, t.layout);
    const std::string ctx = p.gemm_key.rfind("vision.", 0) == 0 ? " ctx=vision" : "";
    if (!p.gemm_key.empty() && written.insert("gemm " + p.gemm_key).second) {
      if (skip != "gemm " + p.gemm_key)
        mf << "gemm " << p.gemm_key << " M=" << kernels::npu::kMChunk << " K=" << g.k_pad << " N=" << g.n_pad
           << " lda=" << g.k_pad << " c_stride=" << g.n_pad << " b_bytes=" << g.k_pad * g.n_pad / 8 * 9
           << " a_elems=" << kernels::npu::kMChunk * g.k_pad << " c_elems=" << kernels::npu::kMChunk * g.n_pad << ctx
           << " insts=" << insts("gemm_" + p.gemm_key + ".bin") << "\n";
      for (int n = 2; n <= kPlaceholderMaxChunks; ++n) {
        if (skip == "gemm_chunks " + p.gemm_key + " " + std::to_string(n)) continue;
        mf << "gemm_chunks " << p.gemm_key << " " << n << " a_elems=" << n * kernels::npu::kMChunk * g.k_pad
           << " c_elems=" << n * kernels::npu::kMChunk * g.n_pad
           << " insts=" << insts("gemm_" + p.gemm_key + "_x" + std::to_string(n) + ".bin") << "\n";
      }
    }
    if (written.insert("gemv " + p.gemv_key).second && skip != "gemv " + p.gemv_key)
      mf << "gemv " << p.gemv_key << " M=" << g.n_pad << " K=" << g.k_pad << " w_words=" << g.k_pad * g.n_pad / 8 * 9 / 4
         << ctx << " insts=" << insts("gemv_" + p.gemv_key + ".bin") << "\n";
  }
  return mf.str();
}

}  // namespace glance::npu
