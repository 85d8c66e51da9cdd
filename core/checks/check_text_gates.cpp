// Reference-check gates for the tokenizer and the chat template.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/checks/check_gates.h"
#include "core/text/chat_template.h"
#include "core/text/tokenizer.h"
#include "core/util/error.h"
#include "core/util/json_field.h"

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

std::vector<ChatMessage> MessagesFromJson(const json& msgs) {
  std::vector<ChatMessage> out;
  for (const auto& m : msgs) {
    ChatMessage cm;
    cm.role = m.at("role").get<std::string>();
    const json& content = m.at("content");
    if (content.is_string()) {
      cm.content.push_back(ContentPart::Text(content.get<std::string>()));
    } else {
      for (const auto& part : content) {
        const std::string type = part.at("type").get<std::string>();
        if (type == "image") cm.content.push_back(ContentPart::Image());
        else if (type == "video") cm.content.push_back(ContentPart::Video());
        else cm.content.push_back(ContentPart::Text(part.at("text").get<std::string>()));
      }
    }
    if (m.contains("reasoning_content") && m["reasoning_content"].is_string())
      cm.reasoning_content = m["reasoning_content"].get<std::string>();
    if (m.contains("tool_calls")) throw Error("tool calls are not supported yet");
    out.push_back(std::move(cm));
  }
  return out;
}

Measurement MeasureTemplate(const std::string& dir, const Tokenizer& tok, const ChatTemplate& tmpl,
                            int32_t image_pad_id) {
  const fs::path p = fs::path(dir) / "chat_template_renders.json";
  if (!fs::exists(p)) return Skipped("no chat_template_renders.json");
  int ok = 0, n = 0, skipped = 0;
  std::string first_bad;
  // Kept alive: a range-for over a temporary's member dangles.
  const json doc = ReadJsonFile(p.string(), "cannot read " + p.string());
  for (const auto& r : doc.at("renders")) {
    if (HasField(r, "tools")) {
      ++skipped;
      continue;
    }
    std::vector<ChatMessage> msgs;
    try {
      msgs = MessagesFromJson(r.at("messages"));
    } catch (const Error&) {
      ++skipped;  // tool use: out of scope for now
      continue;
    }
    ++n;
    ChatTemplateOptions o;
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
              (skipped ? ", " + std::to_string(skipped) + " with tools skipped" : "") +
              (first_bad.empty() ? "" : " (first mismatch: " + first_bad + ")"),
          {{Quantity::kMismatches, double(n - ok)}, {Quantity::kCount, double(n)}}};
}

}  // namespace glance::checks
