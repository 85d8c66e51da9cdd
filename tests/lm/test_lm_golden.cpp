// The f32 language model against HF transformers' float32 run of tiny-a (README "The run").
// Gates (README "Measured tolerances"): logits max |diff| <= 1e-3 with identical argmax;
// intermediates and caches ~1e-4.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "core/lm/language_model.h"
#include "kernels/cpu/thread_pool.h"
#include "lm_fixture.h"

namespace glance::lm {
namespace {

using testing::Golden;
using testing::TinyModel;
using testing::Argmax;
using testing::GetGolden;
using testing::GetTinyModel;
using testing::MaxAbsDiff;

constexpr float kLogitTol = 1e-3f;
constexpr float kIntermediateTol = 1e-4f;
constexpr float kAttnTol = 1e-5f;

TEST(LmGolden, PrefillLogitsEveryPosition) {
  const Golden& g = GetGolden();
  const auto want = g.F32("prefill.logits");
  const testing::PrefillRun run = testing::RunGoldenPrefill(/*all_logits=*/true);
  const int64_t T = 71, V = 4096;
  ASSERT_EQ(run.out.n_rows, T);
  ASSERT_EQ(run.out.vocab, V);
  float worst = 0.0f;
  for (int64_t t = 0; t < T; ++t) {
    const float d = MaxAbsDiff(run.out.logits.data() + t * V, want.data() + t * V, V);
    worst = std::max(worst, d);
    EXPECT_LE(d, kLogitTol) << "position " << t;
    EXPECT_EQ(Argmax(run.out.logits.data() + t * V, V), Argmax(want.data() + t * V, V))
        << "position " << t;
  }
  std::printf("[measured] prefill logits max|diff| over 71x4096 = %.3g\n", static_cast<double>(worst));
}

TEST(LmGolden, LastRowOnlyEqualsAllRows) {
  const testing::PrefillRun all = testing::RunGoldenPrefill(true);
  const testing::PrefillRun last = testing::RunGoldenPrefill(false);
  ASSERT_EQ(last.out.n_rows, 1);
  ASSERT_EQ(last.out.logits.size(), 4096u);
  // The LM head runs as a GEMV for one row and as the packed GEMM for all rows: same values,
  // different summation order, so equal up to f32 rounding (not bitwise).
  EXPECT_LE(MaxAbsDiff(last.out.last(), all.out.last(), 4096), 1e-5f);
}

TEST(LmGolden, PrefillIntermediatesLayer0DeltaNetAndLayer3Attention) {
  const Golden& g = GetGolden();
  const testing::PrefillRun run = testing::RunGoldenPrefill(false);
  const LinearAttnTrace& la = run.trace.linear;
  struct Item { const char* name; const std::vector<float>* ours; };
  const Item items[] = {
      {"prefill.layer0.linear_attn.in_proj_qkv", &la.in_proj_qkv},
      {"prefill.layer0.linear_attn.in_proj_z", &la.in_proj_z},
      {"prefill.layer0.linear_attn.in_proj_b", &la.in_proj_b},
      {"prefill.layer0.linear_attn.in_proj_a", &la.in_proj_a},
      {"prefill.layer0.linear_attn.core_attn_out", &la.core_attn_out},
      {"prefill.layer0.linear_attn.gated_norm_out", &la.gated_norm_out},
      {"prefill.layer0.linear_attn.out_proj", &la.out_proj},
      {"prefill.layer3.self_attn.q_proj", &run.trace.attn.q_proj},
      {"prefill.layer3.self_attn.k_proj", &run.trace.attn.k_proj},
      {"prefill.layer3.self_attn.v_proj", &run.trace.attn.v_proj},
      {"prefill.layer3.self_attn.o_proj_in", &run.trace.attn.o_proj_in},
      {"prefill.layer3.self_attn_out", &run.trace.attn.out},
      {"prefill.layer_out_last_pos", &run.trace.layer_out_last},
      {"prefill.final_norm_last_pos", &run.trace.final_norm_last},
  };
  for (const Item& it : items) {
    const auto want = g.F32(it.name);
    ASSERT_EQ(it.ours->size(), want.size()) << it.name;
    const float d = MaxAbsDiff(*it.ours, want);
    EXPECT_LE(d, kIntermediateTol) << it.name;
    std::printf("[measured] %-45s max|diff| = %.3g\n", it.name, static_cast<double>(d));
  }
}

TEST(LmGolden, PrefillCachesAllLayers) {
  const Golden& g = GetGolden();
  const TinyModel& m = GetTinyModel();
  const testing::PrefillRun run = testing::RunGoldenPrefill(false);
  const TextConfig& c = m.cfg.text;
  EXPECT_EQ(run.state.n_tokens, 71);
  const int64_t K = c.linear_conv_kernel_dim, Cd = c.conv_dim();
  for (int li = 0; li < c.num_hidden_layers; ++li) {
    const std::string p = "prefill.cache.layer" + std::to_string(li) + ".";
    if (c.layer_types[static_cast<size_t>(li)] == LayerType::kLinearAttention) {
      // HF keeps K columns; the oldest is never read again — compare the last K-1.
      const auto conv = g.F32(p + "conv_state");
      const auto& tail = run.state.linear[static_cast<size_t>(li)].conv_tail;
      float d = 0.0f;
      for (int64_t ch = 0; ch < Cd; ++ch)
        for (int64_t r = 0; r < K - 1; ++r)
          d = std::max(d, std::fabs(tail[static_cast<size_t>(ch * (K - 1) + r)] -
                                    conv[static_cast<size_t>(ch * K + r + 1)]));
      EXPECT_LE(d, kIntermediateTol) << p << "conv_state";
      const float dr = MaxAbsDiff(run.state.linear[static_cast<size_t>(li)].recurrent,
                                  g.F32(p + "recurrent_state"));
      EXPECT_LE(dr, kIntermediateTol) << p << "recurrent_state";
      std::printf("[measured] layer %d conv %.3g recurrent %.3g\n", li, static_cast<double>(d),
                  static_cast<double>(dr));
    } else {
      const KvCache& kv = run.state.kv[static_cast<size_t>(li)];
      const auto keys = g.F32(p + "keys"), values = g.F32(p + "values");
      float dk = 0.0f, dv = 0.0f;
      for (int64_t h = 0; h < kv.n_kv_heads; ++h)
        for (int64_t t = 0; t < 71; ++t) {
          const size_t off = static_cast<size_t>((h * 71 + t) * kv.head_dim);
          dk = std::max(dk, MaxAbsDiff(kv.key_row(h, t), keys.data() + off, static_cast<size_t>(kv.head_dim)));
          dv = std::max(dv, MaxAbsDiff(kv.value_row(h, t), values.data() + off, static_cast<size_t>(kv.head_dim)));
        }
      EXPECT_LE(dk, kIntermediateTol) << p << "keys";
      EXPECT_LE(dv, kIntermediateTol) << p << "values";
      std::printf("[measured] layer %d keys %.3g values %.3g\n", li, static_cast<double>(dk),
                  static_cast<double>(dv));
    }
  }
}

TEST(LmGolden, PrefillAttentionLastRow) {
  const Golden& g = GetGolden();
  const testing::PrefillRun run = testing::RunGoldenPrefill(false);
  for (int layer : {3, 7}) {
    ASSERT_TRUE(run.attn.rows.count(layer)) << layer;
    EXPECT_EQ(run.attn.n_keys.at(layer), 71);
    const float d = MaxAbsDiff(run.attn.rows.at(layer),
                               g.F32("prefill.attn_last_pos.layer" + std::to_string(layer)));
    EXPECT_LE(d, kAttnTol) << "layer " << layer;
    std::printf("[measured] prefill attention layer %d max|diff| = %.3g\n", layer, static_cast<double>(d));
  }
  EXPECT_EQ(run.attn.rows.size(), 2u);  // only the full-attention layers report
}

// Greedy decode through the recurrent T = 1 path, then the turn-2 chunked continuation.
TEST(LmGolden, DecodeThenTurn2Continuation) {
  const Golden& g = GetGolden();
  const TinyModel& m = GetTinyModel();
  const int64_t L = 71, V = 4096, nh = 4, W = 94;
  kernels::ThreadPool pool(2);
  testing::PrefillRun run = testing::RunGoldenPrefill(false);
  const auto tokens = g.I64("decode.tokens");
  const auto logits = g.F32("decode.logits");
  const auto attn3 = g.F32("decode.attn.layer3"), attn7 = g.F32("decode.attn.layer7");
  ASSERT_EQ(tokens.size(), 24u);

  EXPECT_LE(MaxAbsDiff(run.out.last(), logits.data(), V), kLogitTol);
  EXPECT_EQ(Argmax(run.out.last(), V), tokens[0]);

  float worst = 0.0f, worst_attn = 0.0f;
  for (int64_t s = 0; s + 1 < 24; ++s) {
    const int64_t id = tokens[static_cast<size_t>(s)];
    ForwardInput in;
    in.ids = std::span<const int64_t>(&id, 1);
    ForwardOutput out;
    testing::LastRowRecorder rec;
    m.model.Forward(in, run.state, out, &pool, &rec);
    const float* want = logits.data() + (s + 1) * V;
    const float d = MaxAbsDiff(out.last(), want, V);
    worst = std::max(worst, d);
    EXPECT_LE(d, kLogitTol) << "decode step " << s + 1;
    EXPECT_EQ(Argmax(out.last(), V), tokens[static_cast<size_t>(s + 1)]) << "decode step " << s + 1;
    // Attention of step s+1 over its L+s+1 keys (golden rows zero-padded to 94).
    const int64_t n = L + s + 1;
    for (int layer : {3, 7}) {
      const auto& gold = layer == 3 ? attn3 : attn7;
      ASSERT_EQ(rec.n_keys.at(layer), n);
      for (int64_t h = 0; h < nh; ++h) {
        const float da = MaxAbsDiff(rec.rows.at(layer).data() + h * n,
                                    gold.data() + ((s + 1) * nh + h) * W, static_cast<size_t>(n));
        worst_attn = std::max(worst_attn, da);
        EXPECT_LE(da, kAttnTol) << "layer " << layer << " step " << s + 1 << " head " << h;
      }
    }
  }
  std::printf("[measured] decode logits max|diff| over 23 steps = %.3g, attention %.3g\n",
              static_cast<double>(worst), static_cast<double>(worst_attn));
  ASSERT_EQ(run.state.n_tokens, 94);

  // Turn 2 (README "Turn 2"): the last generated token + suffix as one chunked forward on top
  // of the cache, at positions cache length + rope delta.
  LmState snapshot = run.state;  // sessions snapshot here; the copy must be independent
  const auto suffix = g.I64("turn2.suffix_ids");
  std::vector<int64_t> ids = {tokens[23]};
  ids.insert(ids.end(), suffix.begin(), suffix.end());
  ASSERT_EQ(ids.size(), 23u);
  const auto t2_tokens = g.I64("turn2.tokens");
  const auto t2_logits = g.F32("turn2.logits");
  const auto scratch = g.F32("turn2.scratch_next_logits");
  ForwardInput in;
  in.ids = ids;
  ForwardOutput out;
  m.model.Forward(in, run.state, out, &pool);
  EXPECT_EQ(out.n_rows, 1);
  float d2 = MaxAbsDiff(out.last(), t2_logits.data(), V);
  EXPECT_LE(d2, kLogitTol) << "turn 2 step 0";
  EXPECT_LE(MaxAbsDiff(out.last(), scratch.data(), V), kLogitTol) << "turn 2 vs from-scratch";
  EXPECT_EQ(Argmax(out.last(), V), t2_tokens[0]);
  for (int64_t s = 0; s + 1 < 16; ++s) {
    const int64_t id = t2_tokens[static_cast<size_t>(s)];
    ForwardInput di;
    di.ids = std::span<const int64_t>(&id, 1);
    m.model.Forward(di, run.state, out, &pool);
    const float d = MaxAbsDiff(out.last(), t2_logits.data() + (s + 1) * V, V);
    d2 = std::max(d2, d);
    EXPECT_LE(d, kLogitTol) << "turn 2 step " << s + 1;
    EXPECT_EQ(Argmax(out.last(), V), t2_tokens[static_cast<size_t>(s + 1)]) << "turn 2 step " << s + 1;
  }
  EXPECT_EQ(run.state.n_tokens, 94 + 23 + 15);
  std::printf("[measured] turn 2 logits max|diff| over 16 steps = %.3g\n", static_cast<double>(d2));

  // The snapshot was untouched by turn 2: replaying from it gives the same first logits.
  EXPECT_EQ(snapshot.n_tokens, 94);
  ForwardOutput again;
  m.model.Forward(in, snapshot, again, nullptr);
  EXPECT_LE(MaxAbsDiff(again.last(), t2_logits.data(), V), kLogitTol);
  EXPECT_GT(snapshot.ByteSize(), 0u);
}

TEST(LmGolden, NegativeControlsFailTheGate) {
  const Golden& g = GetGolden();
  const auto logits = g.F32("decode.logits");
  const int64_t V = 4096;
  // 1. Off-by-one step: golden step k vs step k+1 differ far beyond the gate (README: 4.64).
  float min_shift = 1e30f;
  for (int64_t k = 0; k + 1 < 24; ++k)
    min_shift = std::min(min_shift, MaxAbsDiff(logits.data() + k * V, logits.data() + (k + 1) * V, V));
  EXPECT_GT(min_shift, 100 * kLogitTol);
  // 2. Plain 1-D positions instead of the M-RoPE grid (and no rope delta): the prefill gate fails.
  const testing::PrefillRun wrong = testing::RunGoldenPrefill(true, DeltaRuleMode::kAuto, false);
  const auto want = g.F32("prefill.logits");
  const float d = MaxAbsDiff(wrong.out.logits, want);
  std::printf("[measured] negative controls: step shift %.3g, 1-D positions %.3g\n",
              static_cast<double>(min_shift), static_cast<double>(d));
  EXPECT_GT(d, 10 * kLogitTol);
}

}  // namespace
}  // namespace glance::lm
