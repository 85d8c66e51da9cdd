#pragma once
// Qwen3.5's chat template (qwen35.md §5.2), rendered in C++ rather than by a Jinja engine.
// The body (system / user / assistant turns, reasoning stripping, trimming) is the Qwen3.5
// template's logic re-implemented; the generation prompt, which differs between checkpoints
// (0.8B/2B think only when asked, 4B+ think unless told not to), is read from the model's own
// template text, so both variants behave exactly as their .jinja says.
// Tool use is rendered as the template renders it: the tools block in the system turn (each
// tool as Python's json.dumps writes it, the template's `tojson`), assistant tool calls as
// <tool_call><function=...><parameter=...> blocks, tool results as <tool_response> in a user turn.
// Thread contract: immutable after construction; Render may run on many threads at once.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace glance {

struct ContentPart {
  enum Kind { kText, kImage, kVideo };
  Kind kind = kText;
  std::string text;  // kText only

  static ContentPart Text(std::string t) { return {kText, std::move(t)}; }
  static ContentPart Image() { return {kImage, {}}; }
  static ContentPart Video() { return {kVideo, {}}; }
};

// One call an assistant message made (OpenAI's tool_calls[i].function).
struct ToolCall {
  std::string name;
  std::string arguments;  // a JSON object's text; rendered one <parameter=key> per member, in order
};

struct ChatMessage {
  std::string role;                  // "system", "user", "assistant" or "tool"
  std::vector<ContentPart> content;  // concatenated in order, no separators
  // Set only when the caller keeps an assistant turn's reasoning separately (the template's
  // message.reasoning_content); otherwise reasoning is cut from content at "</think>".
  std::optional<std::string> reasoning_content;
  std::vector<ToolCall> tool_calls{};  // assistant messages only ({} keeps 3-field initialisers warning-free)

  static ChatMessage FromText(std::string role, std::string text) {
    return {std::move(role), {ContentPart::Text(std::move(text))}, std::nullopt};
  }
};

struct ChatTemplateOptions {
  bool add_generation_prompt = true;
  std::optional<bool> enable_thinking;  // unset = the template's default for this checkpoint
  bool add_vision_id = false;           // "Picture N: " before each image (template option)
  // The request's tools, each a JSON object's text ({"type": "function", "function": {...}}),
  // rendered in the order given; empty: no tools block.
  std::vector<std::string> tools;
};


class ChatTemplate {
 public:
  // Which way the generation prompt defaults when enable_thinking is unset.
  enum class ThinkingDefault { kOn /* 4B and larger */, kOff /* 0.8B, 2B */ };

  // Reads MODEL_DIR/chat_template.jinja, else the "chat_template" of tokenizer_config.json.
  static ChatTemplate FromModelDir(const std::string& model_dir);
  // From template text; `source_name` is used in error messages. Throws glance::Error when the
  // text is not a Qwen3.5 template or its generation prompt cannot be understood.
  static ChatTemplate FromText(const std::string& jinja_text, const std::string& source_name);

  // The prompt text. Throws glance::Error for what the template itself rejects (no messages,
  // no user query, system message not first, images in a system message, unknown role) and
  // for a tool or tool call whose JSON does not parse.
  std::string Render(const std::vector<ChatMessage>& messages, const ChatTemplateOptions& options) const;

  ThinkingDefault thinking_default() const { return thinking_default_; }
  // The text appended after the last turn by add_generation_prompt for this enable_thinking.
  const std::string& GenerationPrompt(std::optional<bool> enable_thinking) const;

 private:
  std::string source_;
  std::array<std::string, 3> generation_prompt_;  // [unset, false, true]
  ThinkingDefault thinking_default_ = ThinkingDefault::kOn;
};

// Replaces the i-th occurrence of `pad_id` (e.g. <|image_pad|>) in `ids` with
// tokens_per_item[i] copies — the vision tower's merged-patch count for image i.
// Throws glance::Error when the number of pads and of counts differ, or a count is < 1.
std::vector<int32_t> ExpandPadTokens(const std::vector<int32_t>& ids, int32_t pad_id,
                                     const std::vector<int32_t>& tokens_per_item);

}  // namespace glance
