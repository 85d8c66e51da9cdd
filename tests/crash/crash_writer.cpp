// The writer the crash tests run as a child process, under io_fault_shim (issue 35):
//   crash_writer caption DIR OUT   glance's CaptionFolder over DIR into OUT (.jsonl or .csv),
//                                  with a fake captioner (fake_caption.h) instead of a model
//   crash_writer sidecar DIR MODE TAG [OUT]
//                                  the same into caption sidecars (issue 33), DIR and its
//                                  subfolders, --existing MODE; each caption is "TAG: " and the
//                                  fake caption of the image's path in DIR (and rows into OUT)
//   crash_writer weight-cache DIR N
//                                  the prepared-weight cache (core/model/weight_cache.h) in DIR
//                                  under the key "k": opens it, adds the matrices m0..m<N-1> it
//                                  lacks (64x64 f32, and q0..q<N-1> 32x64 q8, known bytes) and saves
//   crash_writer weight-cache-check DIR
//                                  what a later start finds there: "entries N" (the cache loads and
//                                  holds m0..m<N-1> and q0..q<N-1>, every byte as written), "none"
//                                  (the cache is not used: it would be rebuilt) or "bad: <why>"
//   crash_writer spec-record PATH DRAFTS SPEEDUP
//                                  the bench's per-machine record (core/engine/speculative_record.h):
//                                  one measurement for a fixed key
//   crash_writer spec-record-check PATH
//                                  what --speculative auto then decides ("auto: <reason>"), or
//                                  "bad: <warning>" when the file cannot be used
// Prints CaptionFolder's notices and any error as one line each on stderr, and for sidecars one
// "protected: PATH" line for each sidecar left alone and one "failed: FILE: ERROR" line for each
// image that failed; exit 0, or 1 on an error or a failed image.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/caption_folder.h"
#include "core/engine/speculative_record.h"
#include "core/model/weight_cache.h"
#include "core/util/error.h"
#include "kernels/cpu/quant_formats.h"
#include "tests/crash/fake_caption.h"

