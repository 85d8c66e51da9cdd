#pragma once
// The per-machine record behind `--speculative auto` (issue 14 item 5: speculative decoding on
// by default when the checkpoint has an MTP layer and the bench shows it faster on this
// machine). `glance-cli bench-speculative` measures greedy decoding with and without the MTP
// drafts on a model (identical output checked) and records the speed-up here, keyed by the
// model's identity, the precision and thread count it ran at, and the CPU. `auto` then turns
// speculation on only for a matching record that says faster at identical output; with no
// record, a slower one, or a file it cannot read, it stays off (a damaged file: one warning
// line, never an error).
//
// File: <cache dir>/speculative-record.json (the weight cache's folder, WeightCache::DefaultDir):
//   {"format": 1, "records": [{"model": ID, "model_dir": DIR, "precision": "q4", "threads": 2,
//     "cpu": CPU, "draft_tokens": 1, "speedup": 1.28, "acceptance": 0.99,
//     "identical_output": true}, ...]}
#include <string>
#include <vector>

namespace glance {

class Engine;

// What a record is looked up by. model: a hash of the checkpoint folder's canonical path and
// its config and weight files' names, sizes and modification times (a changed checkpoint is a
// different model); precision and threads as the engine resolved them; cpu: the processor's
// model name and the instruction sets the kernels use.
struct SpeculativeRecordKey {
  std::string model, model_dir, precision, cpu;
  int threads = 0;
};
SpeculativeRecordKey SpeculativeRecordKeyFor(const Engine& engine);

struct SpeculativeMeasurement {
  int draft_tokens = 1;
  double speedup = 0;     // plain decode time / speculative decode time
  double acceptance = 0;  // drafts accepted / drafted
  bool identical_output = false;
};

// <cache dir>/speculative-record.json, or "" when there is no cache dir (no HOME).
std::string DefaultSpeculativeRecordPath();

// Adds the measurement (replacing one with the same key and draft count). A missing or
// unreadable file is started afresh. Written whole (WriteFileAtomically: temporary, fsync,
// rename, fsync of the folder), so a crash at any point leaves the earlier record or the new
// one. Throws glance::Error naming the path when it cannot write; the earlier file is as it was.
void SaveSpeculativeMeasurement(const std::string& path, const SpeculativeRecordKey& key,
                                const SpeculativeMeasurement& m);

// What `auto` decides for this key: drafts per step (0 = off), why, and a one-line warning
// when the file exists but cannot be used (then off).
struct SpeculativeAutoChoice {
  int draft_tokens = 0;
  std::string reason;
  std::string warning;
};
SpeculativeAutoChoice ChooseSpeculativeAuto(const std::string& path, const SpeculativeRecordKey& key);

// The same for an engine: off without an MTP layer, else the record's decision.
SpeculativeAutoChoice ChooseSpeculativeAuto(const Engine& engine, const std::string& path);

}  // namespace glance
