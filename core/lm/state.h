#pragma once
// Mutable per-conversation state of the language model (design.md "Sessions and state").
// Plain values: copy it to snapshot a conversation at a turn boundary, assign it to restore.
//
// Thread contract: one forward at a time per state; a copy is independent of the original.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/model/config.h"

namespace glance::lm {

// Gated DeltaNet layer: what the next token needs from the past (qwen35.md §2.7).
struct LinearLayerState {
  std::vector<float> conv_tail;  // [Cd][K-1] last K-1 pre-conv qkv inputs per channel, oldest first
  std::vector<float> recurrent;  // [nv][dk][dv] f32 delta-rule state S
};

// Element type of an attention cache. kF32 for the float engines (the golden path, as HF
// keeps it); kF16 for the quantized engines (q8/q4): half the memory, each element rounded to
// the nearest IEEE half on write and widened exactly on read inside the attention kernels
// (kernels/cpu/attention.h), a relative error of at most 2^-11 per element. Half rather than
// bf16 (2^-8): on tiny-a's q8 check, a bf16 cache moved top-1 agreement from 77/94 rows to
// 74/94 (under the 80% gate), a half cache kept 77/94. Half's range (±65504, saturating) holds
// keys (RMS-normed) and any value a model's v_proj produces in practice (llama.cpp's default
// cache type is also f16).
enum class KvType : uint8_t { kF32, kF16 };

// Full-attention layer: keys (after k_norm + RoPE) and values. Grows by doubling so appending
// T tokens costs amortised O(T); rows past n_tokens are unused. Rows live in keys/values (kF32)
// or keys_f16/values_f16 (kF16, IEEE half bits); the other pair stays empty.
struct KvCache {
  int64_t n_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t capacity = 0;      // rows allocated per head
  KvType type = KvType::kF32;
  std::vector<float> keys;    // [n_kv_heads][capacity][head_dim]
  std::vector<float> values;  // [n_kv_heads][capacity][head_dim]
  std::vector<uint16_t> keys_f16, values_f16;  // the same layout, half bits

  // Ensures capacity >= n rows, keeping the first `used` rows of every head.
  void Reserve(int64_t n, int64_t used);
  // Writes row `pos` of head `head` from f32 (rounded to half in a kF16 cache).
  void SetKey(int64_t head, int64_t pos, const float* row);
  void SetValue(int64_t head, int64_t pos, const float* row);
  // Row (head, pos) as f32 (widened from half in a kF16 cache): tests and checks.
  void GetKey(int64_t head, int64_t pos, float* row) const;
  void GetValue(int64_t head, int64_t pos, float* row) const;
  // Bytes allocated for the rows (both pairs).
  size_t ByteSize() const;

  // Direct row access of a kF32 cache (a kF16 cache holds no f32 rows).
  float* key_row(int64_t head, int64_t pos) { return keys.data() + offset(head, pos); }
  float* value_row(int64_t head, int64_t pos) { return values.data() + offset(head, pos); }
  const float* key_row(int64_t head, int64_t pos) const { return keys.data() + offset(head, pos); }
  const float* value_row(int64_t head, int64_t pos) const { return values.data() + offset(head, pos); }
  // Direct row access of a kF16 cache.
  const uint16_t* key_row_f16(int64_t head, int64_t pos) const { return keys_f16.data() + offset(head, pos); }
  const uint16_t* value_row_f16(int64_t head, int64_t pos) const { return values_f16.data() + offset(head, pos); }

