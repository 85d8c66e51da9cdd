#pragma once
// The gates of every check kind as one data table (gate_table.cpp), and the one evaluator that
// turns a check's measurements into its report. A check measures (figures and quantities, per
// gate); whether that passes, and what "passing" reads as, is decided here from the table alone,
// so that a threshold is written once, next to where it was measured.
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/checks/reference_check.h"

namespace glance::checks {

// Which gate table a check uses: the f32 reference gates, the quantized-precision gates (one
// table per precision: their thresholds differ) or the NPU-numerics gates.
enum class CheckKind { kF32, kBf16, kQ8, kQ4, kNpu };

// The check kind for `options` (an NPU backend wins over the precision). Throws glance::Error
// for a precision without gates.
CheckKind CheckKindFor(const CheckOptions& options);

// What a gate row measures. A gate's quantities are its own (the "max |Δ|" of "prefill logits"
// is not that of "greedy decode"); the gate name tells which outputs were compared.
enum class Quantity {
  kMismatches,     // cases, ids or tokens that differ from the reference (a count)
  kCount,          // how many cases or layers were compared at all (a count)
  kMaxAbs,         // max |Δ| against the reference
  kMaxAbsOfRange,  // max |Δ| as a fraction of the reference's logit range (max − min) that step
  kMaxAbsResized,  // max |Δ| of pixel values when an image was resized
  kCosine,         // cosine similarity against the reference
  kMeanCosine,     // mean over positions of the cosine
  kMinCosine,      // worst position's (or step's) cosine
  kMeanKl,         // mean KL(reference ‖ ours) in nats over the rows
  kMaxKl,          // worst row's KL
  kAgreement,      // fraction of rows or steps whose argmax matches; its limit reads in percent
  kControl,        // a negative control: the gate's measure between outputs that must differ
  kGemmCalls,      // NPU GEMM dispatches
  kGemvCalls,      // NPU GEMV dispatches
  kFallbackCalls,  // dispatches that fell back to the CPU
};

enum class Test { kAtMost, kAtLeast, kBelow, kAbove };

// kIfMeasured: the row applies only when the check recorded its quantity (the pixel gate's
// tolerance with and without a resize). kAlways: a quantity not recorded fails the gate.
enum class Need { kAlways, kIfMeasured };

struct GateRow {
  CheckKind kind;
  const char* gate;    // the gate's printed name; a gate's rows are adjacent and all must hold
  Quantity quantity;
  Test test;
  double threshold;
  const char* limit;   // printf format of the threshold as the report shows it ("" = not shown)
  const char* source;  // where the threshold comes from
  Need need = Need::kAlways;
};

std::span<const GateRow> GateTable();

// One gate's measurement. A quantity that could not be measured (outputs of different sizes)
// is recorded as kUnmeasured (NaN), which fails every test.
inline constexpr double kUnmeasured = std::numeric_limits<double>::quiet_NaN();
struct Measurement {
  std::string figure;  // the measured numbers as the report shows them
  std::vector<std::pair<Quantity, double>> values;
  bool skipped = false;  // the folder lacks this gate's reference (the figure says why)
};
Measurement Skipped(std::string why);

// Decides one gate of `kind` from the table. Throws glance::Error if the table has no such gate.
GateResult Evaluate(CheckKind kind, const std::string& gate, const Measurement& m);

// Collects a check's measurements and reports its gates in table order, each as soon as it and
// every gate before it are recorded (glance-cli prints a gate while the next one runs). A gate
// the check never records is not reported (the second turn of a folder without one).
class GateEvaluator {
 public:
  GateEvaluator(CheckKind kind, std::function<void(const GateResult&)> on_gate);
  // Throws glance::Error for a gate the kind's table does not have, or one recorded twice.
  void Record(const std::string& gate, Measurement m);
  CheckReport Finish();

 private:
  void EmitReady(bool all);

  CheckKind kind_;
  std::function<void(const GateResult&)> on_gate_;
  std::vector<std::string> order_;  // the kind's gates, in table order
  std::vector<std::pair<std::string, Measurement>> recorded_;
  size_t next_ = 0;  // index into order_ of the next gate to report
  CheckReport report_;
};

}  // namespace glance::checks
