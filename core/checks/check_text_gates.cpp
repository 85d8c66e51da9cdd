// Reference-check gates for the tokenizer and the chat template.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/checks/check_gates.h"
#include "core/text/chat_template.h"
#include "core/text/tokenizer.h"
#include "core/util/error.h"
#include "core/util/json_field.h"
#include "core/util/read_file.h"

namespace glance::checks {

namespace fs = std::filesystem;
using nlohmann::json;

Measurement MeasureTokenizer(const std::string& dir, const Tokenizer& tok) {
  const fs::path p = fs::path(dir) / "tokenizer_cases.json";
  if (!fs::exists(p)) return Skipped("no tokenizer_cases.json");
  const json cases = ReadJsonFile(p.string(), "cannot read " + p.string()).at("cases");
  int ok = 0, n = 0;
  std::string first_bad;
  for (const auto& c : cases) {
    ++n;
    const std::vector<int32_t> want = c.at("ids").get<std::vector<int32_t>>();
    const bool ids_ok = tok.Encode(c.at("text").get<std::string>()) == want;
    const bool dec_ok = tok.Decode(want) == c.at("decoded").get<std::string>();
    if (ids_ok && dec_ok) ++ok;
    else if (first_bad.empty()) first_bad = c.at("text").get<std::string>().substr(0, 40);
  }
  return {std::to_string(ok) + "/" + std::to_string(n) + " cases" +
              (first_bad.empty() ? "" : " (first mismatch: \"" + first_bad + "\")"),
          {{Quantity::kMismatches, double(n - ok)}, {Quantity::kCount, double(n)}}};
}

namespace {

template <class Json>
std::vector<ChatMessage> MessagesFrom(const Json& msgs) {
  std::vector<ChatMessage> out;
  for (const auto& m : msgs) {
    ChatMessage cm;
    cm.role = m.at("role").template get<std::string>();
    const Json& content = m.at("content");
    if (content.is_string()) {
      cm.content.push_back(ContentPart::Text(content.template get<std::string>()));
    } else {
      for (const auto& part : content) {
        const std::string type = part.at("type").template get<std::string>();
        if (type == "image") cm.content.push_back(ContentPart::Image());
        else if (type == "video") cm.content.push_back(ContentPart::Video());
        else cm.content.push_back(ContentPart::Text(part.at("text").template get<std::string>()));
      }
    }
    if (m.contains("reasoning_content") && m["reasoning_content"].is_string())
      cm.reasoning_content = m["reasoning_content"].template get<std::string>();
    if (m.contains("tool_calls") && m["tool_calls"].is_array())
      for (const auto& call : m["tool_calls"]) {
        const Json& f = call.contains("function") ? call["function"] : call;  // OpenAI's shape or HF's
        ToolCall tc;
        tc.name = f.at("name").template get<std::string>();
        if (f.contains("arguments"))
          tc.arguments = f["arguments"].is_string() ? f["arguments"].template get<std::string>() : f["arguments"].dump();
        cm.tool_calls.push_back(std::move(tc));
      }
    out.push_back(std::move(cm));
  }
  return out;
}

}  // namespace

std::vector<ChatMessage> MessagesFromJson(const json& msgs) { return MessagesFrom(msgs); }
std::vector<ChatMessage> MessagesFromJson(const nlohmann::ordered_json& msgs) { return MessagesFrom(msgs); }

Measurement MeasureTemplate(const std::string& dir, const Tokenizer& tok, const ChatTemplate& tmpl,
                            int32_t image_pad_id) {
  const fs::path p = fs::path(dir) / "chat_template_renders.json";
  if (!fs::exists(p)) return Skipped("no chat_template_renders.json");
  int ok = 0, n = 0, skipped = 0;
  std::string first_bad;
  // Kept alive: a range-for over a temporary's member dangles. Read in file order: tools and
  // tool-call arguments render in the order they were written.
  ReadJsonFile(p.string(), "cannot read " + p.string());  // a one-line error when it does not parse
  const nlohmann::ordered_json doc =
      nlohmann::ordered_json::parse(ReadWholeFile(p.string(), "cannot read " + p.string()));
  for (const auto& r : doc.at("renders")) {
    std::vector<ChatMessage> msgs;
    try {
      msgs = MessagesFromJson(r.at("messages"));
    } catch (const std::exception&) {
      ++skipped;  // a message shape this reader does not know
      continue;
    }
    ++n;
    ChatTemplateOptions o;
    if (r.contains("tools") && r["tools"].is_array())
      for (const auto& tool : r["tools"]) o.tools.push_back(tool.dump());
    o.add_generation_prompt = r.value("add_generation_prompt", true);
    if (r.at("enable_thinking").is_boolean()) o.enable_thinking = r["enable_thinking"].get<bool>();
    bool good = false;
    try {
      const std::string text = tmpl.Render(msgs, o);
      const std::vector<int32_t> ids = tok.Encode(text);
      good = text == r.at("text").get<std::string>() &&
             ids == r.at("ids_single_image_pad").get<std::vector<int32_t>>();
      if (good && r.contains("ids_expanded")) {
        const int per_image = r.value("n_image_tokens_expanded", 0);
        const auto pads = static_cast<size_t>(std::count(ids.begin(), ids.end(), image_pad_id));
        const auto expanded = ExpandPadTokens(ids, image_pad_id, std::vector<int32_t>(pads, per_image));
        good = expanded == r.at("ids_expanded").get<std::vector<int32_t>>();
      }
    } catch (const Error&) {
      good = false;
    }
    if (good) ++ok;
    else if (first_bad.empty()) first_bad = r.value("conversation", std::string("?"));
  }
  return {std::to_string(ok) + "/" + std::to_string(n) + " renders" +
              (skipped ? ", " + std::to_string(skipped) + " of an unknown shape skipped" : "") +
              (first_bad.empty() ? "" : " (first mismatch: " + first_bad + ")"),
          {{Quantity::kMismatches, double(n - ok)}, {Quantity::kCount, double(n)}}};
}

}  // namespace glance::checks
