#pragma once
// Session: one conversation over a shared Engine — its turns, images and language-model
// state. A Gated DeltaNet state cannot be rolled back like a KV cache, so the session
// snapshots the whole state at turn boundaries (docs/design.md "Sessions and state"):
//   * Send() continues from the snapshot taken after the last user message, appending the
//     template's history form of the last answer, so the cache always equals what the chat
//     template renders for the conversation;
//   * Regenerate() restores the snapshot taken after the last user message;
//   * EditLastUser() restores the snapshot taken before it.
//
// Thread contract: a Session is used by one thread at a time (the GUI's worker thread).
// `cancel` may be set from any thread; it is checked before every generated token.
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/engine_options.h"
#include "core/engine/events.h"
#include "core/engine/sampler.h"

namespace glance {

class Engine;
struct SessionImpl;

struct GenerateOptions {
  int max_new_tokens = 256;
  // Unset: what the checkpoint's generation_config.json asks (ModelInfo::default_sampling),
  // as Hugging Face's generate does. SamplingParams::Greedy() for deterministic answers.
  std::optional<SamplingParams> sampling;
  // Unset: a fresh seed every turn, so Regenerate gives a new answer when sampling; set: the
  // same seed, settings and conversation give the same answer.
  std::optional<uint64_t> seed;
  bool capture_attention = true;
  std::optional<bool> enable_thinking;  // unset = the checkpoint's template default
};

struct StreamCallbacks {
  // Whole UTF-8 pieces of the answer, as they are generated.
  std::function<void(const std::string& piece)> on_text;
  // One map per generated token (only when GenerateOptions::capture_attention and the
  // conversation has an image).
  std::function<void(const AttentionMap&)> on_attention;
  const std::atomic<bool>* cancel = nullptr;
};

struct TurnResult {
  std::string text;              // the answer as generated (thinking included, if any)
  std::vector<int32_t> tokens;   // generated ids, stop token excluded
  std::string stop_reason;       // "eos" | "max_tokens" | "cancelled" | "context"
  TurnStats stats;
  std::vector<AttentionMap> attention;  // per generated token (when captured)
  std::vector<AttentionWord> words;     // tokens grouped into words
};

struct ChatTurn {
  std::string user_text;
  std::vector<int> image_indices;  // images attached to this user message
  std::string answer;
  bool complete = false;
};

class Session {
 public:
  explicit Session(std::shared_ptr<const Engine> engine);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void SetSystemPrompt(const std::string& text);  // takes effect on the next Reset()/first turn

  // Attaches an image to the next user message: decodes, preprocesses and runs the vision
  // tower now (so a bad file fails here, before anything is sent). Throws glance::Error.
  ImageInfo AttachImage(const std::string& path, ImageMode mode = ImageMode::kFast);
  ImageInfo AttachImageRgb(const uint8_t* rgb, int width, int height, int stride,
                           ImageMode mode = ImageMode::kFast);
  void ClearPendingImages();

  TurnResult Send(const std::string& user_text, const GenerateOptions& options,
                  const StreamCallbacks& callbacks = {});
  // Generates a new answer for the last user message (restores its snapshot).
  TurnResult Regenerate(const GenerateOptions& options, const StreamCallbacks& callbacks = {});
  // Replaces the last user message's text and answers it again.
  TurnResult EditLastUser(const std::string& new_text, const GenerateOptions& options,
                          const StreamCallbacks& callbacks = {});
  // Forgets the conversation (images, turns, state).
  void Reset();

  const std::vector<ChatTurn>& turns() const;
  const std::vector<ImageInfo>& images() const;
  int context_tokens() const;
  int context_limit() const;
  uint64_t snapshot_bytes() const;  // memory held by state snapshots

 private:
  std::unique_ptr<SessionImpl> impl_;
};

// Groups generated tokens into words for display: a new word starts at a token whose text
// begins with whitespace or when the previous token ended with whitespace/punctuation.
std::vector<AttentionWord> GroupWords(const std::vector<AttentionMap>& maps);

}  // namespace glance
