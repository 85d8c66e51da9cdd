// The MTP drafter (core/lm/mtp.h) on the shipped demo model, whose MTP layer was trained by the
// twin: its outputs against the twin's (tests/lm/data/mtp_reference.safetensors, written by
// tests/lm/make_mtp_reference.py), the cache kept by every forward, drafting, and the rollback
// of a verify forward (LmState::KeepTokens).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/lm/language_model.h"
#include "core/lm/mrope.h"
#include "core/lm/mtp.h"
#include "core/model/config.h"
#include "core/model/safetensors.h"
#include "core/engine/sampler.h"
#include "core/util/error.h"
#include "core/util/sha256.h"
#include "golden.h"

namespace glance::lm {
namespace {

// GLANCE_DEMO_TEST_MODEL (as in tests/demo): another copy of the demo model (e.g. the committed
// one while it is being retrained in the working tree).
const std::string kDemo = std::getenv("GLANCE_DEMO_TEST_MODEL") ? std::getenv("GLANCE_DEMO_TEST_MODEL")
                                                                : std::string(GLANCE_TEST_DATA) + "/../../resources/demo-model";
const std::string kReference = std::string(GLANCE_TEST_DATA) + "/../lm/data/mtp_reference.safetensors";

struct Demo {
  TensorStore store = TensorStore::OpenFolder(kDemo);
  ModelConfig cfg = ModelConfig::FromFile(kDemo + "/config.json");
  LanguageModel model = LanguageModel::Load(store, cfg.text);
};
const Demo& GetDemo() {
  static const Demo d;
  return d;
}

struct Reference {
  TensorStore store = TensorStore::OpenFiles({kReference});
  std::vector<int64_t> I64(const std::string& name) const { return testing::ReadI64(store, name); }
  std::vector<float> F32(const std::string& name) const { return store.Get(name).ToF32(); }
  // The reference was computed for this demo model (else the demo model was retrained since:
  // run tests/lm/make_mtp_reference.py and commit its output with the model).
  bool ForThisModel() const {
    static const char* hex = "0123456789abcdef";
    std::string want;
    for (int64_t b : I64("model.sha256")) {
      want += hex[(b >> 4) & 15];
      want += hex[b & 15];
    }
    return want == Sha256File(kDemo + "/model.safetensors");
  }
};

// A stale reference fails rather than skips: a retrained demo model committed without its
// reference would otherwise leave the MTP layer untested with every test green.
#define REQUIRE_REFERENCE_FITS(ref)                                                                  \
  if (!(ref).ForThisModel())                                                                         \
  GTEST_FAIL() << "tests/lm/data/mtp_reference.safetensors was computed for another demo model; "   \
                  "regenerate it: /usr/bin/python3 tests/lm/make_mtp_reference.py"

using testing::MaxAbsDiff;

// The C++ MTP over rows t = 0..T-2 (main hidden t, token t+1, at position t+1), with the
// main hidden rows shifted by `shift` (0 = right; 1 = a wrong pairing, the negative control).
std::vector<float> MtpRows(const Demo& d, const std::vector<int64_t>& ids, int shift) {
  LmState st = d.model.NewState();
  d.model.EnableMtp(st);
  ForwardInput in;
  in.ids = ids;
  ForwardOutput out;
  d.model.Forward(in, st, out, nullptr);
  const int64_t T = static_cast<int64_t>(ids.size()), H = d.cfg.text.hidden_size;
  EXPECT_EQ(static_cast<int64_t>(out.hidden.size()), T * H);
  const RopeTable rope(d.cfg.text);
  const int rot = rope.rotary_dim();
  const std::vector<int64_t> pos = TextPositions(1, 0, T - 1);
  std::vector<float> cos(static_cast<size_t>((T - 1) * rot)), sin(cos.size());
  rope.Compute(pos.data(), T - 1, T - 1, cos.data(), sin.data());
  std::vector<float> hidden(static_cast<size_t>((T - 1) * H));
  for (int64_t t = 0; t + 1 < T; ++t) {
    const int64_t src = std::min<int64_t>(t + shift, T - 1);
    std::copy_n(out.hidden.data() + src * H, H, hidden.data() + t * H);
  }
  MtpState fresh;
  fresh.kv.n_kv_heads = d.cfg.text.num_key_value_heads;
  fresh.kv.head_dim = d.cfg.text.head_dim;
  std::vector<float> mtp(hidden.size());
  MtpForward(*d.model.weights().mtp, d.cfg.text, d.model.weights().embed, hidden.data(),
             std::span<const int64_t>(ids).subspan(1), cos.data(), sin.data(), fresh, mtp.data(), {});
  EXPECT_EQ(fresh.n_rows, T - 1);
  return mtp;
}

TEST(Mtp, DemoModelHasOneAndTinyADoesNot) {
  EXPECT_TRUE(GetDemo().model.has_mtp());
  const std::string tiny = std::string(GLANCE_TEST_DATA) + "/tiny-a";
  const TensorStore store = TensorStore::OpenFolder(tiny);
  const LanguageModel m = LanguageModel::Load(store, ModelConfig::FromFile(tiny + "/config.json").text);
  EXPECT_FALSE(m.has_mtp());
  LmState st = m.NewState();
  EXPECT_THROW(m.EnableMtp(st), Error);
}

TEST(Mtp, MatchesTheTwin) {
  const Demo& d = GetDemo();
  const Reference ref;
  REQUIRE_REFERENCE_FITS(ref);
  const std::vector<int64_t> ids = ref.I64("ids");
  const std::vector<float> want = ref.F32("mtp.hidden");
  const std::vector<float> got = MtpRows(d, ids, 0);
  ASSERT_EQ(got.size(), want.size());
  const float diff = MaxAbsDiff(got.data(), want.data(), got.size());
  std::printf("C++ MTP vs the twin: max |diff| %.2e over %zu values\n", static_cast<double>(diff), got.size());
  EXPECT_LT(diff, 2e-4f) << "C++ MTP vs the twin, max |diff| of the normed MTP outputs";
  // Negative control: pairing hidden t+1 with token t+1 (off by one) is far from the twin.
  const std::vector<float> wrong = MtpRows(d, ids, 1);
  EXPECT_GT(MaxAbsDiff(wrong.data(), want.data(), wrong.size()), 100 * std::max(diff, 1e-5f));
  // And the head over them picks the twin's tokens.
  const int64_t H = d.cfg.text.hidden_size, V = d.cfg.text.vocab_size;
  const std::vector<int64_t> argmax = ref.I64("mtp.argmax");
  std::vector<float> logits(static_cast<size_t>(V));
  for (size_t r = 0; r < argmax.size(); ++r) {
    kernels::Matmul(got.data() + static_cast<int64_t>(r) * H, 1, d.model.weights().lm_head, nullptr, logits.data(),
                    nullptr);
    EXPECT_EQ(Argmax(logits.data(), V), argmax[r]) << "row " << r;
  }
}

int64_t PickArgmax(std::span<float> logits) { return Argmax(logits.data(), static_cast<int64_t>(logits.size())); }

TEST(Mtp, CacheKeptByForwardsAndDraftMatchTheTwin) {
  // Prefill all but the last id in two chunks (the MTP cache follows both), then draft from
  // the last id: the draft row is the twin's last MTP row.
  const Demo& d = GetDemo();
  const Reference ref;
  REQUIRE_REFERENCE_FITS(ref);
  const std::vector<int64_t> ids = ref.I64("ids");
  const size_t T = ids.size();
  LmState st = d.model.NewState();
  d.model.EnableMtp(st);
  ForwardOutput out;
  ForwardInput a;
  a.ids = std::span<const int64_t>(ids).subspan(0, 5);
  d.model.Forward(a, st, out, nullptr);
  ForwardInput b;
  b.ids = std::span<const int64_t>(ids).subspan(5, T - 6);
  d.model.Forward(b, st, out, nullptr);
  EXPECT_EQ(st.mtp.n_rows, static_cast<int64_t>(T) - 2);
  std::vector<float> draft_logits;
  const LmState before = st;
  const std::vector<int64_t> drafts = d.model.Draft(st, ids[T - 1], 2, PickArgmax, &draft_logits, nullptr);
  ASSERT_EQ(drafts.size(), 2u);
  EXPECT_EQ(drafts[0], ref.I64("mtp.argmax").back());
  const std::vector<float> want = ref.F32("mtp.logits_last");
  EXPECT_LT(MaxAbsDiff(draft_logits.data(), want.data(), want.size()), 2e-3f);
  // Drafting leaves the state as it was.
  EXPECT_EQ(st.mtp.n_rows, before.mtp.n_rows);
  EXPECT_EQ(st.n_tokens, before.n_tokens);
  EXPECT_EQ(st.mtp.last_hidden, before.mtp.last_hidden);
}

TEST(Mtp, NoDraftsWithoutAHiddenState) {
  const Demo& d = GetDemo();
  LmState st = d.model.NewState();
  EXPECT_TRUE(d.model.Draft(st, 5, 2, PickArgmax, nullptr, nullptr).empty());  // MTP off
  d.model.EnableMtp(st);
  EXPECT_TRUE(d.model.Draft(st, 5, 2, PickArgmax, nullptr, nullptr).empty());  // nothing run yet
}

// A verify forward of k+1 rows rolled back to j rows leaves the state a j-row forward leaves:
// recurrent states and conv tails bit for bit given the same rows (both run row by row), the
// attention and MTP caches truncated, and the next forward's logits the same.
TEST(Mtp, KeepTokensRollsAVerifyForwardBack) {
  const Demo& d = GetDemo();
  const std::vector<int64_t> prompt = {4058, 882, 198, 74, 1521, 300, 2087};
  const std::vector<int64_t> rows = {45, 1003, 17, 3999};
  LmState base = d.model.NewState();
  d.model.EnableMtp(base);
  ForwardOutput out;
  ForwardInput p;
  p.ids = prompt;
  d.model.Forward(p, base, out, nullptr);
  for (int keep = 1; keep <= 3; ++keep) {
    LmState verify = base;
    RowStates rs;
    ForwardInput v;
    v.ids = rows;
    v.all_logits = true;
    v.row_states = &rs;
    ForwardOutput vout;
    d.model.Forward(v, verify, vout, nullptr);
    ASSERT_EQ(rs.layers.size(), static_cast<size_t>(d.cfg.text.num_hidden_layers));
    for (const auto& layer : rs.layers) ASSERT_EQ(layer.size(), rows.size() - 1);
    const int64_t H = d.cfg.text.hidden_size;
    verify.KeepTokens(base.n_tokens + keep, base.n_tokens, rs, vout.hidden.data() + (keep - 1) * H);

    LmState plain = base;
    for (int i = 0; i < keep; ++i) {  // decode steps, one row each
      ForwardInput one;
      one.ids = std::span<const int64_t>(rows).subspan(static_cast<size_t>(i), 1);
      d.model.Forward(one, plain, out, nullptr);
    }
    EXPECT_EQ(verify.n_tokens, plain.n_tokens);
    EXPECT_EQ(verify.mtp.n_rows, plain.mtp.n_rows);
    float state_diff = 0.0f;
    for (size_t li = 0; li < plain.linear.size(); ++li) {
      const auto& a = verify.linear[li].recurrent;
      const auto& b = plain.linear[li].recurrent;
      ASSERT_EQ(a.size(), b.size());
      state_diff = std::max(state_diff, MaxAbsDiff(a.data(), b.data(), a.size()));
    }
    // Only the projections' summation order differs (multi-row vs one-row kernels).
    EXPECT_LT(state_diff, 1e-4f) << "keep " << keep;
    EXPECT_LT(MaxAbsDiff(verify.mtp.last_hidden.data(), plain.mtp.last_hidden.data(), static_cast<size_t>(H)), 1e-4f);
    // Both continue alike.
    ForwardInput next;
    const int64_t id = 512;
    next.ids = std::span<const int64_t>(&id, 1);
    ForwardOutput o1, o2;
    d.model.Forward(next, verify, o1, nullptr);
    d.model.Forward(next, plain, o2, nullptr);
    EXPECT_LT(MaxAbsDiff(o1.last(), o2.last(), static_cast<size_t>(o1.vocab)), 1e-3f);
    EXPECT_EQ(Argmax(o1.last(), o1.vocab), Argmax(o2.last(), o2.vocab));
  }
}

}  // namespace
}  // namespace glance::lm
