#pragma once
// Session: one conversation over a shared Engine — its turns, images and language-model
// state. A Gated DeltaNet state cannot be rolled back like a KV cache, so the session
// snapshots the whole state at turn boundaries (docs/design.md "Sessions and state"):
//   * Send() continues from the snapshot taken after the last user message, appending the
//     template's history form of the last answer, so the cache always equals what the chat
//     template renders for the conversation;
//   * Regenerate() restores the snapshot taken after the last user message;
//   * EditLastUser() restores the snapshot taken before it;
//   * ChooseLastAnswer() swaps the last answer's text (a kept alternative) with nothing to
//     undo: the next Send appends whichever answer is the last turn's.
//
// Every turn's prompt is one PromptStream (prompt_stream.h): one render of the conversation
// feeds the positions, the image rows and attention capture.
//
// Long steps report progress and stop (StreamCallbacks::on_progress, cancel): image encoding
// per vision block, prompt processing per prefill chunk (sized to take about 0.25 s). A step
// stopped before the answer's first token throws Cancelled and leaves the session exactly as
// it was before the call; a stop during the answer ends it with stop_reason "cancelled".
//
// Thread contract: a Session is used by one thread at a time (the GUI's worker thread).
// `cancel` may be set from any thread; it is checked between vision blocks, prefill chunks
// and generated tokens.
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/engine/engine_options.h"
#include "core/engine/events.h"
#include "core/engine/logprobs.h"
#include "core/engine/sampler.h"
#include "core/engine/token_constraint.h"
#include "core/text/chat_template.h"
#include "core/text/tool_call_parser.h"
#include "core/util/error.h"

namespace glance {

class Engine;
struct PromptStream;
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
  // Self-speculative decoding with the checkpoint's MTP layer (core/engine/speculative.h):
  // 1..3 drafts a step, verified in one forward; 0 = off. Greedy: the plain answer; sampling:
  // the plain answer's distribution (speculative_sampling.h), not its draws for a seed.
  // Ignored for checkpoints without an MTP layer (Engine::lm().has_mtp()).
  int speculative_draft_tokens = 0;
  // `--speculative auto`: speculative_draft_tokens is replaced by what this machine's record
  // (core/engine/speculative_record.h, written by glance-cli bench-speculative) says for this
  // model, precision, thread count and CPU: on only when measured faster at identical output.
  bool speculative_auto = false;
  // The MTP drafts from token ids [0, n) only (core/lm/mtp.h: a reduced draft vocabulary makes
  // drafting cheap; the verify scores every id, so answers do not depend on it). 0: the
  // default, lm::kDefaultDraftVocab.
  int64_t speculative_draft_vocab = 0;
  // Teacher forcing (scoring, perplexity, the reference checks): when set, the answer is these
  // tokens instead of sampled ones. Each step's logits still go to on_logits, then the given
  // token is taken with every bit of a generated token's bookkeeping (text, attention, cache,
  // the turn's answer), so the next turn continues as after a generated answer. The turn ends
  // after the last of them (stop_reason "max_tokens", as with max_new_tokens equal to their
  // count; the last one is not fed), at an earlier stop token among them ("eos"), or at
  // max_new_tokens. Sampling, the seed and speculative decoding are ignored. Ids outside the
  // vocabulary are refused (glance::Error, the session unchanged).
  std::vector<int32_t> forced_tokens;
  // Constrained decoding (token_constraint.h; a JSON schema: json_constraint.h): each token is
  // chosen among those the constraint allows (the others' logits set to -inf before sampling,
  // penalties and logprobs), the stop token only once the answer is whole. Speculative decoding
  // stays exact: every verify row is masked as its plain step would be, so a draft the
  // constraint refuses is never the choice. Ignored with forced_tokens.
  std::shared_ptr<const TokenConstraintSpec> constraint;
  // Log-probabilities (logprobs.h: which distribution): -1 none; 0..20 each generated token's
  // own and that many of the likeliest (TurnResult::logprobs, StreamCallbacks::on_logprobs).
  int top_logprobs = -1;
  // Tool calls (Session::SetTools): with tools set and this on, an answer holding well-formed
  // calls (core/text/tool_call_parser.h) is kept in its history form — the text before the
  // first call, and the calls — so the next turn renders it as the chat template renders an
  // assistant message with tool_calls; TurnResult::tool_calls has them. Off: the answer stays
  // text (a server's tool_choice "none").
  bool parse_tool_calls = true;
  // Stop sequences (OpenAI's `stop`; the desktop app's Settings and chat presets): the answer
  // ends before the first of them found in its text (stop_reason "stop"). Text that could begin
  // one is held back from on_text until it cannot (core/engine/stop_scanner.h); the stop
  // sequence and what follows it are neither streamed nor kept (TurnResult::text, the turn's
  // answer, its attention maps). Empty strings are ignored.
  std::vector<std::string> stop;
};

