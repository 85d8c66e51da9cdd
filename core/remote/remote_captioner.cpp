#include "core/remote/remote_captioner.h"

#include <algorithm>
#include <filesystem>

#include "core/engine/events_json.h"
#include "core/util/base64.h"
#include "core/util/error.h"
#include "core/util/read_file.h"

namespace glance::remote {

namespace {

using nlohmann::json;

bool StartsWith(const std::string& s, std::string_view p) { return s.size() >= p.size() && s.compare(0, p.size(), p) == 0; }

}  // namespace

std::string RemoteRequestProblem(const GenerateOptions& o) {
  if (o.sampling && !o.sampling->greedy) {
    if (o.sampling->min_p != 0.0f) return "--min-p has no field in an OpenAI chat-completions request; leave it at 0 with --endpoint";
    if (o.sampling->repetition_penalty != 1.0f)
      return "--repetition-penalty has no field in an OpenAI chat-completions request; use --presence-penalty with --endpoint";
  }
  return "";
}

std::string ImageMimeType(const std::string& bytes, const std::string& path) {
  if (StartsWith(bytes, "\x89PNG")) return "image/png";
  if (StartsWith(bytes, "\xFF\xD8\xFF")) return "image/jpeg";
  if (StartsWith(bytes, "RIFF") && bytes.size() >= 12 && bytes.compare(8, 4, "WEBP") == 0) return "image/webp";
  if (StartsWith(bytes, "BM")) return "image/bmp";
  if (StartsWith(bytes, "II*") || StartsWith(bytes, "MM\x00*")) return "image/tiff";
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".jpg" || ext == ".jpeg") return "image/jpeg";
  if (ext == ".tif" || ext == ".tiff") return "image/tiff";
  return ext.size() > 1 ? "image/" + ext.substr(1) : "application/octet-stream";
}

std::string ChatRequestBody(const RemoteCaptionRequest& r, const std::string& bytes, const std::string& mime) {
  const GenerateOptions& o = r.options;
  json messages = json::array();
  if (r.system) messages.push_back({{"role", "system"}, {"content", *r.system}});
  const json image = {{"type", "image_url"},
                      {"image_url", {{"url", "data:" + mime + ";base64," + EncodeBase64(bytes)},
                                     {"detail", r.mode == ImageMode::kDetail ? "high" : "low"}}}};
  messages.push_back({{"role", "user"}, {"content", json::array({image, {{"type", "text"}, {"text", r.prompt}}})}});
  json body = {{"model", r.model}, {"messages", messages}, {"max_tokens", o.max_new_tokens}};
  if (o.sampling && o.sampling->greedy) {
    body["temperature"] = 0;
  } else if (o.sampling) {  // custom; unset = the model's own defaults, on the server as here
    body["temperature"] = o.sampling->temperature;
    if (o.sampling->top_p < 1.0f) body["top_p"] = o.sampling->top_p;
    if (o.sampling->top_k > 0) body["top_k"] = o.sampling->top_k;
    if (o.sampling->presence_penalty != 0.0f) body["presence_penalty"] = o.sampling->presence_penalty;
  }
  if (o.seed) body["seed"] = *o.seed;
  if (o.enable_thinking && !r.json_answer) body["chat_template_kwargs"] = {{"enable_thinking", *o.enable_thinking}};
  if (r.glance_attention) body["glance"] = {{"attention", true}};
  if (r.json_answer && r.json_schema.empty()) body["response_format"] = {{"type", "json_object"}};
  if (r.json_answer && !r.json_schema.empty())
    body["response_format"] = {{"type", "json_schema"},
                               {"json_schema", {{"name", "caption"}, {"schema", json::parse(r.json_schema)}}}};
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string CaptionFromAnswer(const json& answer, bool json_answer, int max_tokens, const std::string& where) {
  const json* choice = nullptr;
  if (answer.is_object() && answer.contains("choices") && answer["choices"].is_array() && !answer["choices"].empty())
    choice = &answer["choices"][0];
  if (!choice || !choice->is_object() || !choice->contains("message") || !(*choice)["message"].is_object() ||
      !(*choice)["message"].contains("content") || !(*choice)["message"]["content"].is_string())
    throw Error(where + ": the answer has no choices[0].message.content text");
  const std::string finish = choice->contains("finish_reason") && (*choice)["finish_reason"].is_string()
                                 ? (*choice)["finish_reason"].get<std::string>()
                                 : "";
  if (json_answer && finish == "length")
    throw Error(where + ": the JSON answer did not finish within --max-tokens " + std::to_string(max_tokens) +
                " tokens; raise --max-tokens");
  std::string caption = (*choice)["message"]["content"].get<std::string>();
  // A server that ignores response_format (not every one constrains) must not put prose where
  // the caption file holds a JSON document.
  if (json_answer && json::parse(caption, nullptr, /*allow_exceptions=*/false).is_discarded())
    throw Error(where + ": the answer is not a JSON document (does the server honour response_format?)");
  return caption;
}

std::optional<CaptionInsight> InsightFromAnswer(const json& answer) {
  if (!answer.is_object() || !answer.contains("glance") || !answer["glance"].is_object()) return std::nullopt;
  const json& g = answer["glance"];
  CaptionInsight insight;
  try {
    if (g.contains("timing") && g["timing"].is_object()) insight.stats = TurnStatsFromJson(g["timing"]);
  } catch (const std::exception&) {  // a server of another version: the maps may still be there
  }
  if (g.contains("attention") && g["attention"].is_object() && g["attention"].contains("words") &&
      g["attention"]["words"].is_array()) {
    for (const json& w : g["attention"]["words"]) {
      if (!w.is_object()) continue;
      CaptionWordMap m;
      m.text = w.value("text", "");
      m.grid_h = w.value("grid_h", 0);
      m.grid_w = w.value("grid_w", 0);
      if (w.contains("map") && w["map"].is_array())
        for (const json& v : w["map"]) m.map.push_back(v.is_number() ? v.get<float>() : 0.0f);
      if (m.map.size() != static_cast<size_t>(m.grid_h) * static_cast<size_t>(m.grid_w)) m.map.clear();
      insight.words.push_back(std::move(m));
    }
  }
  return insight;
}

Captioner MakeRemoteCaptioner(std::shared_ptr<const RemoteClient> client, RemoteCaptionRequest request,
                              std::function<void(const std::string&, CaptionInsight)> on_insight) {
  return [client = std::move(client), request = std::move(request), on_insight = std::move(on_insight)](
             const std::string& path) {
    const std::string bytes = ReadWholeFile(path, path + ": cannot read the image");
    const json answer = client->PostChat(ChatRequestBody(request, bytes, ImageMimeType(bytes, path)));
    std::string caption = CaptionFromAnswer(answer, request.json_answer, request.options.max_new_tokens, path);
    if (on_insight)
      if (auto insight = InsightFromAnswer(answer)) on_insight(path, std::move(*insight));
    return caption;
  };
}

}  // namespace glance::remote
