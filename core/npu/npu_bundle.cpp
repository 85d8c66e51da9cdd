#include "core/npu/npu_bundle.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/model/safetensors.h"
#include "core/util/error.h"
#include "core/util/read_file.h"

namespace glance::npu {

namespace fs = std::filesystem;
using kernels::npu::KernelFamily;
using kernels::npu::PackedLayout;
using kernels::npu::PackedWeight;
using kernels::npu::Rounding;

namespace {

// Largest number a manifest field may hold (sizes are checked against the files later).
constexpr uint64_t kMaxField = uint64_t{1} << 40;

struct Record {
  int line = 0;
  std::string tag, text;
  std::vector<std::string> fields;
  std::map<std::string, std::string> kv;
};

std::vector<Record> ReadManifest(const std::string& dir) {
  const fs::path path = fs::path(dir) / "manifest.txt";
  std::istringstream f(
      ReadWholeFile(path.string(), "NPU bundle " + dir + ": cannot read manifest.txt (is this a bundle folder?)"));
  std::vector<Record> out;
  std::string line;
  for (int n = 1; std::getline(f, line); ++n) {
    if (line.size() > 65536) throw Error(path.string() + ":" + std::to_string(n) + ": line longer than 64 KiB");
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

// Decimal digits only (no sign, no spaces), at most `max`.
bool ParseUnsigned(const std::string& s, uint64_t max, uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > max) return false;
  *out = v;
  return true;
}

int64_t IntField(const std::string& file, const Record& r, const std::string& key) {
  const auto it = r.kv.find(key);
  if (it == r.kv.end()) Bad(file, r, "`" + key + "=` missing");
  uint64_t v = 0;
  if (!ParseUnsigned(it->second, kMaxField, &v))
    Bad(file, r, "`" + key + "=" + it->second + "` is not a whole number up to 2^40");
  return static_cast<int64_t>(v);
}

std::string StrField(const std::string& file, const Record& r, const std::string& key) {
  const auto it = r.kv.find(key);
  if (it == r.kv.end() || it->second.empty()) Bad(file, r, "`" + key + "=` missing");
  return it->second;
}

size_t DTypeBytes(const std::string& d) {
  if (d == "f32" || d == "i32") return 4;
  if (d == "bf16") return 2;
  if (d == "u8") return 1;
  return 0;
}

}  // namespace

Rounding ParseRounding(const std::string& s, const std::string& where) {
  if (s == "conv_even") return Rounding::kConvEven;
  if (s == "floor") return Rounding::kFloor;
  throw Error(where + ": rounding `" + s + "` is not conv_even or floor");
}

NpuBundle NpuBundle::Open(const std::string& dir) {
  const std::string mf = (fs::path(dir) / "manifest.txt").string();
  NpuBundle b;
  b.dir_ = dir;
  int version = 0;
  struct X { std::string file, kernel; };
  std::map<std::string, X> xclbins;
  std::vector<Record> kernel_records;
  for (const Record& r : ReadManifest(dir)) {
    if (r.tag == "version") {
      uint64_t v = 0;
      if (version) Bad(mf, r, "second version record");
      if (r.fields.size() != 1 || !ParseUnsigned(r.fields[0], 1000000, &v) || v == 0) Bad(mf, r, "expected `version <n>`");
      version = static_cast<int>(v);
    } else if (r.tag == "param") {
      if (r.fields.size() < 2) Bad(mf, r, "expected `param <name> <value>`");
      std::string value;
      for (size_t i = 1; i < r.fields.size(); ++i) value += (i > 1 ? " " : "") + r.fields[i];
      if (!b.params_.emplace(r.fields[0], value).second) Bad(mf, r, "param " + r.fields[0] + " defined twice");
    } else if (r.tag == "xclbin") {
      if (r.fields.size() < 3) Bad(mf, r, "expected `xclbin <key> <file> <kernel name>`");
      if (!xclbins.emplace(r.fields[0], X{(fs::path(dir) / r.fields[1]).string(), r.fields[2]}).second)
        Bad(mf, r, "xclbin " + r.fields[0] + " defined twice");
    } else if (r.tag == "gemm" || r.tag == "gemm_chunks" || r.tag == "gemv") {
      kernel_records.push_back(r);
    } else if (r.tag == "weight") {
      Bad(mf, r, "a bundle from an earlier Glance (per-checkpoint `weight` records); re-export it with `glance-cli npu-export`");
    }  // other records (steps, test cases, references) belong to other runtimes
  }
  if (version != kBundleVersion)
    throw Error(mf + ": " + (version ? "version " + std::to_string(version) : std::string("no version record")) +
                ", this runtime reads version " + std::to_string(kBundleVersion) + "; re-export the bundle");
  if (const std::string layout = b.param("layout"); layout == "glance-tiles-v1")
    throw Error(mf + ": weights in the glance-tiles-v1 layout of an earlier Glance; re-export with `glance-cli npu-export`");
  if (const std::string f = b.param("gemv_format", "bfp16"); f != "bfp16")
    throw Error(mf + ": gemv_format " + f + " is not supported (bfp16 only)");
  if (const std::string r = b.param("rounding"); !r.empty()) b.rounding_ = ParseRounding(r, mf);

  std::map<std::string, size_t> gemm_index;  // key → index of its 1-chunk record
  for (const Record& r : kernel_records) {
    if (r.fields.empty()) Bad(mf, r, "kernel record without a key");
    BundleKernel k;
    k.key = r.fields[0];
    auto& s = k.spec;
    s.key = k.key;
    s.insts = (fs::path(dir) / StrField(mf, r, "insts")).string();
    s.rounding = b.rounding_;
    if (const auto it = r.kv.find("rounding"); it != r.kv.end()) s.rounding = ParseRounding(it->second, mf + ":" + std::to_string(r.line));
    std::string ctx;
    if (r.tag == "gemm") {
      s.family = KernelFamily::kGemm;
      k.m = IntField(mf, r, "M");
      s.k = IntField(mf, r, "K");
      s.n = IntField(mf, r, "N");
      k.lda = IntField(mf, r, "lda");
      k.c_stride = IntField(mf, r, "c_stride");
      k.b_bytes = IntField(mf, r, "b_bytes");
      k.a_elems = IntField(mf, r, "a_elems");
      k.c_elems = IntField(mf, r, "c_elems");
      s.chunks = 1;
      if (k.m == 0 || k.m % kernels::npu::kMChunk) Bad(mf, r, "flm.GEMM's M must be a multiple of 256");
      if (s.k == 0 || s.k % kernels::npu::kKTile || s.n == 0 || s.n % 8) Bad(mf, r, "K must be a multiple of 512 and N of 8");
      if (k.b_bytes != s.k * s.n / 8 * 9)
        Bad(mf, r, "b_bytes is not K·N·9/8: B is not bfp16ebs8 (an NPU1 bundle with bf16 weights?)");
      if (k.lda < s.k || k.c_stride < s.n) Bad(mf, r, "lda must be >= K and c_stride >= N");
      if (!gemm_index.emplace(k.key, b.kernels_.size()).second) Bad(mf, r, "gemm " + k.key + " defined twice");
      // The gu GEMM is built with the paired SwiGLU epilogue (taconite model.rs: down reads its C
      // at column s·D); a record may say so itself with epilogue=swiglu|none (Glance's field).
      const auto epi = r.kv.find("epilogue");
      if (epi != r.kv.end() && epi->second != "swiglu" && epi->second != "none")
        Bad(mf, r, "epilogue must be swiglu or none");
      s.epilogue = (epi != r.kv.end() ? epi->second == "swiglu" : k.key == "gu") ? kernels::npu::Epilogue::kSwiGluPairs
                                                                              : kernels::npu::Epilogue::kNone;
      ctx = r.kv.count("ctx") ? StrField(mf, r, "ctx") : "gemm";
    } else if (r.tag == "gemm_chunks") {
      const auto it = gemm_index.find(k.key);
      if (it == gemm_index.end()) Bad(mf, r, "gemm_chunks " + k.key + " before its gemm record");
      uint64_t n = 0;
      if (r.fields.size() < 2 || !ParseUnsigned(r.fields[1], 4096, &n) || n < 2) Bad(mf, r, "expected `gemm_chunks <key> <n>` with n >= 2");
      const BundleKernel& one = b.kernels_[it->second];
      int64_t have = 1;
      for (const auto& other : b.kernels_)
        if (other.key == k.key && other.spec.family == KernelFamily::kGemm) have = std::max(have, other.spec.chunks);
      if (static_cast<int64_t>(n) != have + 1) Bad(mf, r, "gemm_chunks " + k.key + " " + std::to_string(n) + " out of order");
      const std::string insts = s.insts;
      k = one;
      k.spec.insts = insts;
      k.spec.chunks = static_cast<int64_t>(n);
      k.a_elems = IntField(mf, r, "a_elems");
      k.c_elems = IntField(mf, r, "c_elems");
      ctx = k.spec.context;
    } else {
      s.family = KernelFamily::kGemv;
      k.m = IntField(mf, r, "M");
      s.k = IntField(mf, r, "K");
      s.n = k.m;
      k.w_words = IntField(mf, r, "w_words");
      if (k.m == 0 || s.k == 0 || s.k % 8) Bad(mf, r, "GEMV records take M >= 1 and K a multiple of 8");
      ctx = r.kv.count("ctx") ? StrField(mf, r, "ctx") : "gemv";
    }
    const auto x = xclbins.find(ctx);
    if (x == xclbins.end()) Bad(mf, r, "context " + ctx + " names no xclbin record");
    k.spec.context = ctx;
    k.spec.xclbin = x->second.file;
    k.spec.kernel_name = x->second.kernel;
    b.kernels_.push_back(std::move(k));
  }

  const std::string tf = (fs::path(dir) / "tensors.txt").string();
  std::istringstream t(ReadWholeFile(tf, "NPU bundle " + dir + ": cannot read tensors.txt"));
  std::error_code ec;
  const uint64_t bin_size = fs::file_size(fs::path(dir) / "tensors.bin", ec);
  if (ec) throw Error("NPU bundle " + dir + ": cannot read tensors.bin");
  std::string line;
  for (int n = 1; std::getline(t, line); ++n) {
    if (line.empty()) continue;
    const auto bad = [&](const std::string& msg) { throw Error(tf + ":" + std::to_string(n) + ": " + msg + ", in: " + line.substr(0, 200)); };
    std::istringstream ss(line);
    std::string name, dtype, shape, offset, bytes, extra;
    if (!(ss >> name >> dtype >> shape >> offset >> bytes) || (ss >> extra))
      bad("expected <name> <dtype> <d0,d1,...> <offset> <bytes>");
    BundleTensor bt;
    bt.dtype = dtype;
    if (!DTypeBytes(dtype)) bad("unknown dtype " + dtype + " (f32, bf16, u8 or i32)");
    const std::string within = " is not a whole number within tensors.bin's " + std::to_string(bin_size) + " bytes";
    if (!ParseUnsigned(offset, bin_size, &bt.offset)) bad("offset " + offset + within);
    if (!ParseUnsigned(bytes, bin_size, &bt.bytes)) bad("byte count " + bytes + within);
    if (bt.bytes > bin_size - bt.offset) bad("tensor " + name + " runs past the end of tensors.bin (" + std::to_string(bin_size) + " bytes)");
    if (bt.offset % 8) bad("offset is not 8-byte aligned");
    if (bt.bytes % DTypeBytes(dtype)) bad("byte count is not a whole number of " + dtype + " elements");
    std::istringstream sh(shape);
    for (std::string d; std::getline(sh, d, ',');) {
      uint64_t v = 0;
      if (!ParseUnsigned(d, kMaxField, &v)) bad("shape " + shape + " is not a list of whole numbers");
      bt.shape.push_back(static_cast<int64_t>(v));
    }
    if (!b.tensors_.emplace(name, bt).second) bad("tensor " + name + " defined twice");
  }
  return b;
}

std::string NpuBundle::param(const std::string& key, const std::string& fallback) const {
  const auto it = params_.find(key);
  return it == params_.end() ? fallback : it->second;
}

std::vector<kernels::npu::XrtKernelSpec> NpuBundle::kernel_specs() const {
  std::vector<kernels::npu::XrtKernelSpec> out;
  for (const auto& k : kernels_) out.push_back(k.spec);
  return out;
}

uint64_t NpuBundle::weight_bytes() const {
  uint64_t total = 0;
  for (const auto& [name, t] : tensors_)
    if (t.dtype == "u8") total += t.bytes;
  return total;
}

std::vector<std::string> NpuBundle::MissingKernelFiles() const {
  std::set<std::string> missing;
  std::error_code ec;
  for (const auto& k : kernels_)
    for (const std::string& f : {k.spec.xclbin, k.spec.insts})
      if (!fs::is_regular_file(f, ec)) missing.insert(f);
  return {missing.begin(), missing.end()};
}

std::vector<uint8_t> NpuBundle::ReadBytes(const std::string& name, uint64_t want_bytes) const {
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) throw Error("NPU bundle " + dir_ + ": tensor " + name + " is missing from tensors.txt");
  const BundleTensor& t = it->second;
  if (t.dtype != "u8" || t.bytes != want_bytes)
    throw Error("NPU bundle " + dir_ + ": tensor " + name + " is " + std::to_string(t.bytes) + " bytes of " + t.dtype +
                ", the model needs " + std::to_string(want_bytes) + " bytes of u8 (bundle from another checkpoint?)");
  std::vector<uint8_t> out(static_cast<size_t>(t.bytes));  // bounded by tensors.bin's size (Open)
  std::ifstream f(fs::path(dir_) / "tensors.bin", std::ios::binary);
  f.seekg(static_cast<std::streamoff>(t.offset));
  if (!f.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size())))
    throw Error("NPU bundle " + dir_ + ": cannot read " + name + " from tensors.bin (file changed?)");
  return out;
}

