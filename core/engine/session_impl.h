// The Session's private state and the helpers its two source files share: session.cpp (the
// conversation: images, messages, edits, continuing a saved chat) and session_generate.cpp (one
// answer: the decode loop, attention capture, the turn's statistics). Not part of the API.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/engine/attention_capture.h"
#include "core/engine/engine.h"
#include "core/engine/prompt_stream.h"
#include "core/engine/session.h"
#include "core/engine/speculative.h"
#include "core/engine/speculative_record.h"
#include "core/engine/timing.h"
#include "core/lm/language_model.h"
#include "core/text/tokenizer.h"
#include "core/util/error.h"
#include "core/vision/image_preprocessor.h"
#include "kernels/backend.h"

namespace glance {

using Clock = std::chrono::steady_clock;

namespace session_internal {

// The state after a prefix of the conversation's token stream, and that prefix.
struct Snapshot {
  lm::LmState state;
  std::vector<int64_t> ids;
  bool valid = false;
};

struct SessionImage {
  ImageInfo info;
  std::vector<float> features;  // [tokens][hidden] merged vision features
  lm::ImageGrid grid;
  Timing timing;                // preprocess + vision, charged to the turn that sends it
};

// Attention capture over the images of the last user message (or, when it has none, the
// conversation's most recent image): one AttentionCapture per image, fed the same rows.
struct Capture {
  std::vector<std::unique_ptr<AttentionCapture>> images;  // message order
  std::vector<int> image_indices;                          // Session::images() index of each

  explicit operator bool() const { return !images.empty(); }
  // The message's last image: what on_attention and TurnResult::attention report.
  AttentionCapture& primary() { return *images.back(); }
  void BeginToken(int step) {
    for (auto& c : images) c->BeginToken(step);
  }
  void AddLayerRow(int layer, int n_heads, const float* probs, int64_t key_stride, int64_t n_keys) {
    for (auto& c : images) c->AddLayerRow(layer, n_heads, probs, key_stride, n_keys);
  }
  void AddHiddenRow(int layer, int n_heads, const int64_t* positions, int64_t n_keys, const float* weights,
                    int64_t head_stride, const float* totals, int64_t total_stride) {
    for (auto& c : images) c->AddHiddenRow(layer, n_heads, positions, n_keys, weights, head_stride, totals, total_stride);
  }
  void AddVerifyRow(const VerifyAttention& v, int64_t row) {
    for (auto& c : images) v.AddRow(*c, row);
  }
  // Ends every image's map; returns the primary one.
  const AttentionMap& EndToken(int32_t token, const std::string& piece) {
    for (size_t k = 0; k + 1 < images.size(); ++k) images[k]->EndToken(token, piece);
    return images.back()->EndToken(token, piece);
  }
};

inline bool IsPrefix(const std::vector<int64_t>& prefix, std::span<const int64_t> full) {
  return prefix.size() <= full.size() && std::equal(prefix.begin(), prefix.end(), full.begin());
}

inline bool Stopped(const StreamCallbacks& cb) { return cb.cancel && cb.cancel->load(); }

// Prompt rows processed so far out of those this call has to process, for on_progress.
struct PromptProgress {
  const StreamCallbacks& cb;
  int64_t chunk = 256;  // PrefillChunkRows
  int64_t done = 0, total = 0;
  bool total_known = false;  // set by the caller (several prefills); else each prefill sets it
  PrefillControl Control() {
    PrefillControl c;
    c.cancel = cb.cancel;
    c.chunk = chunk;
    const int64_t before = done;
    if (cb.on_progress)
      c.on_rows = [this, before](int64_t rows, int64_t) {
        done = before + rows;
        cb.on_progress({Progress::Stage::kPrompt, done, total, 0, 1});
      };
    else
      c.on_rows = [this, before](int64_t rows, int64_t) { done = before + rows; };
    return c;
  }
};

}  // namespace session_internal

struct SessionImpl {
  std::shared_ptr<const Engine> engine;
  std::string system_prompt;
  std::vector<std::string> tools;    // SetTools: rendered in the system turn
  std::vector<session_internal::SessionImage> images;
  std::vector<MessagePart> pending;  // the next user message, as built so far
  std::vector<std::string> pending_tool_results;  // the next message's tool results
  std::vector<ChatTurn> turns;
  std::vector<ImageInfo> image_infos;
  session_internal::Snapshot before_user;  // state before the last user message
  session_internal::Snapshot after_user;   // state after the last user message (before the generation prompt)
  // The backend's cumulative per-kernel counters when the current turn began (npu:gemm, ...):
  // the turn's Timing gets the difference.
  std::vector<kernels::KernelStat> kernel_stats_at_start;
  int context_tokens = 0;
  // Prefills keep the MTP drafter's cache (speculative decoding was asked for last; Send sets it).
  bool keep_mtp = false;
  // Prefills track the image rows for the DeltaNet layers' hidden attention (attention capture
  // was asked for last; Send sets it). Off: the states neither keep nor compute any of it.
  bool keep_hidden = true;