namespace {

// The bytes of matrix `name` (m<i>: f32 64x64; q<i>: q8 32x64, values then scales): a pattern
// of the name and the position, so a byte out of place or zeroed shows.
std::vector<uint8_t> MatrixBytes(const std::string& name, uint64_t n) {
  std::vector<uint8_t> b(n);
  uint32_t h = 2166136261u;
  for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  for (uint64_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>((h >> (i % 4 * 8)) + i * 7 + 1);
  return b;
}

struct Matrix {
  std::string name;
  glance::kernels::WeightType type;
  int64_t rows, cols;
};

std::vector<Matrix> Matrices(int n) {
  std::vector<Matrix> m;
  for (int i = 0; i < n; ++i) {
    m.push_back({"m" + std::to_string(i), glance::kernels::WeightType::F32, 64, 64});
    m.push_back({"q" + std::to_string(i), glance::kernels::WeightType::Q8, 32, 64});
  }
  return m;
}

uint64_t ScaleBytes(const Matrix& m) {
  return m.type == glance::kernels::WeightType::Q8 ? static_cast<uint64_t>(m.rows * glance::kernels::QuantBlocks(m.cols)) * 4 : 0;
}

int WeightCacheWrite(const std::string& dir, int n) {
  glance::WeightCache cache(dir, "k");
  std::vector<std::shared_ptr<std::vector<uint8_t>>> keep;
  for (const Matrix& m : Matrices(n)) {
    if (cache.Find(m.name, m.type, m.rows, m.cols)) continue;
    const uint64_t total = glance::kernels::WeightBytes(m.type, m.rows, m.cols), scales = ScaleBytes(m);
    auto bytes = std::make_shared<std::vector<uint8_t>>(MatrixBytes(m.name, total));
    glance::kernels::WeightRef w;
    w.type = m.type;
    w.rows = m.rows;
    w.cols = m.cols;
    w.data = bytes->data();
    w.scales = scales ? bytes->data() + (total - scales) : nullptr;
    w.owner = bytes;
    cache.Add(m.name, w);
  }
  if (!cache.Save()) {
    std::fprintf(stderr, "error: %s\n", cache.error().c_str());
    return 1;
  }
  return 0;
}

int WeightCacheCheck(const std::string& dir) {
  glance::WeightCache cache(dir, "k");
  if (!cache.loaded()) return std::printf("none\n"), 0;
  int n = 0;
  for (; n < 100; ++n) {
    bool found = true;
    for (const Matrix& m : Matrices(n + 1)) {
      if (m.name != "m" + std::to_string(n) && m.name != "q" + std::to_string(n)) continue;
      const auto w = cache.Find(m.name, m.type, m.rows, m.cols);
      if (!w) {
        found = false;
        continue;
      }
      const uint64_t total = glance::kernels::WeightBytes(m.type, m.rows, m.cols), scales = ScaleBytes(m);
      const std::vector<uint8_t> want = MatrixBytes(m.name, total);
      if (std::memcmp(w->data, want.data(), total - scales) != 0 ||
          (scales && std::memcmp(w->scales, want.data() + (total - scales), scales) != 0))
        return std::printf("bad: %s is not as written\n", m.name.c_str()), 0;
    }
    if (!found) break;
  }
  return std::printf("entries %d\n", n), 0;
}

glance::SpeculativeRecordKey RecordKey() {
  glance::SpeculativeRecordKey k;
  k.model = "0123456789abcdef0123456789abcdef";
  k.model_dir = "/models/crash-test";
  k.precision = "q4";
  k.cpu = "test CPU / avx2";
  k.threads = 2;
  return k;
}

int SpecRecordWrite(const std::string& path, int drafts, double speedup) {
  glance::SaveSpeculativeMeasurement(path, RecordKey(), {drafts, speedup, 0.9, true});
  return 0;
}

int SpecRecordCheck(const std::string& path) {
  const glance::SpeculativeAutoChoice c = glance::ChooseSpeculativeAuto(path, RecordKey());
  if (!c.warning.empty()) return std::printf("bad: %s\n", c.warning.c_str()), 0;
  return std::printf("auto: %s\n", c.reason.c_str()), 0;
}

int Sidecars(const std::string& dir, const std::string& mode, const std::string& tag, const std::string& out) {
  glance::CaptionFolderOptions o;
  o.sidecar = glance::SidecarOptions{};
  o.sidecar->existing = glance::ParseSidecarExisting(mode);
  o.recursive = true;
  o.out_path = out;
  glance::CaptionFolderCallbacks cb;
  cb.on_failed = [](const std::string& file, const std::string& error) {
    std::fprintf(stderr, "failed: %s: %s\n", file.c_str(), error.c_str());
  };
  const glance::CaptionFolderSummary s = glance::CaptionFolder(
      dir, o, [&](const std::string& path) { return tag + ": " + glance::test::FakeCaption(path.substr(dir.size() + 1)); },
      cb);
  if (!s.recovered.empty()) std::fprintf(stderr, "note: %s\n", s.recovered.c_str());
  for (const std::string& n : s.notices) std::fprintf(stderr, "note: %s\n", n.c_str());
  for (const std::string& p : s.protected_sidecars) std::fprintf(stderr, "protected: %s\n", p.c_str());
  return s.failed > 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (!((what == "caption" && argc == 4) || (what == "sidecar" && (argc == 5 || argc == 6)) ||
        (what == "weight-cache" && argc == 4) || (what == "weight-cache-check" && argc == 3) ||
        (what == "spec-record" && argc == 5) || (what == "spec-record-check" && argc == 3))) {
    std::fprintf(stderr,
                 "usage: crash_writer caption DIR OUT | sidecar DIR MODE TAG [OUT] | weight-cache DIR N |\n"
                 "       weight-cache-check DIR | spec-record PATH DRAFTS SPEEDUP | spec-record-check PATH\n");
    return 2;
  }
  try {
    const std::string dir = argv[2];
    if (what == "weight-cache") return WeightCacheWrite(dir, std::atoi(argv[3]));
    if (what == "weight-cache-check") return WeightCacheCheck(dir);
    if (what == "spec-record") return SpecRecordWrite(dir, std::atoi(argv[3]), std::atof(argv[4]));
    if (what == "spec-record-check") return SpecRecordCheck(dir);
    if (what == "sidecar") return Sidecars(dir, argv[3], argv[4], argc == 6 ? argv[5] : "");
    const glance::CaptionFolderSummary s = glance::CaptionFolder(
        dir, argv[3], [&](const std::string& path) { return glance::test::FakeCaption(path.substr(dir.size() + 1)); });
    if (!s.recovered.empty()) std::fprintf(stderr, "note: %s\n", s.recovered.c_str());
    return 0;
  } catch (const glance::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
