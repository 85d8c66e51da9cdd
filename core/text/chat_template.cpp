// Qwen3.5 chat template body in C++ (qwen35.md §5.2; template text in tests/data/tiny-a/
// chat_template.jinja). Each step cites the Jinja it mirrors.
#include "core/text/chat_template.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/text/jinja_generation_prompt.h"
#include "core/text/python_json.h"
#include "core/util/error.h"
#include "core/util/json_field.h"
#include "core/util/read_file.h"

namespace glance {
namespace {

constexpr const char* kImageText = "<|vision_start|><|image_pad|><|vision_end|>";
constexpr const char* kVideoText = "<|vision_start|><|video_pad|><|vision_end|>";

// Length of the Python-whitespace character (str.isspace) starting at s[i], else 0. Jinja's
// `trim` filter is Python's str.strip(), which strips Unicode whitespace, not just ASCII.
size_t SpaceLenAt(const std::string& s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F)) return 1;
  auto is = [&](const char* seq) { return s.compare(i, std::char_traits<char>::length(seq), seq) == 0; };
  if (is("\xC2\x85") || is("\xC2\xA0")) return 2;  // U+0085, U+00A0
  if (is("\xE1\x9A\x80") || is("\xE2\x80\xA8") || is("\xE2\x80\xA9") || is("\xE2\x80\xAF") ||
      is("\xE2\x81\x9F") || is("\xE3\x80\x80"))  // U+1680, 2028, 2029, 202F, 205F, 3000
    return 3;
  if (c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
      static_cast<unsigned char>(s[i + 2]) <= 0x8A)  // U+2000..U+200A
    return 3;
  return 0;
}

std::string Trim(const std::string& s) {
  size_t a = 0;
  while (a < s.size()) {
    const size_t n = SpaceLenAt(s, a);
    if (n == 0) break;
    a += n;
  }
  // From the right: find the start of the trailing whitespace run by scanning forward.
  size_t b = a, end = a;
  while (b < s.size()) {
    const size_t n = SpaceLenAt(s, b);
    if (n == 0) {
      // Step over one UTF-8 character.
      ++b;
      while (b < s.size() && (static_cast<unsigned char>(s[b]) & 0xC0) == 0x80) ++b;
      end = b;
    } else {
      b += n;
    }
  }
  return s.substr(a, end - a);
}

bool StartsWith(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }
bool EndsWith(const std::string& s, const std::string& p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}
std::string StripChar(std::string s, char c, bool left) {
  if (left) s.erase(0, s.find_first_not_of(c) == std::string::npos ? s.size() : s.find_first_not_of(c));
  else s.erase(s.find_last_not_of(c) == std::string::npos ? 0 : s.find_last_not_of(c) + 1);
  return s;
}

// Jinja macro render_content(content, do_vision_count, is_system_content).
std::string RenderContent(const ChatMessage& m, bool is_system, const ChatTemplateOptions& opt,
                          int* image_count, int* video_count) {
  std::string out;
  for (const ContentPart& p : m.content) {
    if (p.kind == ContentPart::kText) {
      out += p.text;
      continue;
    }
    const bool image = p.kind == ContentPart::kImage;
    if (is_system)
      throw Error(std::string("chat template: System message cannot contain ") + (image ? "images." : "videos."));
    int* count = image ? image_count : video_count;
    if (count) ++*count;
    if (opt.add_vision_id)
      out += (image ? "Picture " : "Video ") + std::to_string(count ? *count : 0) + ": ";
    out += image ? kImageText : kVideoText;
  }
  return out;
}

// The template's tools header, verbatim ({%- if tools and tools is iterable ... %}).
constexpr const char* kToolsIntro = "# Tools\n\nYou have access to the following functions:\n\n<tools>";
constexpr const char* kToolsRules =
    "\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n"
    "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n"
    "<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n"
    "</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n"
    "- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested "
    "within <tool_call></tool_call> XML tags\n- Required parameters MUST be specified\n"
    "- You may provide optional reasoning for your function call in natural language BEFORE the function call, "
    "but NOT after\n- If there is no function call available, answer the question like normal with your current "
    "knowledge and do not tell the user about function calls\n</IMPORTANT>";

nlohmann::ordered_json ParseToolJson(const std::string& text, const std::string& what) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw Error("chat template: " + what + " is not valid JSON");
  return j;
}

