#pragma once
// The reference check: runs the engine on a folder in the format of tests/data/tiny-a
// (a model plus what Hugging Face computed from it) and measures each stage against the
// reference — tokenizer, chat template, pixel values, vision embeddings, positions, prefill
// logits, attention rows, greedy decode, the second turn — with gates that fail, plus a
// negative control showing the logits gate tells outputs apart. glance-cli check prints it.
#include <functional>
#include <string>
#include <vector>

#include "core/engine/engine_options.h"

namespace glance::checks {

struct GateResult {
  std::string name;
  bool passed = false;
  bool skipped = false;
  std::string figure;  // the measured numbers, e.g. "max |Δ| 2.1e-06, cos 1.0000000"
  std::string limit;   // what passing means, e.g. "<= 1e-3 and identical argmax"
};

struct CheckOptions {
  int threads = 0;
  // kCpu (the f32 gates) or kNpuEmu / kNpu (the NPU-numerics gates, measured and written
  // down in core/checks/gate_table.cpp); kAuto resolves at load and gates by what it picked.
  BackendKind backend = BackendKind::kCpu;
  std::string npu_bundle;  // EngineOptions::npu_bundle
  // kF32: the gates above. kBf16 | kQ8 | kQ4: the quantized-precision gates instead
  // (KL divergence and top-1 agreement, teacher-forced; precision_check.h). kAuto is refused.
  Precision precision = Precision::kF32;
};

struct CheckReport {
  std::vector<GateResult> gates;
  bool passed() const {
    for (const auto& g : gates)
      if (!g.passed && !g.skipped) return false;
    return !gates.empty();
  }
};

// Throws glance::Error when the folder is not a reference folder (missing golden files).
CheckReport RunReferenceCheck(const std::string& dir, const CheckOptions& options,
                              const std::function<void(const GateResult&)>& on_gate = {});

}  // namespace glance::checks