// Thrown when StreamCallbacks::cancel stops a step before it produced anything; the session
// is then as it was before the call.
class Cancelled : public Error {
 public:
  Cancelled() : Error("cancelled") {}
};

// Thrown when a turn's prompt would not fit the session's context limit
// (Session::SetContextLimit); the session is then as it was before the call.
class ContextFull : public Error {
 public:
  using Error::Error;
};

// Session::SetContextLimit: its default (the limit before it was a setting) and the range the
// desktop app's "context_length" setting allows (core/settings/registry.cpp).
inline constexpr int kDefaultContextLimit = 65536;
inline constexpr int kMinContextLimit = 512;
inline constexpr int kMaxContextLimit = 1 << 20;

// Where a long step is: image encoding counts vision blocks, prompt processing counts prompt
// rows (of this call: the new message, or the whole history when continuing a conversation).
struct Progress {
  enum class Stage { kImage, kPrompt };
  Stage stage = Stage::kPrompt;
  int64_t done = 0, total = 0;
  int image = 0;  // kImage: which of the images being encoded (0-based), of `images`
  int images = 1;
};

struct StreamCallbacks {
  // Whole UTF-8 pieces of the answer, as they are generated.
  std::function<void(const std::string& piece)> on_text;
  // One map per generated token (only when GenerateOptions::capture_attention and the
  // conversation has an image).
  std::function<void(const AttentionMap&)> on_attention;
  // Image encoding and prompt processing, as they go (on the calling thread).
  std::function<void(const Progress&)> on_progress;
  // Every generated token's logits (vocab entries), before sampling; for checks and tools.
  std::function<void(std::span<const float> logits)> on_logits;
  // The turn's prompt as the model reads it (core/engine/prompt_stream.h: the one render, image
  // placeholders expanded, with its image runs and positions), once per turn before the
  // answer's first token; for checks and tools.
  std::function<void(const PromptStream&)> on_prompt;
  // Each generated token's log-probabilities (GenerateOptions::top_logprobs >= 0), just before
  // that token's on_text; not for the stop token.
  std::function<void(const GeneratedLogprobs&)> on_logprobs;
  const std::atomic<bool>* cancel = nullptr;
};

// The per-token maps over one image of the last user message.
struct ImageAttention {
  int image_index = 0;                  // Session::images() index
  std::vector<AttentionMap> maps;       // per generated token
};

struct TurnResult {
  std::string text;              // the answer as generated (thinking included, if any)
  std::vector<int32_t> tokens;   // generated ids, stop token excluded
  std::string stop_reason;       // "eos" | "max_tokens" | "cancelled" | "context" | "stop" (a stop sequence)
  std::vector<GeneratedLogprobs> logprobs;  // per generated token (GenerateOptions::top_logprobs >= 0)
  TurnStats stats;
  std::vector<AttentionMap> attention;  // per generated token over the message's last image (when captured)
  std::vector<AttentionWord> words;     // tokens grouped into words
  // Every image of the last user message, in message order (the last equals `attention`);
  // empty when nothing was captured. Earlier turns' images are not captured.
  std::vector<ImageAttention> attention_by_image;
  // The answer's tool calls (GenerateOptions::parse_tool_calls with tools set): ok with the
  // calls and the text before them, else why not (the answer is then plain text).
  ParsedToolCalls tool_calls;
};

