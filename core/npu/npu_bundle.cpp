#include "core/npu/npu_bundle.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/model/config.h"
#include "core/model/safetensors.h"
#include "core/util/error.h"

namespace glance::npu {

namespace fs = std::filesystem;
using kernels::npu::KernelFamily;
using kernels::npu::PackedWeight;

namespace {

struct Record {
  int line = 0;
  std::string tag, text;
  std::vector<std::string> fields;
  std::map<std::string, std::string> kv;
};

std::vector<Record> ReadManifest(const std::string& dir) {
  const fs::path path = fs::path(dir) / "manifest.txt";
  std::ifstream f(path);
  if (!f) throw Error("NPU bundle " + dir + ": cannot read manifest.txt (is this a bundle folder?)");
  std::vector<Record> out;
  std::string line;
  for (int n = 1; std::getline(f, line); ++n) {
    std::istringstream ss(line);
    Record r;
    r.line = n;
    r.text = line;
    if (!(ss >> r.tag) || r.tag[0] == '#') continue;
    for (std::string field; ss >> field;) {
      r.fields.push_back(field);
      if (const size_t eq = field.find('='); eq != std::string::npos) r.kv[field.substr(0, eq)] = field.substr(eq + 1);
    }
    out.push_back(std::move(r));
  }
  return out;
}

[[noreturn]] void Bad(const std::string& file, const Record& r, const std::string& msg) {
  throw Error(file + ":" + std::to_string(r.line) + ": " + msg + ", in: " + r.text);
}

int64_t IntField(const std::string& file, const Record& r, const std::string& key) {
  const auto it = r.kv.find(key);
  if (it == r.kv.end()) Bad(file, r, "`" + key + "=` missing");
  try {
    size_t used = 0;
    const long long v = std::stoll(it->second, &used);
    if (used != it->second.size() || v < 0) throw std::invalid_argument("");
    return v;
  } catch (const std::exception&) {
    Bad(file, r, "`" + key + "=" + it->second + "` is not a non-negative integer");
  }
}

std::string StrField(const std::string& file, const Record& r, const std::string& key) {
  const auto it = r.kv.find(key);
  if (it == r.kv.end()) Bad(file, r, "`" + key + "=` missing");
  return it->second;
}

}  // namespace

int NpuBundle::ReadVersion(const std::string& dir) {
  for (const Record& r : ReadManifest(dir))
    if (r.tag == "version" && !r.fields.empty()) {
      try {
        return std::stoi(r.fields[0]);
      } catch (const std::exception&) {
        return 0;
      }
    }
  return 0;
}

NpuBundle NpuBundle::Open(const std::string& dir) {
  const std::string mf = (fs::path(dir) / "manifest.txt").string();
  NpuBundle b;
  b.dir_ = dir;
  int version = 0;
  struct X { std::string file, kernel; };
  std::map<std::string, X> xclbins;
  std::vector<Record> kernel_records;
  std::map<std::string, std::pair<int64_t, int64_t>> weights;
  for (const Record& r : ReadManifest(dir)) {
    if (r.tag == "version") {
      if (version) Bad(mf, r, "second version record");
      if (r.fields.size() != 1) Bad(mf, r, "expected `version <n>`");
      version = std::atoi(r.fields[0].c_str());
    } else if (r.tag == "param") {
      if (r.fields.size() < 2) Bad(mf, r, "expected `param <name> <value>`");
      std::string value;
      for (size_t i = 1; i < r.fields.size(); ++i) value += (i > 1 ? " " : "") + r.fields[i];
      if (!b.params_.emplace(r.fields[0], value).second) Bad(mf, r, "param defined twice");
    } else if (r.tag == "xclbin") {
      if (r.fields.size() < 3) Bad(mf, r, "expected `xclbin <key> <file> <kernel name>`");
      if (!xclbins.emplace(r.fields[0], X{(fs::path(dir) / r.fields[1]).string(), r.fields[2]}).second)
        Bad(mf, r, "xclbin defined twice");
    } else if (r.tag == "gemm" || r.tag == "gemv") {
      kernel_records.push_back(r);
    } else if (r.tag == "weight") {
      if (r.fields.empty()) Bad(mf, r, "expected `weight <tensor> N= K=`");
      weights[r.fields[0]] = {IntField(mf, r, "N"), IntField(mf, r, "K")};
    }  // other records belong to other runtimes (steps, test cases): ignored
  }
  if (version != kBundleVersion)
    throw Error(mf + ": " + (version ? "version " + std::to_string(version) : std::string("no version record")) +
                ", this runtime reads version " + std::to_string(kBundleVersion) +
                "; re-export the bundle with `glance-cli npu-export`");
  if (const auto it = b.params_.find("tile_n"); it != b.params_.end()) b.tile_n_ = std::atoll(it->second.c_str());
  if (b.tile_n_ <= 0 || b.tile_n_ % 8) throw Error(mf + ": param tile_n must be a positive multiple of 8");
  if (const auto it = b.params_.find("format"); it != b.params_.end() && it->second != "bfp16ebs8")
    throw Error(mf + ": weight format " + it->second + " is not supported (bfp16ebs8 only)");
  for (const Record& r : kernel_records) {
    kernels::npu::XrtKernelSpec s;
    s.family = r.tag == "gemm" ? KernelFamily::kGemm : KernelFamily::kGemv;
    if (r.fields.empty()) Bad(mf, r, "kernel record without a key");
    const int64_t m = IntField(mf, r, "M");
    s.k = IntField(mf, r, "K");
    s.n = IntField(mf, r, "N");
    s.chunks = s.family == KernelFamily::kGemm ? IntField(mf, r, "chunks") : 1;
    if (s.family == KernelFamily::kGemm && (m != kernels::npu::kMChunk || s.chunks < 1))
      Bad(mf, r, "flm.GEMM records take M=256 and chunks >= 1");
    if (s.family == KernelFamily::kGemv && m != 1) Bad(mf, r, "GEMV records take M=1");
    if (s.k % kernels::npu::kKTile || s.n % b.tile_n_) Bad(mf, r, "K must be a multiple of 512 and N of tile_n");
    s.context = StrField(mf, r, "ctx");
    const auto x = xclbins.find(s.context);
    if (x == xclbins.end()) Bad(mf, r, "ctx=" + s.context + " names no xclbin record");
    s.xclbin = x->second.file;
    s.kernel_name = x->second.kernel;
    s.insts = (fs::path(dir) / StrField(mf, r, "insts")).string();
    b.kernels_.push_back(s);
  }

  const std::string tf = (fs::path(dir) / "tensors.txt").string();
  std::ifstream t(tf);
  if (!t) throw Error("NPU bundle " + dir + ": cannot read tensors.txt");
  const uint64_t bin_size = fs::exists(fs::path(dir) / "tensors.bin") ? fs::file_size(fs::path(dir) / "tensors.bin") : 0;
  std::string line;
  for (int n = 1; std::getline(t, line); ++n) {
    if (line.empty()) continue;
    std::istringstream ss(line);
    std::string name, dtype, shape;
    BundleTensor bt;
    if (!(ss >> name >> dtype >> shape >> bt.offset >> bt.bytes))
      throw Error(tf + ":" + std::to_string(n) + ": expected <name> <dtype> <shape> <offset> <bytes>, in: " + line);
    bt.dtype = dtype;
    std::istringstream sh(shape);
    for (std::string d; std::getline(sh, d, ',');) bt.shape.push_back(std::atoll(d.c_str()));
    if (bt.offset % 8 || bt.offset + bt.bytes > bin_size)
      throw Error(tf + ":" + std::to_string(n) + ": tensor " + name + " is misaligned or runs past the end of tensors.bin");
    if (!b.tensors_.emplace(name, bt).second) throw Error(tf + ":" + std::to_string(n) + ": tensor " + name + " defined twice");
  }
  for (const auto& [name, nk] : weights) {
    const auto it = b.tensors_.find(name);
    if (it == b.tensors_.end()) throw Error(mf + ": weight " + name + " is not in tensors.txt");
    it->second.shape = {nk.first, nk.second};
  }
  return b;
}

std::string NpuBundle::param(const std::string& key, const std::string& fallback) const {
  const auto it = params_.find(key);
  return it == params_.end() ? fallback : it->second;
}

uint64_t NpuBundle::weight_bytes() const {
  uint64_t total = 0;
  for (const auto& [name, t] : tensors_) total += t.bytes;
  return total;
}

std::optional<PackedWeight> NpuBundle::ReadWeight(const std::string& name) const {
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) return std::nullopt;
  const BundleTensor& t = it->second;
  if (t.dtype != "u8" || t.shape.size() != 2)
    throw Error("NPU bundle " + dir_ + ": tensor " + name + " is not a packed weight (u8 [N,K])");
  PackedWeight p;
  p.n = t.shape[0];
  p.k = t.shape[1];
  p.tile_n = tile_n_;
  p.n_pad = kernels::npu::RoundUp(p.n, tile_n_);
  p.k_pad = kernels::npu::RoundUp(p.k, kernels::npu::kKTile);
  p.bytes.resize(t.bytes);
  std::ifstream f(fs::path(dir_) / "tensors.bin", std::ios::binary);
  f.seekg(static_cast<std::streamoff>(t.offset));
  if (!f.read(reinterpret_cast<char*>(p.bytes.data()), static_cast<std::streamsize>(t.bytes)))
    throw Error("NPU bundle " + dir_ + ": cannot read " + name + " from tensors.bin");
  kernels::npu::ValidatePacked(p, name.c_str());
  return p;
}

