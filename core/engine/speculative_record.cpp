#include "core/engine/speculative_record.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "core/engine/engine.h"
#include "core/lm/language_model.h"
#include "core/model/weight_cache.h"
#include "core/util/atomic_write.h"
#include "core/util/error.h"
#include "core/util/json_field.h"
#include "core/util/sha256.h"
#include "kernels/cpu/cpu_features.h"

namespace glance {
namespace {

namespace fs = std::filesystem;

constexpr int kFormat = 1;

// The processor's model name (/proc/cpuinfo), or "unknown CPU".
std::string CpuModelName() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  return "unknown CPU";
}

// The checkpoint's identity: canonical folder + name, size and mtime of config.json and every
// *.safetensors file in it, hashed.
std::string ModelIdentity(const std::string& dir, std::string* canonical) {
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  *canonical = root.string();
  std::vector<std::string> parts;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const std::string name = e.path().filename().string();
    if (name != "config.json" && e.path().extension() != ".safetensors") continue;
    const auto size = e.file_size(ec);
    const auto mtime = e.last_write_time(ec).time_since_epoch().count();
    parts.push_back(name + "|" + std::to_string(size) + "|" + std::to_string(mtime));
  }
  std::sort(parts.begin(), parts.end());
  Sha256 h;
  h.Update(canonical->data(), canonical->size());
  for (const auto& p : parts) h.Update(p.data(), p.size());
  return h.HexDigest().substr(0, 32);
}

bool SameKey(const nlohmann::json& r, const SpeculativeRecordKey& k, const std::string& where) {
  return RequiredField<std::string>(r, "model", where) == k.model &&
         RequiredField<std::string>(r, "precision", where) == k.precision &&
         RequiredField<int>(r, "threads", where) == k.threads && RequiredField<std::string>(r, "cpu", where) == k.cpu;
}

// The record file's entries; throws glance::Error naming the path when it is not a record.
nlohmann::json ReadRecords(const std::string& path) {
  const nlohmann::json doc = ReadJsonFile(path, "cannot open " + path);
  if (!doc.is_object() || RequiredField<int>(doc, "format", path) != kFormat)
    throw Error(path + ": not a speculative-decoding record of format " + std::to_string(kFormat));
  if (!HasField(doc, "records") || !doc.at("records").is_array()) throw Error(path + ": field 'records' is missing");
  return doc.at("records");
}

}  // namespace

SpeculativeRecordKey SpeculativeRecordKeyFor(const Engine& engine) {
  SpeculativeRecordKey k;
  k.model = ModelIdentity(engine.info().dir, &k.model_dir);
  k.precision = std::string(Name(engine.info().precision));
  k.threads = engine.info().threads;
  k.cpu = CpuModelName() + " / " + kernels::CpuFeaturesInUse();
  return k;
}

std::string DefaultSpeculativeRecordPath() {
  const std::string dir = WeightCache::DefaultDir();
  return dir.empty() ? "" : (fs::path(dir) / "speculative-record.json").string();
}

void SaveSpeculativeMeasurement(const std::string& path, const SpeculativeRecordKey& key,
                                const SpeculativeMeasurement& m) {
  if (path.empty()) throw Error("speculative record: no cache folder (HOME and XDG_CACHE_HOME unset)");
  nlohmann::json records = nlohmann::json::array();
  std::error_code ec;
  if (fs::exists(path, ec)) {
    try {
      for (const auto& r : ReadRecords(path)) {
        const bool replaced = SameKey(r, key, path) && RequiredField<int>(r, "draft_tokens", path) == m.draft_tokens;
        if (!replaced) records.push_back(r);
      }
    } catch (const Error&) {
      records = nlohmann::json::array();  // a damaged record is started afresh
    }
  }
  records.push_back({{"model", key.model}, {"model_dir", key.model_dir}, {"precision", key.precision},
                     {"threads", key.threads}, {"cpu", key.cpu}, {"draft_tokens", m.draft_tokens},
                     {"speedup", m.speedup}, {"acceptance", m.acceptance},
                     {"identical_output", m.identical_output}});
  fs::create_directories(fs::path(path).parent_path(), ec);
  // Whole file or nothing, also across a crash or power cut (temporary, fsync, rename, fsync of
  // the folder; issue 35): a reader finds the earlier record or the new one, never half of it.
  const std::string folder = fs::path(path).parent_path().empty() ? "." : fs::path(path).parent_path().string();
  RemoveAtomicWriteLeftovers(folder);
  try {
    WriteFileAtomically(path, nlohmann::json{{"format", kFormat}, {"records", records}}.dump(2) + "\n");
  } catch (const Error& e) {
    throw Error(std::string("cannot write the speculative record: ") + e.what());
  }
}

SpeculativeAutoChoice ChooseSpeculativeAuto(const std::string& path, const SpeculativeRecordKey& key) {
  SpeculativeAutoChoice c;
  std::error_code ec;
  if (path.empty() || !fs::exists(path, ec)) {
    c.reason = "no speculative record on this machine (glance-cli bench-speculative --model DIR records one)";
    return c;
  }
  try {
    double best = 0;
    for (const auto& r : ReadRecords(path)) {
      if (!SameKey(r, key, path)) continue;
      const double speedup = RequiredField<double>(r, "speedup", path);
      const int k = RequiredField<int>(r, "draft_tokens", path);
      if (k < 1 || k > 3) throw Error(path + ": draft_tokens " + std::to_string(k) + " is not 1, 2 or 3");
      if (RequiredField<bool>(r, "identical_output", path) && speedup > 1.0 && speedup > best) {
        best = speedup;
        c.draft_tokens = k;
      }
    }
    char buf[160];
    if (c.draft_tokens > 0) {
      std::snprintf(buf, sizeof buf, "measured %.2fx faster here with %d draft token(s)", best, c.draft_tokens);
    } else {
      std::snprintf(buf, sizeof buf, "no record says faster for this model, precision, thread count and CPU");
    }
    c.reason = buf;
  } catch (const Error& e) {
    c = {};
    c.reason = "unreadable speculative record";
    c.warning = std::string("speculative auto: ") + e.what() + "; speculative decoding off";
  }
  return c;
}

SpeculativeAutoChoice ChooseSpeculativeAuto(const Engine& engine, const std::string& path) {
  if (!engine.lm().has_mtp()) {
    SpeculativeAutoChoice c;
    c.reason = "the checkpoint has no MTP layer";
    return c;
  }
  return ChooseSpeculativeAuto(path, SpeculativeRecordKeyFor(engine));
}

}  // namespace glance