BundleWeightSource::BundleWeightSource(std::shared_ptr<const NpuBundle> bundle, const TensorStore& store)
    : bundle_(std::move(bundle)), plan_(PlanBundle(store, 0)) {
  for (const auto& [name, view] : store.all()) names_[view->data] = name;
  // The head split is the bundle's, not the default.
  if (const std::string hr = bundle_->param("head_rows"); !hr.empty()) {
    uint64_t v = 0;
    if (!ParseUnsigned(hr, uint64_t{1} << 24, &v) || v == 0 || v % 8)
      throw Error("NPU bundle " + bundle_->dir() + ": param head_rows " + hr + " is not a positive multiple of 8");
    plan_ = PlanBundle(store, static_cast<int64_t>(v));
  }
}

PackedWeight BundleWeightSource::LoadTensor(const BundleTensorPlan& t) const {
  PackedWeight g = kernels::npu::PackedShape(t.n, t.k, t.layout);
  if (t.layout == PackedLayout::kGemmTiles) {
    // N_pad from the bytes: an exporter may pad N further (e.g. I to n_down·D).
    const uint64_t have = bundle_->tensors().at(t.name).bytes;
    const uint64_t per_row = static_cast<uint64_t>(g.k_pad) / 8 * 9;
    const uint64_t n_pad = have / per_row;
    if (have % per_row == 0 && n_pad >= static_cast<uint64_t>(g.n_pad) && n_pad % static_cast<uint64_t>(g.tile_n) == 0)
      g.n_pad = static_cast<int64_t>(n_pad);
  }
  g.bytes = bundle_->ReadBytes(t.name, static_cast<uint64_t>(kernels::npu::PackedBytes(g)));
  return g;
}

