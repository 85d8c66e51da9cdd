#pragma once
// The Qwen3.5 hybrid language model on the CPU, f32 reference path (qwen35.md §2):
// embedding (+ image rows) → decoder layers (Gated DeltaNet or gated attention, then SwiGLU
// MLP, each pre-normed with RMSNorm(1 + w) and added to the residual) → final norm → LM head.
// Activations are f32; BF16/F16 weights are widened exactly, so on bf16-exact weights this
// follows HF's float32 forward.
//
// Thread contract: LanguageModel is immutable after Load and may be shared by threads; each
// Forward needs its own LmState. The TensorStore must outlive the model (weights are mapped).
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/lm/attention_observer.h"
#include "core/lm/gated_attention.h"
#include "core/lm/gated_deltanet.h"
#include "core/lm/lm_weights.h"
#include "core/lm/mrope.h"
#include "core/lm/state.h"
#include "core/model/config.h"

namespace glance {
class TensorStore;
}
namespace glance::kernels {
class ThreadPool;
class Backend;
}

namespace glance::lm {

// Replaces the token embedding of row `index` (0-based in this forward) by `row` [hidden] f32,
// e.g. one merged vision feature per image-placeholder token.
struct EmbeddingOverride {
  int64_t index = 0;
  const float* row = nullptr;
};

// Optional copies of internals, for tests and the check command. Costs nothing when absent.
struct LmTrace {
  std::vector<float> layer_out_last;   // [n_layers][H] each layer's output at the last row
  std::vector<float> final_norm_last;  // [H] final RMSNorm output at the last row
  int linear_layer = -1;               // layer whose Gated DeltaNet intermediates to copy
  LinearAttnTrace linear;
  int attn_layer = -1;                 // layer whose attention intermediates to copy
  AttnTrace attn;
};

struct ForwardInput {
  std::span<const int64_t> ids;  // [T] token ids, T >= 1, each in [0, vocab)
  // Dense embeddings [T][H] that replace every row's token embedding (ids still give T).
  const float* embeddings = nullptr;
  std::span<const EmbeddingOverride> overrides;  // applied after `embeddings`
  // M-RoPE positions [3][T] (rows t, h, w; see mrope.h). nullptr: text positions
  // state.n_tokens + state.rope_delta + i on all three axes (decode, text continuation).
  // The forward never changes state.rope_delta; set it from MropePositions at prefill.
  const int64_t* positions = nullptr;
  bool all_logits = false;  // false: logits of the last row only (no T×vocab buffer)
  DeltaRuleMode delta_rule = DeltaRuleMode::kAuto;
  LmTrace* trace = nullptr;
  // Called before each decoder layer (layer, num_hidden_layers); returning false stops the
  // forward there: `out` is left empty (n_rows 0) and `state` half-updated — discard it.
  // Lets a long prefill report progress and stop between layers.
  std::function<bool(int layer, int layers)> on_layer;
  // Speculative verify: receives the Gated DeltaNet states after each row but the last
  // (LmState::KeepTokens rolls back with them); those layers then run row by row.
  RowStates* row_states = nullptr;
};

struct ForwardOutput {
  int64_t n_rows = 0;         // T when all_logits, else 1
  int64_t vocab = 0;
  std::vector<float> logits;  // [n_rows][vocab] f32; the last row is the next-token logits
  // [T][hidden] final-normed hidden states of every row, when the state's MTP is active or
  // row_states was asked for (what the MTP drafter and a rollback need); else empty.
  std::vector<float> hidden;

  const float* last() const { return logits.data() + (n_rows - 1) * vocab; }
};

class LanguageModel {
 public:
  // Validates the config and loads/checks every text weight (glance::Error names what is wrong).
  static LanguageModel Load(const TensorStore& store, const TextConfig& cfg);
  // With the weights prepared per `plan` (EngineOptions::precision; prepared_weights.h).
  static LanguageModel Load(const TensorStore& store, const TextConfig& cfg,
                            const PrecisionPlan& plan, kernels::ThreadPool* pool);

  const TextConfig& config() const { return cfg_; }
  const LmWeights& weights() const { return weights_; }
  // Where projections run (null = CPU). Set once by the Engine at load, before sharing.
  void set_backend(const kernels::Backend* backend) { backend_ = backend; }
  // An empty state (no tokens) for this model, its attention caches in kv_type().
  LmState NewState() const { return LmState(cfg_, kv_type_); }
  // Element type of the attention caches: kF16 when the MLP projections are Q8/Q4 (prepared at
  // load or stored so), else kF32.
  KvType kv_type() const { return kv_type_; }

  // Starts tracking the Gated DeltaNet layers' hidden attention on `state` (what attention
  // capture needs; core/lm/hidden_attention.h): from the next forward on, its image rows (rows
  // with an embedding override; every row when every_row) are tracked, and an observer that
  // wants_hidden_attention() gets their weights. Costs O(tracked rows · dk) per row per value
  // head and layer, and that much memory; a no-op when already on. Snapshots carry it.
  void EnableHiddenAttention(LmState& state, bool every_row = false) const;

  // Whether the checkpoint has an MTP layer (`mtp.*`, core/lm/mtp.h).
  bool has_mtp() const { return weights_.mtp.has_value(); }
  // Keeps the MTP drafter's cache in step with every later Forward on `state` (its cost: one
  // extra decoder layer per row). Requires has_mtp(). Rows before this call stay unseen by it.
  void EnableMtp(LmState& state) const;
  // Drafts up to k tokens following `next` (the token at position state.n_tokens, not yet run)
  // by chaining the MTP layer; `pick` chooses each draft from its logits (vocab entries;
  // may modify them), and draft_logits, when given, receives them raw [k][vocab].
  // draft_vocab > 0: only ids [0, draft_vocab) are scored (the rest get -inf and are never
  // drafted; mtp.h DraftHeadRows) — on the CPU; an NPU backend scores them all.
  // Leaves `state` as it was. Returns no drafts when the MTP has no hidden state to start
  // from (inactive, or enabled after the last forward).
  std::vector<int64_t> Draft(LmState& state, int64_t next, int k,
                             const std::function<int64_t(std::span<float>)>& pick,
                             std::vector<float>* draft_logits, kernels::ThreadPool* pool,
                             int64_t draft_vocab = 0) const;

  // Runs T tokens on top of `state` (T > 1: prefill / continuation, T == 1: decode) and
  // appends them to it. Throws glance::Error on bad input (empty ids, id out of range,
  // override index out of range, a state of another shape) before touching the state.
  void Forward(const ForwardInput& in, LmState& state, ForwardOutput& out,
               kernels::ThreadPool* pool, AttentionObserver* observer = nullptr) const;

 private:
  LanguageModel(const TextConfig& cfg, LmWeights weights);
  void CheckInput(const ForwardInput& in, const LmState& state) const;
  // Extends the MTP cache by this forward's rows (hidden [T][H] final-normed).
  void AbsorbMtp(const ForwardInput& in, const float* hidden, const float* cos, const float* sin,
                 LmState& state, const kernels::Compute& cx) const;

  TextConfig cfg_;
  LmWeights weights_;
  RopeTable rope_;
  const kernels::Backend* backend_ = nullptr;
  KvType kv_type_ = KvType::kF32;
};

}  // namespace glance::lm
