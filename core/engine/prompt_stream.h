#pragma once
// PromptStream: the token stream of a conversation as the language model reads it — the chat
// template's render, tokenized, each <|image_pad|> expanded to its image's token count — with
// where each image's placeholder run sits and the M-RoPE positions of every row. Built once per
// turn from one render; the positions, the image-row embedding overrides and attention capture
// all read the runs from here, so the placeholders are found in one place (lm::FindImageRuns).
//
// Used by Session (every turn) and by the reference check (the same path, asserted against the
// reference's ids), so a regression here shows in the goldens.
//
// Thread contract: plain values; the functions are pure apart from the forward pass's state.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/lm/language_model.h"
#include "core/lm/mrope.h"

namespace glance {

class Engine;
struct ChatMessage;

struct PromptStream {
  std::vector<int64_t> ids;
  std::vector<lm::ImageRun> runs;  // runs[k] holds conversation image k's rows
  lm::MropePositions positions;    // of every row of `ids`
  // Rows [0, user_end) are the conversation up to and including the last user message; rows
  // [user_end, ids.size()) are the generation prompt ("<|im_start|>assistant\n", ...).
  size_t user_end = 0;
  // Rows [0, history_end) are the conversation before the last user message.
  size_t history_end = 0;

  size_t size() const { return ids.size(); }
  // The rows of image k in cache order (for attention capture).
  std::vector<int64_t> ImageRows(size_t k) const;
};

// The chat template's render of `messages` with the generation prompt (thinking as asked),
// tokenized, pads expanded with `grids` (the conversation's images, in order). The image
// markers (<|vision_start|>, <|vision_end|>, <|image_pad|>, <|video_pad|>) come only from image
// parts: they are removed from assistant text (an answer saved before answers were decoded
// without special tokens) and refused, naming the marker, in system and user text. Throws
// glance::Error when the render holds more image placeholders than there are grids.
// `tools` (ChatTemplateOptions::tools): the tools block of the system turn; empty: none.
PromptStream BuildPromptStream(const Engine& engine, const std::vector<ChatMessage>& messages,
                               std::optional<bool> enable_thinking, std::span<const lm::ImageGrid> grids,
                               const std::vector<std::string>& tools = {});

// How PrefillRows reports and stops. The rows go through the model `chunk` at a time (a fixed
// size, so the same prompt always splits the same way and gives the same numbers); progress
// is reported and `cancel` checked before every decoder layer of every chunk, so Stop answers
// within one layer's time.
struct PrefillControl {
  std::function<void(int64_t done, int64_t total)> on_rows;  // rows of [begin, end) done
  const std::atomic<bool>* cancel = nullptr;
  int64_t chunk = 256;  // a multiple of the delta rule's 64-row chunks; <= 0: all at once
};

// Rows per prefill chunk for this model: about the same work per chunk whatever its size
// (1.4e11 / parameters, in multiples of 64 within [64, 256]: 64 for the 2B shape, 256 for the
// demo), so one decoder layer of a chunk takes a fraction of a second and Stop answers soon.
// Fixed per model, so the same prompt always splits the same way.
int64_t PrefillChunkRows(const Engine& engine);

// Runs rows [begin, end) of `stream` through the language model on `state` (which must hold
// rows [0, begin)), the image rows taking `features[k]` ([tokens][hidden] of image k).
// `all_logits` keeps every row's logits (one pass; chunking is off). Returns false when
// cancelled; `state` is then half-updated and must be discarded.
bool PrefillRows(const Engine& engine, const PromptStream& stream, size_t begin, size_t end,
                 std::span<const float* const> features, lm::LmState& state, lm::ForwardOutput& out,
                 lm::AttentionObserver* observer = nullptr, bool all_logits = false,
                 const PrefillControl& control = {});

}  // namespace glance