std::optional<PackedWeight> BundleWeightSource::FindTensor(const std::string& bundle_tensor) const {
  for (const auto& t : plan_.tensors)
    if (t.name == bundle_tensor) {
      if (!bundle_->tensors().count(t.name)) return std::nullopt;
      return LoadTensor(t);
    }
  return std::nullopt;
}

CheckpointTensorSource::CheckpointTensorSource(const TensorStore& store, Rounding rounding)
    : store_(store), plan_(PlanBundle(store)), rounding_(rounding) {}

std::optional<PackedWeight> CheckpointTensorSource::Find(const kernels::WeightRef& w) const {
  return kernels::npu::PackingWeightSource(rounding_).Find(w);
}

std::optional<PackedWeight> CheckpointTensorSource::FindTensor(const std::string& bundle_tensor) const {
  for (const auto& t : plan_.tensors)
    if (t.name == bundle_tensor) {
      const std::vector<float> w = AssembleBundleTensor(store_, t);
      return kernels::npu::PackWeight(w.data(), t.n, t.k, t.layout, rounding_);
    }
  return std::nullopt;
}

std::optional<PackedWeight> BundleWeightSource::Find(const kernels::WeightRef& w) const {
  const auto it = names_.find(w.data);
  if (it == names_.end()) return std::nullopt;  // a weight prepared at load (not the checkpoint's)
  return FindByName(it->second);
}