 private:
  size_t offset(int64_t head, int64_t pos) const {
    return static_cast<size_t>((head * capacity + pos) * head_dim);
  }
};

// The MTP drafter's own cache (core/lm/mtp.h): its attention layer sees one row per position
// p >= 1, made from the main model's final-normed hidden state at p-1 and the token at p
// (vLLM qwen3_5_mtp.py; the twin's mtp_hidden in tools/twin/model.py). Kept in step with the
// main cache by every forward while `active`, so snapshots carry it for free.
struct MtpState {
  bool active = false;              // LanguageModel::EnableMtp
  KvCache kv;                       // rows [0, n_rows) in use
  int64_t n_rows = 0;
  std::vector<float> last_hidden;   // [H] main final-normed hidden of the last row (empty: none)
};

// What the hidden attention of the Gated DeltaNet layers needs from the past (qwen35.md §2.9,
// core/lm/hidden_attention.h), kept only while `active` (LanguageModel::EnableHiddenAttention,
// which attention capture calls): capture off, nothing is stored and nothing computed.
// Tracked rows are the image rows (rows with an embedding override) and the first row of the
// sequence (cache position 0, the attention sink of the layer × head shares) from then on, or
// every row (every_row, for tests). For each tracked row j and value head h the layer keeps
// w_j = A_p ⋯ A_{j+1} β_j k̂_j, A_m = e^{g_m}(I − β_m k̂_m k̂_mᵀ), at p = the last folded row,
// so a later query q gives a_{t,j} = w_jᵀ·(A_{p+1} ⋯ A_t q).
struct HiddenAttentionState {
  bool active = false;
  bool every_row = false;
  // Tracking began at cache position 0, so z holds every earlier row and the row totals are
  // exact; false when capture was enabled on a state that already held tokens.
  bool totals_known = false;
  std::vector<int64_t> positions;  // cache positions of the folded tracked rows, ascending
  struct Layer {
    std::vector<std::vector<float>> w;  // [nv] -> [positions.size()][dk]
    // [nv] -> [dk]: z = Σ_j w_j over every folded row j, tracked or not (the delta rule with
    // v ≡ 1), so that Σ_j a_{t,j} = zᵀ·(A_{p+1} ⋯ A_t q) costs one more dot per query row: the
    // row totals of the layer × head shares (issue 36 item 5).
    std::vector<std::vector<float>> z;
    // The last forward's prepared rows, folded into w at the start of the next forward: lazily,
    // so that after a speculative verify (LmState::KeepTokens) only the kept rows are folded.
    std::vector<float> k;        // [pending_rows][nk·dk] k̂
    std::vector<float> beta, g;  // [pending_rows][nv] β and the log decay g
  };
  std::vector<Layer> layers;  // [num_hidden_layers]; empty entries for full-attention layers
  int64_t pending_first = 0;  // cache position of the pending rows' first row
  int64_t pending_rows = 0;
  std::vector<uint8_t> pending_tracked;  // [pending_rows] 1 = a tracked row

  void Clear();  // forgets every row (keeps `active` and `every_row`)
  size_t ByteSize() const;
};

// Gated DeltaNet states after each row of one forward (ForwardInput::row_states), for rolling
// a verify forward back to any of its rows: layers[layer][r] is the state after row r (left
// empty for full-attention layers). Per layer, so GatedDeltaNetForward fills a layer's rows in place.
struct RowStates {
  std::vector<std::vector<LinearLayerState>> layers;
};

struct LmState {
  LmState() = default;
  // Empty state (no tokens) shaped for `cfg`: zero conv tails and recurrent states,
  // empty KV caches of element type `kv_type`.
  explicit LmState(const TextConfig& cfg, KvType kv_type = KvType::kF32);

  std::vector<LinearLayerState> linear;  // [num_hidden_layers]; empty for full-attention layers
  std::vector<KvCache> kv;               // [num_hidden_layers]; empty for linear layers
  int64_t n_tokens = 0;    // tokens already in the cache (= index of the next token)
  MtpState mtp;
  HiddenAttentionState hidden;  // empty unless attention capture enabled it
  int64_t rope_delta = 0;  // M-RoPE offset of the prompt (qwen35.md §2.6); next text position
                           // is n_tokens + rope_delta

  // Clears all tokens (keeps allocations and rope_delta = 0).
  void Reset();
  // Keeps the first `n` tokens of a forward that ran rows [n_before, n_tokens) with
  // row_states (n_before < n <= n_tokens): the linear layers take the states after row
  // n - n_before - 1, the attention caches (and the MTP cache) drop the later rows, and the
  // MTP's last hidden becomes `hidden_row` [H] (may be null when MTP is off). The result is
  // the state a forward of only the first n - n_before rows would have left.
  void KeepTokens(int64_t n, int64_t n_before, const RowStates& row_states, const float* hidden_row);
  // Bytes held (allocated KV capacity included): what a snapshot of this state costs.
  size_t ByteSize() const;
  // Position of the next text token on all three M-RoPE axes.
  int64_t next_position() const { return n_tokens + rope_delta; }
};

}  // namespace glance::lm
