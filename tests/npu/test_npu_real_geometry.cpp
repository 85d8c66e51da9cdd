// The NPU gates off tiny-a: a random checkpoint with the released models' head geometry
// (real_geometry_model.h: the 4B's attention head_dim 256 with 16 query / 4 KV heads and
// DeltaNet 16 key / 32 value heads of 128), hidden sizes shrunk (hidden 256, MLP 640 so down has 3 K slices, 4 layers, vocabulary
// 4096), run through --backend npu-emu (the fused dispatch) and compared with the f32 CPU engine
// on the same weights — the role Hugging Face's golden plays for tiny-a — with the NPU gate
// table's limits (gate_table.cpp) for prefill logits, teacher-forced decode, and the split the
// Session makes (a row fed alone runs the GEMVs, the same row in a prompt the GEMM).
// Figures are printed; the gates must hold.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/checks/gate_table.h"
#include "core/engine/engine.h"
#include "core/lm/language_model.h"
#include "core/model/random_init.h"
#include "core/model/random_model.h"
#include "core/model/safetensors_writer.h"
#include "core/model/tensor_manifest.h"
#include "tests/npu/real_geometry_model.h"

namespace glance {
namespace {

namespace fs = std::filesystem;

double Cosine(const float* a, const float* b, int64_t n) {
  double ab = 0, aa = 0, bb = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double x = a[i], y = b[i];
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  return ab / std::sqrt(aa * bb);
}

int64_t Argmax(const float* p, int64_t n) { return std::max_element(p, p + n) - p; }

bool Gate(const std::string& gate, std::vector<std::pair<checks::Quantity, double>> values) {
  const checks::GateResult r = checks::Evaluate(checks::CheckKind::kNpu, gate, checks::Measurement{"", std::move(values)});
  EXPECT_TRUE(r.passed) << gate << " " << r.limit;
  return r.passed;
}

TEST(NpuRealGeometry, TheNpuGatesHoldOnTheReleasedHeadGeometry) {
  const fs::path dir = MakeRealGeometryModel();
  EngineOptions o;
  o.threads = 2;
  o.precision = Precision::kF32;
  o.backend = BackendKind::kCpu;
  const auto cpu = Engine::Load(dir.string(), o);
  o.backend = BackendKind::kNpuEmu;
  const auto npu = Engine::Load(dir.string(), o);
  const int64_t V = cpu->config().text.vocab_size, L = 60, steps = 16;
  std::mt19937 rng(3);
  std::vector<int64_t> ids(static_cast<size_t>(L));
  for (auto& id : ids) id = std::uniform_int_distribution<int64_t>(0, 4000)(rng);

  // Prefill, every row's logits.
  lm::ForwardInput in;
  in.ids = ids;
  in.all_logits = true;
  lm::LmState cs = cpu->lm().NewState(), ns = npu->lm().NewState();
  lm::ForwardOutput co, no;
  cpu->lm().Forward(in, cs, co, cpu->pool());
  npu->lm().Forward(in, ns, no, npu->pool());
  double sum = 0, min_cos = 1;
  int top1 = 0;
  for (int64_t r = 0; r < L; ++r) {
    const double c = Cosine(co.logits.data() + r * V, no.logits.data() + r * V, V);
    sum += c;
    min_cos = std::min(min_cos, c);
    top1 += Argmax(co.logits.data() + r * V, V) == Argmax(no.logits.data() + r * V, V);
  }
  std::printf("real geometry prefill: cosine mean %.5f min %.5f, top-1 %d/%lld\n", sum / L, min_cos, top1,
              static_cast<long long>(L));
  Gate("prefill logits cosine", {{checks::Quantity::kMeanCosine, sum / L}, {checks::Quantity::kMinCosine, min_cos}});
  Gate("prefill top-1", {{checks::Quantity::kAgreement, static_cast<double>(top1) / L}});

  // Decode, teacher-forced on the f32 engine's greedy tokens.
  int agree = 0;
  double dmin = 1;
  int64_t next = Argmax(co.logits.data() + (L - 1) * V, V);
  lm::ForwardInput step;
  for (int64_t s = 0; s < steps; ++s) {
    step.ids = std::span<const int64_t>(&next, 1);
    cpu->lm().Forward(step, cs, co, cpu->pool());
    npu->lm().Forward(step, ns, no, npu->pool());
    dmin = std::min(dmin, Cosine(co.last(), no.last(), V));
    const int64_t want = Argmax(co.last(), V);
    agree += Argmax(no.last(), V) == want;
    next = want;
  }
  std::printf("real geometry decode: %d/%lld tokens, min cosine %.5f\n", agree, static_cast<long long>(steps), dmin);
  Gate("decode (teacher-forced)", {{checks::Quantity::kAgreement, static_cast<double>(agree) / steps},
                                   {checks::Quantity::kMinCosine, dmin}});

  // The Session's split: the prompt's last row fed alone (GEMVs, host SwiGLU) against the same
  // row inside the prompt (GEMM, epilogue SwiGLU).
  lm::LmState a = npu->lm().NewState(), b = npu->lm().NewState();
  lm::ForwardOutput whole, part;
  in.all_logits = false;
  npu->lm().Forward(in, a, whole, npu->pool());
  in.ids = std::span<const int64_t>(ids.data(), ids.size() - 1);
  npu->lm().Forward(in, b, part, npu->pool());
  step.ids = std::span<const int64_t>(&ids.back(), 1);
  npu->lm().Forward(step, b, part, npu->pool());
  double dmax = 0;
  for (int64_t i = 0; i < V; ++i) dmax = std::max(dmax, static_cast<double>(std::fabs(whole.last()[i] - part.last()[i])));
  const bool same = Argmax(whole.last(), V) == Argmax(part.last(), V);
  const auto [lo, hi] = std::minmax_element(whole.last(), whole.last() + V);
  const double of_range = dmax / static_cast<double>(*hi - *lo);
  std::printf("real geometry split: max |Δ| %.4f (%.4f of the logit range %.2f), argmax %s\n", dmax, of_range,
              static_cast<double>(*hi - *lo), same ? "equal" : "differs");
  Gate("session logits", {{checks::Quantity::kMaxAbs, dmax},
                          {checks::Quantity::kMaxAbsOfRange, of_range},
                          {checks::Quantity::kMismatches, same ? 0.0 : 1.0}});
  EXPECT_GT(dmax, 0.0);  // the split is real: the two paths do differ
  fs::remove_all(dir);
}

}  // namespace
}  // namespace glance