// One piece of a user message, in the order the user wrote it: text, or an image. A message
// is an ordered list of them ("Which is older? <image> <image>", "Look: <image> What is it?"),
// rendered by the chat template in that order, as Hugging Face renders a content list.
struct MessagePart {
  enum Kind { kText, kImage };
  Kind kind = kText;
  std::string text;  // kText
  int image = -1;    // kImage: the image's index (Session::images(); SavedTurn::images)

  static MessagePart Text(std::string t) { return {kText, std::move(t), -1}; }
  static MessagePart Image(int index) { return {kImage, {}, index}; }
  bool operator==(const MessagePart&) const = default;
};

// A saved conversation's turn, for Session::Continue.
struct SavedImage {
  std::string path;
  std::string sha256;  // of the file's bytes, as ImageInfo::sha256; checked before use
  ImageMode mode = ImageMode::kFast;
};
struct SavedTurn {
  std::string user_text;
  std::vector<SavedImage> images;  // attached to this user message
  std::string answer;              // empty: the turn was never answered (it is answered next)
  // The message's order, image parts indexing `images`. Empty: a chat saved before messages
  // were ordered (file version 1) — its images, then user_text, as it was sent then.
  std::vector<MessagePart> parts{};
  // Tool results (role "tool" messages) sent before this turn's user message, in order; the
  // chat template renders them as <tool_response> blocks of one user turn. A turn may have
  // tool results and no user parts (the answer to a tool call's result).
  std::vector<std::string> tool_results{};
  // The answer's tool calls; `answer` is then the text before the first call.
  std::vector<ToolCall> tool_calls{};

  // The message in order (the legacy layout when `parts` is empty).
  std::vector<MessagePart> OrderedParts() const;
};

using SavedConversation = std::vector<SavedTurn>;

struct ChatTurn {
  std::vector<MessagePart> parts;  // the message in order; image parts index Session::images()
  std::string user_text;           // its text parts joined (for display and search)
  std::vector<int> image_indices;  // its image parts, in order
  std::string answer;               // with tool_calls: the text before the first call
  bool complete = false;
  std::vector<std::string> tool_results{};  // as SavedTurn::tool_results
  std::vector<ToolCall> tool_calls{};       // the answer's calls (TurnResult::tool_calls when ok)
};


class Session {
 public:
  explicit Session(std::shared_ptr<const Engine> engine);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void SetSystemPrompt(const std::string& text);  // takes effect on the next Reset()/first turn
  // The tools the conversation offers (each a JSON object's text, {"type": "function",
  // "function": {...}}), rendered in the system turn as the chat template does. Takes effect at
  // the next Send/Regenerate/Continue; a change changes the render's first turn, so the
  // prompt is then processed again from the start (the cache always equals the render).
  void SetTools(std::vector<std::string> tools);
  const std::vector<std::string>& tools() const;

  // Attaches an image to the next user message: decodes, preprocesses and runs the vision
  // tower now (so a bad file fails here, before anything is sent). Throws glance::Error.
  // `callbacks`: on_progress and cancel (Cancelled: nothing attached).
  ImageInfo AttachImage(const std::string& path, ImageMode mode = ImageMode::kFast,
                        const StreamCallbacks& callbacks = {});
  ImageInfo AttachImageRgb(const uint8_t* rgb, int width, int height, int stride,
                           ImageMode mode = ImageMode::kFast, const StreamCallbacks& callbacks = {});
  void ClearPendingImages();  // the next message's images (its text parts stay)
  void ClearPending();        // the whole next message: images, text and tool results
  // Removes one attached, not yet sent image (its Session::images() index) from the next
  // message; later images' indices shift down by one. Throws glance::Error when that image is
  // not pending.
  void RemovePendingImage(int image_index);
  // Appends a text part to the next user message (after the parts attached so far), so text
  // can come before, between and after images.
  void AddText(const std::string& text);
  // The next user message as built so far (AddText and AttachImage, in order).
  const std::vector<MessagePart>& pending_parts() const;
  // Appends a tool result (OpenAI's role "tool" message: what a call of the last answer
  // returned) to the next message; rendered before its parts, as the template renders tool
  // results in a user turn. Send may then send tool results alone.
  void AddToolResult(const std::string& text);