// One assistant message's tool calls ({%- if message.tool_calls ... %}).
std::string RenderToolCalls(const ChatMessage& m, const std::string& content) {
  std::string out;
  for (size_t k = 0; k < m.tool_calls.size(); ++k) {
    const ToolCall& call = m.tool_calls[k];
    if (k == 0)
      out += (Trim(content).empty() ? "" : "\n\n") + std::string("<tool_call>\n<function=") + call.name + ">\n";
    else
      out += "\n<tool_call>\n<function=" + call.name + ">\n";
    const nlohmann::ordered_json args = ParseToolJson(call.arguments.empty() ? "{}" : call.arguments,
                                                      "the arguments of tool call '" + call.name + "'");
    if (!args.is_object()) throw Error("chat template: the arguments of tool call '" + call.name + "' are not a JSON object");
    // args_value | tojson if a mapping or a non-string sequence, else args_value | string.
    for (auto it = args.begin(); it != args.end(); ++it)
      out += "<parameter=" + it.key() + ">\n" +
             (it.value().is_object() || it.value().is_array() ? PythonJsonDumps(it.value()) : PythonStr(it.value())) +
             "\n</parameter>\n";
    out += "</function>\n</tool_call>";
  }
  return out;
}

}  // namespace

ChatTemplate ChatTemplate::FromText(const std::string& jinja_text, const std::string& source_name) {
  // The body is implemented here, not interpreted, so refuse templates of other model families.
  for (const char* marker : {"<|im_start|>", kImageText, "</think>", "reasoning_content"})
    if (jinja_text.find(marker) == std::string::npos)
      throw Error(source_name + ": not a Qwen3.5 chat template (no '" + marker +
                  "'); Glance renders only Qwen3.5's template");
  ChatTemplate t;
  t.source_ = source_name;
  t.generation_prompt_ = text::EvaluateGenerationPrompt(jinja_text, source_name);
  const std::string& unset = t.generation_prompt_[0];
  if (!StartsWith(unset, "<|im_start|>assistant\n"))
    throw Error(source_name + ": generation prompt does not open an assistant turn");
  // Thinking by default = the unset prompt leaves <think> open for the model to fill.
  t.thinking_default_ = EndsWith(unset, "<think>\n") && unset.find("</think>") == std::string::npos
                            ? ThinkingDefault::kOn
                            : ThinkingDefault::kOff;
  return t;
}

ChatTemplate ChatTemplate::FromModelDir(const std::string& model_dir) {
  namespace fs = std::filesystem;
  const fs::path jinja = fs::path(model_dir) / "chat_template.jinja";
  if (fs::exists(jinja)) return FromText(ReadWholeFile(jinja.string(), jinja.string() + ": cannot open"), jinja.string());
  const fs::path config = fs::path(model_dir) / "tokenizer_config.json";
  if (!fs::exists(config))
    throw Error(model_dir + ": no chat_template.jinja and no tokenizer_config.json with a chat_template");
  const nlohmann::json j = ReadJsonFile(config.string(), config.string() + ": cannot open");
  if (j.is_object() && j.contains("chat_template")) {
    const auto& ct = j["chat_template"];
    if (ct.is_string()) return FromText(ct.get<std::string>(), config.string() + " chat_template");
    if (ct.is_array())  // [{"name": "default", "template": "..."}, ...]
      for (const auto& e : ct)
        if (e.is_object() && e.value("name", "") == "default" && e.contains("template") &&
            e["template"].is_string())
          return FromText(e["template"].get<std::string>(), config.string() + " chat_template");
  }
  throw Error(config.string() + ": has no chat_template, and " + jinja.string() + " does not exist");
}

const std::string& ChatTemplate::GenerationPrompt(std::optional<bool> enable_thinking) const {
  return generation_prompt_[!enable_thinking ? 0 : *enable_thinking ? 2 : 1];
}