BundleWeightSource::BundleWeightSource(std::shared_ptr<const NpuBundle> bundle, const TensorStore& store)
    : bundle_(std::move(bundle)) {
  for (const auto& [name, view] : store.all()) names_[view->data] = name;
}

std::optional<PackedWeight> BundleWeightSource::Find(const kernels::WeightRef& w) const {
  const auto it = names_.find(w.data);
  if (it == names_.end()) return std::nullopt;  // a weight prepared at load (not the checkpoint's)
  return bundle_->ReadWeight(it->second);
}

static bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsProjectionTensor(const std::string& name, const std::vector<int64_t>& shape) {
  if (shape.size() < 2 || !EndsWith(name, ".weight")) return false;
  if (name.find("mtp.") == 0 || name.find(".mtp.") != std::string::npos) return false;  // unused head
  for (const char* skip : {"embed_tokens", "pos_embed", "conv1d", "norm"})
    if (name.find(skip) != std::string::npos) return false;
  // nn.Linear [out, in]; the Conv3d patch embedding [out, C, T, P, P] is a Linear over its rows.
  return shape.size() == 2 || name.find("patch_embed") != std::string::npos;
}

ExportSummary ExportNpuBundle(const std::string& model_dir, const std::string& out_dir, int64_t tile_n,
                              const std::function<void(double, const std::string&)>& progress) {
  const ModelConfig cfg = ModelConfig::FromFile((fs::path(model_dir) / "config.json").string());
  const TensorStore store = TensorStore::OpenFolder(model_dir);
  std::vector<std::string> names;
  for (const auto& [name, view] : store.all())
    if (IsProjectionTensor(name, view->shape)) names.push_back(name);
  // A tied LM head multiplies with the embedding table: pack it under its own name.
  const bool tied = !store.Find("lm_head.weight");
  const std::string embed = "model.language_model.embed_tokens.weight";
  if (tied && store.Find(embed)) names.push_back(embed);
  if (names.empty()) throw Error(model_dir + ": no projection weights found to export");

  fs::create_directories(out_dir);
  std::ofstream bin(fs::path(out_dir) / "tensors.bin", std::ios::binary | std::ios::trunc);
  std::ofstream txt(fs::path(out_dir) / "tensors.txt", std::ios::trunc);
  std::ostringstream weights;
  ExportSummary sum;
  uint64_t offset = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const TensorView& v = store.Get(names[i]);
    if (progress) progress(static_cast<double>(i) / static_cast<double>(names.size()), names[i]);
    kernels::WeightRef ref;
    switch (v.dtype) {
      case DType::F32: ref.type = kernels::WeightType::F32; break;
      case DType::BF16: ref.type = kernels::WeightType::BF16; break;
      case DType::F16: ref.type = kernels::WeightType::F16; break;
      default: throw Error("npu-export: " + names[i] + " is " + DTypeName(v.dtype) + "; only F32/BF16/F16 can be packed");
    }
    ref.data = v.data;
    ref.rows = v.shape[0];
    ref.cols = v.numel() / v.shape[0];
    const PackedWeight p = kernels::npu::PackWeight(ref, names[i].c_str(), tile_n);
    const uint64_t aligned = (offset + 63) / 64 * 64;
    for (; offset < aligned; ++offset) bin.put('\0');
    bin.write(reinterpret_cast<const char*>(p.bytes.data()), static_cast<std::streamsize>(p.bytes.size()));
    txt << names[i] << " u8 " << p.n << "," << p.k << " " << offset << " " << p.bytes.size() << "\n";
    weights << "weight " << names[i] << " N=" << p.n << " K=" << p.k << "\n";
    offset += p.bytes.size();
    sum.weights += 1;
    sum.bytes += p.bytes.size();
  }
  if (!bin || !txt) throw Error("npu-export: cannot write " + out_dir + " (disk full or read-only?)");
  std::ofstream mf(fs::path(out_dir) / "manifest.txt", std::ios::trunc);
  mf << "# Glance NPU bundle: weights from glance-cli npu-export; kernels from the IRON toolchain\n"
     << "version " << kBundleVersion << "\n"
     << "param model_type " << (cfg.model_type.empty() ? "qwen3_5" : cfg.model_type) << "\n"
     << "param hidden_size " << cfg.text.hidden_size << "\n"
     << "param intermediate_size " << cfg.text.intermediate_size << "\n"
     << "param num_hidden_layers " << cfg.text.num_hidden_layers << "\n"
     << "param vocab_size " << cfg.text.vocab_size << "\n"
     << "param vision_hidden_size " << cfg.vision.hidden_size << "\n"
     << "param format bfp16ebs8\n"
     << "param layout glance-tiles-v1\n"
     << "param tile_n " << tile_n << "\n"
     << "param m_chunk " << kernels::npu::kMChunk << "\n"
     << "param k_tile " << kernels::npu::kKTile << "\n"
     << "param tied_lm_head " << (tied ? 1 : 0) << "\n"
     << weights.str()
     << "# xclbin / gemm / gemv records: append the IRON toolchain's (see kernels/npu/README.md)\n";
  if (!mf) throw Error("npu-export: cannot write " + out_dir + "/manifest.txt");
  if (progress) progress(1.0, "done");
  return sum;
}

}  // namespace glance::npu
