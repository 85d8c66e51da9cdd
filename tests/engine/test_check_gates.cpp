// The gate table of the checks (core/checks/gate_table.h) and its one evaluator: thresholds decide
// pass and fail on either side (negative controls: a measurement past a threshold fails, NaN and a
// missing quantity fail), limits read as the report prints them, and the evaluator reports gates
// in table order as they become ready.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "core/checks/gate_table.h"
#include "core/util/error.h"

using namespace glance;
using namespace glance::checks;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

GateResult Eval(CheckKind kind, const std::string& gate, std::vector<std::pair<Quantity, double>> values) {
  return Evaluate(kind, gate, Measurement{"figure", std::move(values)});
}

TEST(GateTable, EveryRowIsWellFormedAndEachGateIsOneRun) {
  std::set<std::pair<int, std::string>> closed;  // (kind, gate) whose rows have ended
  const GateRow* prev = nullptr;
  for (const GateRow& row : GateTable()) {
    EXPECT_TRUE(std::isfinite(row.threshold)) << row.gate;
    EXPECT_NE(std::string(row.source), "") << row.gate;
    const std::pair<int, std::string> key{static_cast<int>(row.kind), row.gate};
    if (prev && (prev->kind != row.kind || std::string(prev->gate) != row.gate))
      closed.insert({static_cast<int>(prev->kind), prev->gate});
    EXPECT_FALSE(closed.count(key)) << row.gate << ": its rows are not adjacent";
    prev = &row;
  }
  for (CheckKind k : {CheckKind::kF32, CheckKind::kBf16, CheckKind::kQ8, CheckKind::kQ4, CheckKind::kNpu}) {
    GateEvaluator e(k, {});
    EXPECT_TRUE(e.Finish().gates.empty());  // nothing recorded, nothing reported
  }
}

TEST(GateTable, F32PrefillLogitsPassAtTheToleranceAndFailPastIt) {
  GateResult g = Eval(CheckKind::kF32, "prefill logits", {{Quantity::kMaxAbs, 6.5e-5}, {Quantity::kMismatches, 0}});
  EXPECT_TRUE(g.passed);
  EXPECT_EQ(g.limit, "max |Δ| <= 1e-03 at every position, identical argmax");
  EXPECT_EQ(g.figure, "figure");
  EXPECT_TRUE(Eval(CheckKind::kF32, "prefill logits", {{Quantity::kMaxAbs, 1e-3}, {Quantity::kMismatches, 0}}).passed);
  // Negative controls: each condition alone fails the gate.
  EXPECT_FALSE(Eval(CheckKind::kF32, "prefill logits", {{Quantity::kMaxAbs, 2e-3}, {Quantity::kMismatches, 0}}).passed);
  EXPECT_FALSE(Eval(CheckKind::kF32, "prefill logits", {{Quantity::kMaxAbs, 6.5e-5}, {Quantity::kMismatches, 1}}).passed);
  EXPECT_FALSE(Eval(CheckKind::kF32, "prefill logits", {{Quantity::kMaxAbs, kNaN}, {Quantity::kMismatches, 0}}).passed);
  EXPECT_FALSE(Eval(CheckKind::kF32, "prefill logits", {{Quantity::kMaxAbs, 6.5e-5}}).passed);  // argmax not measured
}

TEST(GateTable, PixelToleranceFollowsWhetherTheImageWasResized) {
  GateResult exact = Eval(CheckKind::kF32, "pixel values", {{Quantity::kMaxAbs, 0.0}});
  EXPECT_TRUE(exact.passed);
  EXPECT_EQ(exact.limit, "max |Δ| <= 1e-06 (no resize)");
  GateResult resized = Eval(CheckKind::kF32, "pixel values", {{Quantity::kMaxAbsResized, 0.01}});
  EXPECT_TRUE(resized.passed);
  EXPECT_EQ(resized.limit, "max |Δ| <= 0.02 (resized)");
  EXPECT_FALSE(Eval(CheckKind::kF32, "pixel values", {{Quantity::kMaxAbs, 0.01}}).passed);
  EXPECT_FALSE(Eval(CheckKind::kF32, "pixel values", {}).passed);  // neither measured
}

TEST(GateTable, NegativeControlsMustTellOutputsApart) {
  EXPECT_TRUE(Eval(CheckKind::kF32, "negative control", {{Quantity::kControl, 4.64}}).passed);
  EXPECT_FALSE(Eval(CheckKind::kF32, "negative control", {{Quantity::kControl, 0.1}}).passed);  // must exceed
  EXPECT_TRUE(Eval(CheckKind::kNpu, "negative control (npu)", {{Quantity::kControl, -0.31}}).passed);
  // A step as near the next reference step as its own: the comparison cannot tell them apart.
  EXPECT_FALSE(Eval(CheckKind::kNpu, "negative control (npu)", {{Quantity::kControl, 0.0}}).passed);
  GateResult kl = Eval(CheckKind::kQ4, "negative control (KL)", {{Quantity::kControl, 0.5}});
  EXPECT_FALSE(kl.passed);
  EXPECT_EQ(kl.limit, "must exceed 2 × the mean-KL gate (0.6)");
}

