#pragma once
// Value types that flow out of the engine: stats, timing, attention maps, image facts.
// Plain data (copyable, no pointers into the engine) so the GUI can pass them across threads
// by queued signals, and glance-cli can print them as JSON.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/engine_options.h"

namespace glance {

// What an attached image became.
struct ImageInfo {
  std::string path;     // empty for pasted pixels
  std::string sha256;   // of the file bytes (or of the RGB pixels when pasted)
  int source_w = 0, source_h = 0;
  int resized_w = 0, resized_h = 0;  // what the vision tower saw
  int grid_w = 0, grid_h = 0;        // merged token grid (7×7 for a 224×224 fast-mode image)
  int tokens() const { return grid_w * grid_h; }
  ImageMode mode = ImageMode::kFast;
};

// The softmax attention of one generated token over one image's token grid.
struct AttentionMap {
  int step = 0;            // 0 = first generated token (from the last prefill row)
  int32_t token_id = 0;
  std::string token_text;  // the token's own text (may be a partial UTF-8 sequence rendered lossy)
  int image_index = 0;     // which image of the conversation (0-based)
  int grid_h = 0, grid_w = 0;
  std::vector<int> layers;  // full-attention layer indices, in order
  int n_heads = 0;
  // [layers.size()][n_heads][grid_h*grid_w], raw softmax weights on the image tokens.
  std::vector<float> weights;
  // [grid_h*grid_w] mean over all layers and heads.
  std::vector<float> mean;

  // The Gated DeltaNet layers' hidden attention (docs/qwen35.md §2.9): a_{t,j}, the weight the
  // layer's output gives image token j's value, o_t = Σ_j a_{t,j} v_j. Kept apart from the
  // softmax data above (whose layout the GUI, the server and saved chats read): these are
  // signed and do not sum to 1. Empty when the image's rows were prefilled without capture.
  std::vector<int> linear_layers;  // DeltaNet layer indices, in order
  int linear_heads = 0;            // value heads
  // [linear_layers.size()][linear_heads][grid_h*grid_w]
  std::vector<float> linear_weights;

  // The layer × head shares (issue 36 item 5): where the token's attention went, per layer and
  // head, as three fractions — on this image's tokens, on the text (every other token, other
  // images and earlier answers included), and on the attention sink: the sequence's first token
  // (cache position 0, always <|im_start|>; Xiao et al. 2023, "Efficient Streaming Language
  // Models with Attention Sinks", arXiv:2309.17453). [layers.size()][n_heads][3] in the order
  // image, text, sink: sums over the softmax row, so they add up to 1. Empty when not captured
  // (or not saved with a reopened chat: ui/attention_codec.h).
  std::vector<float> shares;
  // [linear_layers.size()][linear_heads][3]: the same for the DeltaNet layers' hidden attention,
  // as fractions of the signed total Σ_j a_{t,j} over every earlier token (docs/qwen35.md §2.9):
  // they add up to 1 but a share can leave [0, 1]. Empty when the total is unknown (capture
  // began after the sequence's first token).
  std::vector<float> linear_shares;
  // The layouts of `shares` and `linear_shares` where they differ from the weights' (a map
  // reopened from a saved chat keeps every head's shares though its weights may have been saved
  // as layer means or the mean alone): the layer indices and heads per layer. Empty: `layers` ×
  // `n_heads` and `linear_layers` × `linear_heads`, as captured.
  std::vector<int> share_layers, linear_share_layers;
  int share_heads = 0, linear_share_heads = 0;

  // One layer (index into `layers`, or -1 = mean of all) and one head (-1 = mean of all).
  std::vector<float> Select(int layer_slot, int head) const;
  // The same over the DeltaNet layers' hidden attention (index into `linear_layers`).
  std::vector<float> SelectLinear(int layer_slot, int head) const;
};

// A word of the answer made of consecutive tokens, for the attention panel's chips.
struct AttentionWord {
  std::string text;
  int first_step = 0, last_step = 0;  // inclusive range of AttentionMap::step
};

struct StageTime {
  std::string name;  // "preprocess", "vision", "prefill", "decode", "sample", "cpu:matmul", ...
  double seconds = 0.0;
  int64_t calls = 0;
  // Of `seconds` (stages only, not the per-kernel entries): in the backend's device dispatches
  // and in moving their data (Backend::DeviceTotals); the rest is host time. 0 on the CPU.
  double npu_s = 0.0, transfer_s = 0.0;
  double host_s() const { return seconds - npu_s - transfer_s; }
};

struct TurnStats {
  int image_tokens = 0;        // image tokens in this turn's new input
  int prompt_tokens = 0;       // tokens prefilled this turn (new input only)
  int context_tokens = 0;      // tokens in the cache after the turn
  int generated_tokens = 0;
  double prefill_s = 0.0, prefill_tokens_per_s = 0.0;
  double ttft_s = 0.0;         // from Send() to the first token's text
  double decode_s = 0.0, decode_tokens_per_s = 0.0;  // first token excluded
  double total_s = 0.0;
  std::string backend = "cpu";
  std::string backend_reason;
  Precision precision = Precision::kF32;  // the engine's, as resolved at load
  std::optional<uint64_t> seed;           // the sampling seed this turn used (unset: greedy)
  int threads = 1;
  std::vector<StageTime> stages;          // first-seen order
  std::vector<double> token_latencies_s;  // per generated token
  // Speculative decoding (core/engine/speculative.h); all 0 when it was off.
  int draft_tokens = 0;     // drafts per step asked for
  int drafted = 0;          // draft tokens verified
  int accepted = 0;         // of them, accepted
  int weight_passes = 0;    // main-model decode forwards (verify or plain), first token excluded
  // Speculative auto could not read this machine's record (speculative_record.h): the one-line
  // warning, on the first turn of a session that consulted it; empty otherwise.
  std::string speculative_warning;
  double acceptance_rate() const { return drafted > 0 ? static_cast<double>(accepted) / drafted : 0.0; }
  // Decoded tokens (first excluded) per pass over the weights: 1 for plain decoding.
  double tokens_per_weight_pass() const {
    return weight_passes > 0 ? static_cast<double>(generated_tokens - 1) / weight_passes : 0.0;
  }
};

}  // namespace glance