std::string ChatTemplate::Render(const std::vector<ChatMessage>& messages,
                                 const ChatTemplateOptions& opt) const {
  if (messages.empty()) throw Error("chat template: No messages provided.");
  std::string out;
  if (!opt.tools.empty()) {
    // {%- if tools and tools is iterable and tools is not mapping %}: the tools block, then the
    // system message's content after a blank line.
    out += "<|im_start|>system\n";
    out += kToolsIntro;
    for (size_t k = 0; k < opt.tools.size(); ++k)
      out += "\n" + PythonJsonDumps(ParseToolJson(opt.tools[k], "tool " + std::to_string(k)));
    out += "\n</tools>";
    out += kToolsRules;
    if (messages[0].role == "system") {
      const std::string content = Trim(RenderContent(messages[0], true, opt, nullptr, nullptr));
      if (!content.empty()) out += "\n\n" + content;
    }
    out += "<|im_end|>\n";
  } else if (messages[0].role == "system") {
    out += "<|im_start|>system\n" + Trim(RenderContent(messages[0], true, opt, nullptr, nullptr)) + "<|im_end|>\n";
  }

  // ns.last_query_index: the last user turn that is not only a <tool_response> block.
  std::optional<size_t> last_query;
  for (size_t i = messages.size(); i-- > 0;) {
    if (messages[i].role != "user") continue;
    const std::string c = Trim(RenderContent(messages[i], false, opt, nullptr, nullptr));
    if (!(StartsWith(c, "<tool_response>") && EndsWith(c, "</tool_response>"))) {
      last_query = i;
      break;
    }
  }
  if (!last_query) throw Error("chat template: No user query found in messages.");

  int images = 0, videos = 0;
  for (size_t i = 0; i < messages.size(); ++i) {
    const ChatMessage& m = messages[i];
    std::string content = Trim(RenderContent(m, false, opt, &images, &videos));
    if (m.role == "system") {
      if (i != 0) throw Error("chat template: System message must be at the beginning.");
    } else if (m.role == "user") {
      out += "<|im_start|>user\n" + content + "<|im_end|>\n";
    } else if (m.role == "assistant") {
      std::string reasoning;
      if (m.reasoning_content) {
        reasoning = *m.reasoning_content;
      } else if (content.find("</think>") != std::string::npos) {
        // content.split('</think>')[0].rstrip('\n').split('<think>')[-1].lstrip('\n')
        std::string before = StripChar(content.substr(0, content.find("</think>")), '\n', false);
        const size_t open = before.rfind("<think>");
        if (open != std::string::npos) before = before.substr(open + 7);
        reasoning = StripChar(before, '\n', true);
        // content.split('</think>')[-1].lstrip('\n')
        content = StripChar(content.substr(content.rfind("</think>") + 8), '\n', true);
      }
      reasoning = Trim(reasoning);
      if (i > *last_query)
        out += "<|im_start|>assistant\n<think>\n" + reasoning + "\n</think>\n\n" + content;
      else
        out += "<|im_start|>assistant\n" + content;
      out += RenderToolCalls(m, content);
      out += "<|im_end|>\n";
    } else if (m.role == "tool") {
      // Consecutive tool results share one user turn (loop.previtem / loop.nextitem).
      if (i > 0 && messages[i - 1].role != "tool") out += "<|im_start|>user";
      out += "\n<tool_response>\n" + content + "\n</tool_response>";
      if (i + 1 == messages.size() || messages[i + 1].role != "tool") out += "<|im_end|>\n";
    } else {
      throw Error("chat template: Unexpected message role '" + m.role + "'.");
    }
  }
  if (opt.add_generation_prompt) out += GenerationPrompt(opt.enable_thinking);
  return out;
}

std::vector<int32_t> ExpandPadTokens(const std::vector<int32_t>& ids, int32_t pad_id,
                                     const std::vector<int32_t>& tokens_per_item) {
  std::vector<int32_t> out;
  size_t item = 0;
  for (int32_t id : ids) {
    if (id != pad_id) {
      out.push_back(id);
      continue;
    }
    if (item >= tokens_per_item.size())
      throw Error("prompt has more pad tokens (id " + std::to_string(pad_id) + ") than the " +
                  std::to_string(tokens_per_item.size()) + " token counts given");
    if (tokens_per_item[item] < 1)
      throw Error("token count for item " + std::to_string(item) + " must be >= 1");
    out.insert(out.end(), static_cast<size_t>(tokens_per_item[item]), pad_id);
    ++item;
  }
  if (item != tokens_per_item.size())
    throw Error("prompt has " + std::to_string(item) + " pad tokens (id " + std::to_string(pad_id) +
                ") but " + std::to_string(tokens_per_item.size()) + " token counts were given");
  return out;
}

}  // namespace glance