  // Sends the next user message: the parts built so far, then `user_text` when non-empty.
  TurnResult Send(const std::string& user_text, const GenerateOptions& options,
                  const StreamCallbacks& callbacks = {});
  // Generates a new answer for the last user message (restores its snapshot).
  TurnResult Regenerate(const GenerateOptions& options, const StreamCallbacks& callbacks = {});
  // Replaces the last user message's text and answers it again: its text parts are replaced
  // by `new_text` after its images (edit with parts: EditLastUserParts).
  TurnResult EditLastUser(const std::string& new_text, const GenerateOptions& options,
                          const StreamCallbacks& callbacks = {});
  // Replaces the last user message with `parts` (its image parts must name that message's
  // images or pending ones) and answers it again.
  TurnResult EditLastUserParts(const std::vector<MessagePart>& parts, const GenerateOptions& options,
                               const StreamCallbacks& callbacks = {});
  // Makes `text` the last turn's answer, as if it had been generated last: one of the answers
  // Regenerate gave (the desktop app's ◀ 2/3 ▶). Nothing is processed now: the next Send
  // continues from the snapshot after the last user message and appends this answer's history
  // form, so its cache equals a session that was sent the same conversation. As Generate, the
  // answer is kept in its history form when tools are set and `parse_tool_calls` is on.
  // context_tokens() becomes the render's length with this answer (its text tokenized).
  // Throws glance::Error when there is no answered last turn.
  void ChooseLastAnswer(const std::string& text, bool parse_tool_calls = true);
  // Forgets the conversation (images, turns, state).
  void Reset();

  // Takes up a saved conversation (after a restart or a model switch): replaces this session's
  // conversation with `turns`, encodes their images (found by path, refused when the file's
  // sha256 differs from the saved one) and processes the history, reporting progress, so the
  // state equals what chatting it live would have left: the next Send continues it exactly.
  // A last turn without an answer is left for Regenerate to answer. Images attached and not
  // yet sent stay attached, for the next Send. Throws glance::Error
  // naming the image or the problem, Cancelled when stopped; either way the session is as
  // before the call.
  void Continue(const SavedConversation& turns, const StreamCallbacks& callbacks = {});

  const std::vector<ChatTurn>& turns() const;
  const std::vector<ImageInfo>& images() const;
  int context_tokens() const;
  // Attention rollout (core/engine/attention_rollout.h, issue 36 item 2) of the last turn's
  // answer over the last image of its message: `answer` is the turn's captured maps (their
  // steps, token ids and texts), `enable_thinking` as the turn was generated. Re-runs the prompt
  // and the answer in one forward; throws glance::Error (one line) when the sequence is longer
  // than max_rows or the message has no image. Engine thread.
  std::vector<AttentionMap> Rollout(const std::vector<AttentionMap>& answer, std::optional<bool> enable_thinking,
                                    int64_t max_rows = 1024) const;
  // The most tokens the conversation may hold: prompt, images and answers. An answer that
  // reaches it ends with stop_reason "context"; a message that would not fit is refused with
  // ContextFull (one line naming both counts), the session unchanged.
  int context_limit() const;
  // Sets context_limit(): `tokens` (at least kMinContextLimit), lowered to the model's own
  // limit (model_context_limit()). Takes effect from the next turn. Returns the limit now in
  // force. Throws glance::Error for a value below kMinContextLimit.
  int SetContextLimit(int tokens);
  // The model's max_position_embeddings.
  int model_context_limit() const;
  uint64_t snapshot_bytes() const;  // memory held by state snapshots

 private:
  std::unique_ptr<SessionImpl> impl_;
};

// Groups generated tokens into words for display: a new word starts at a token whose text
// begins with whitespace or when the previous token ended with whitespace/punctuation.
std::vector<AttentionWord> GroupWords(const std::vector<AttentionMap>& maps);

}  // namespace glance