TEST(GateTable, NpuSessionLogitsAreGatedAgainstTheLogitRange) {
  // tiny-a's measured 0.389 = 0.053 of its range passes; a wrong token on the path (~0.7 of the
  // range) fails, and so does a split the absolute |Δ| alone would not size (issue 30).
  auto session = [](double of_range, double mismatches) {
    return Eval(CheckKind::kNpu, "session logits",
                {{Quantity::kMaxAbs, of_range * 7.3}, {Quantity::kMaxAbsOfRange, of_range}, {Quantity::kMismatches, mismatches}});
  };
  EXPECT_TRUE(session(0.053, 0).passed);
  EXPECT_TRUE(session(0.006, 1).passed);  // the real head geometry: |Δ| 1.125 of a range of 186
  EXPECT_FALSE(session(0.7, 0).passed);
  EXPECT_FALSE(session(0.053, 3).passed);
  EXPECT_FALSE(Eval(CheckKind::kNpu, "session logits", {{Quantity::kMaxAbs, 0.389}, {Quantity::kMismatches, 0}}).passed);
}

TEST(GateTable, PrecisionGatesDifferByKind) {
  const std::vector<std::pair<Quantity, double>> kl = {{Quantity::kMeanKl, 9e-3}, {Quantity::kMaxKl, 2e-2}};
  EXPECT_FALSE(Eval(CheckKind::kQ8, "q8 KL divergence", kl).passed);
  EXPECT_TRUE(Eval(CheckKind::kQ4, "q4 KL divergence", kl).passed);
  GateResult top1 = Eval(CheckKind::kQ8, "q8 top-1 agreement", {{Quantity::kAgreement, 0.79}});
  EXPECT_FALSE(top1.passed);
  EXPECT_EQ(top1.limit, ">= 80%");
  EXPECT_TRUE(Eval(CheckKind::kQ8, "q8 top-1 agreement", {{Quantity::kAgreement, 81.0 / 94}}).passed);
  EXPECT_THROW(Eval(CheckKind::kQ8, "q4 KL divergence", kl), Error);  // another kind's gate
}

TEST(GateTable, QuantizedVisionEmbeddingsGatedAtCosine09999) {
  for (auto [kind, gate] : {std::pair{CheckKind::kBf16, "bf16 vision embeddings"},
                            std::pair{CheckKind::kQ8, "q8 vision embeddings"},
                            std::pair{CheckKind::kQ4, "q4 vision embeddings"}}) {
    EXPECT_TRUE(Eval(kind, gate, {{Quantity::kCosine, 0.99998}}).passed) << gate;
    EXPECT_FALSE(Eval(kind, gate, {{Quantity::kCosine, 0.99985}}).passed) << gate;  // one scale doubled
  }
}

TEST(GateTable, NpuDispatchesNeedBothKernelsAndNoFallback) {
  auto calls = [](double gemm, double gemv, double fallback) {
    return Eval(CheckKind::kNpu, "npu dispatches",
                {{Quantity::kGemmCalls, gemm}, {Quantity::kGemvCalls, gemv}, {Quantity::kFallbackCalls, fallback}});
  };
  EXPECT_TRUE(calls(136, 2395, 0).passed);
  EXPECT_EQ(calls(136, 2395, 0).limit, "GEMM and GEMV dispatches, no CPU fallback");
  EXPECT_FALSE(calls(0, 2395, 0).passed);
  EXPECT_FALSE(calls(136, 0, 0).passed);
  EXPECT_FALSE(calls(136, 2395, 1).passed);
}

TEST(GateTable, SkippedGateShowsItsLimitAndDoesNotFailTheReport) {
  GateResult g = Evaluate(CheckKind::kF32, "tokenizer", Skipped("no tokenizer_cases.json"));
  EXPECT_TRUE(g.skipped);
  EXPECT_FALSE(g.passed);
  EXPECT_EQ(g.limit, "every case: ids and decoded text identical");
  EXPECT_FALSE(Eval(CheckKind::kF32, "tokenizer", {{Quantity::kMismatches, 0}, {Quantity::kCount, 0}}).passed);  // no cases
}

TEST(GateEvaluator, ReportsInTableOrderAsSoonAsThePrefixIsRecorded) {
  std::vector<std::string> printed;
  GateEvaluator e(CheckKind::kF32, [&](const GateResult& g) { printed.push_back(g.name); });
  e.Record("chat template", {"9/9", {{Quantity::kMismatches, 0}, {Quantity::kCount, 9}}});
  EXPECT_TRUE(printed.empty());  // the tokenizer comes first in the table
  e.Record("tokenizer", Skipped("no tokenizer_cases.json"));
  EXPECT_EQ(printed, (std::vector<std::string>{"tokenizer", "chat template"}));
  e.Record("negative control", {"4.64", {{Quantity::kControl, 4.64}}});
  EXPECT_THROW(e.Record("negative control", {"again", {}}), Error);
  EXPECT_THROW(e.Record("no such gate", {"", {}}), Error);
  const CheckReport r = e.Finish();  // the gates never recorded (second turn, ...) are left out
  ASSERT_EQ(r.gates.size(), 3u);
  EXPECT_EQ(r.gates[2].name, "negative control");
  EXPECT_TRUE(r.passed());
}

TEST(GateTable, CheckKindFollowsBackendThenPrecision) {
  CheckOptions o;
  EXPECT_EQ(CheckKindFor(o), CheckKind::kF32);
  o.precision = Precision::kQ8;
  EXPECT_EQ(CheckKindFor(o), CheckKind::kQ8);
  o.backend = BackendKind::kNpuEmu;
  EXPECT_EQ(CheckKindFor(o), CheckKind::kNpu);
  o.backend = BackendKind::kCpu;
  o.precision = Precision::kAuto;
  EXPECT_THROW(CheckKindFor(o), Error);
}

}  // namespace