  const Tokenizer& tok() const { return engine->tokenizer(); }
  int asked_context_limit = kDefaultContextLimit;  // SetContextLimit
  int model_context_limit() const {
    return static_cast<int>(std::min<int64_t>(engine->config().text.max_position_embeddings, kMaxContextLimit));
  }
  int context_limit() const { return std::min(asked_context_limit, model_context_limit()); }

  // Encodes one image; throws Cancelled (nothing kept) when stopped.
  session_internal::SessionImage Encode(const vision::PreprocessedImage& pre, const std::string& path, const std::string& sha,
                      ImageMode mode, Timing timing, const StreamCallbacks& cb, int index, int count) const;
  ImageInfo Attach(session_internal::SessionImage img);
  // The conversation's turns as template messages (the last turn's answer omitted).
  std::vector<ChatMessage> Messages() const;
  // The images in the order the render places them (the turns' image parts in order): the
  // prompt's k-th image run is images[RenderOrder()[k]].
  std::vector<int> RenderOrder() const;
  std::vector<const float*> FeaturePointers() const;  // features in RenderOrder()
  // Drops images[index] (a pending one), renumbering later pending parts.
  void EraseImage(int index);
  // The one render of this turn.
  PromptStream Stream(std::optional<bool> thinking) const;
  // Prefills the stream up to the end of the last user message from the longest snapshot that
  // is a prefix of it, and snapshots before/after that message. Returns false when cancelled
  // (the snapshots then untouched).
  bool PrefillUser(const PromptStream& stream, Timing& timing, session_internal::PromptProgress& progress);
  session_internal::Capture SetupCapture(const PromptStream& stream, const GenerateOptions& options) const;
  // Generates the answer of the last turn from the after-user snapshot.
  TurnResult Generate(const PromptStream& stream, const GenerateOptions& options, const StreamCallbacks& cb,
                      Clock::time_point t0, Timing timing, int new_image_tokens, int prompt_tokens);
  // Drafts per speculative step for this turn: 0 (plain decoding) unless asked for and the
  // checkpoint has an MTP layer; at most 3.
  int SpeculativeDrafts(const GenerateOptions& options) const {
    const int asked = RequestedDrafts(options);
    if (asked <= 0 || !engine->lm().has_mtp()) return 0;
    return std::min(asked, 3);
  }
  // speculative_draft_tokens, or with speculative_auto what this machine's record says
  // (speculative_record.h), looked up once per session.
  int RequestedDrafts(const GenerateOptions& options) const {
    if (!options.speculative_auto) return options.speculative_draft_tokens;
    if (!auto_drafts) {
      const SpeculativeAutoChoice c = ChooseSpeculativeAuto(*engine, DefaultSpeculativeRecordPath());
      auto_drafts = c.draft_tokens;
      auto_warning = c.warning;  // reaches the user once, in the next turn's stats
    }
    return *auto_drafts;
  }
  mutable std::optional<int> auto_drafts;
  mutable std::string auto_warning;  // a damaged record, not yet reported
  // Throws glance::Error for a forced token outside the vocabulary (before anything changes).
  void CheckForcedTokens(const GenerateOptions& options) const {
    for (int32_t id : options.forced_tokens)
      if (id < 0 || static_cast<size_t>(id) >= tok().size())
        throw Error("forced token " + std::to_string(id) + " is outside the vocabulary (" +
                    std::to_string(tok().size()) + " tokens)");
  }
  // Fills r.stats from the turn's timing (the one place turn statistics are computed).
  void FinishStats(TurnResult& r, Timing& timing, Clock::time_point t0, Clock::time_point first_token,
                   int new_image_tokens, int prompt_tokens, int64_t cache_tokens);
};

}  // namespace glance