std::optional<PackedWeight> BundleWeightSource::FindByName(const std::string& checkpoint) const {
  struct Source { const BundleTensorPlan* tensor; const BundlePiece* piece; };
  std::vector<Source> sources;
  for (const auto& t : plan_.tensors)
    for (const auto& p : t.pieces)
      if (p.checkpoint == checkpoint) sources.push_back({&t, &p});
  if (sources.empty()) return std::nullopt;
  size_t present = 0;
  for (const auto& s : sources) present += bundle_->tensors().count(s.tensor->name);
  if (present == 0) return std::nullopt;  // this bundle does not carry it: the CPU runs it
  if (present != sources.size())
    throw Error("NPU bundle " + bundle_->dir() + ": has part of " + checkpoint + " but not all of it");

  int64_t rows = 0, cols = 0;
  for (const auto& s : sources) {
    rows = std::max(rows, s.piece->n_end);
    cols = std::max(cols, s.piece->k_end);
  }
  PackedWeight out = kernels::npu::PackedShape(rows, cols, sources[0].tensor->layout);
  out.bytes.assign(static_cast<size_t>(kernels::npu::PackedBytes(out)), 0);
  std::map<std::string, std::pair<PackedWeight, std::vector<uint8_t>>> loaded;
  for (const auto& s : sources) {
    const BundleTensorPlan& t = *s.tensor;
    auto found = loaded.find(t.name);
    if (found == loaded.end()) {
      PackedWeight g = LoadTensor(t);
      std::vector<uint8_t> bytes = std::move(g.bytes);
      found = loaded.emplace(t.name, std::make_pair(std::move(g), std::move(bytes))).first;
    }
    const auto& [geom, bytes] = found->second;
    const BundlePiece& p = *s.piece;
    for (int64_t n = p.n_begin; n < p.n_end; ++n)
      for (int64_t k0 = p.k_begin; k0 < p.k_end; k0 += kernels::npu::kBfpGroup)
        std::memcpy(out.bytes.data() + kernels::npu::BlockOffset(n, k0, out),
                    bytes.data() + kernels::npu::BlockOffset(p.BundleRow(n), k0 - p.k_begin, geom),
                    kernels::npu::kBfpBlockBytes);
  }
  return out;
}

}  // namespace glance::npu
