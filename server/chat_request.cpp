#include "server/chat_request.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/engine/logprobs.h"
#include "core/text/json_grammar.h"
#include "core/util/error.h"
#include "core/util/json_field.h"
#include "core/util/sha256.h"
#include "core/vision/image_header.h"
#include "server/api_error.h"
#include "server/data_url.h"
#include "server/request_fields.h"
#include "server/tool_request.h"

namespace glance::server {

using nlohmann::json;

namespace {

std::string Where(const std::string& base, size_t i) { return base + "[" + std::to_string(i) + "]"; }

double Number(const json& body, const char* name, double lo, double hi) {
  const json& v = body.at(name);
  if (!v.is_number()) throw BadRequest(std::string(name) + " must be a number", name);
  const double x = v.get<double>();
  if (!(x >= lo && x <= hi))
    throw BadRequest(std::string(name) + " must be between " + json(lo).dump() + " and " + json(hi).dump(), name);
  return x;
}

// The image's size from its header, before anything decodes it (core/vision/image_header.h).
void CheckImageSize(const RequestImage& img, const ServerLimits& limits) {
  const auto format = vision::DetectImageFormat(img.bytes);
  if (format == vision::ImageFormat::kUnknown)
    throw BadRequest("the image is not PNG, JPEG, WebP, BMP or TIFF", img.param);
  if (const auto dims = vision::ReadImageDims(img.bytes, format)) {
    const double mp = static_cast<double>(dims->width) * static_cast<double>(dims->height) / 1e6;
    if (mp > limits.max_image_megapixels) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "the image is %lldx%lld (%.1f megapixels), above this server's limit of %.1f",
                    static_cast<long long>(dims->width), static_cast<long long>(dims->height), mp,
                    limits.max_image_megapixels);
      throw ApiError(413, "image_too_large", buf, img.param);
    }
  }
}

// A value that asks for nothing (null, false, 0, "", [], {}, and the defaults named below): a
// refused field sent with it is accepted, since clients send such defaults meaning nothing.
bool IsNoOp(const std::string& name, const json& v) {
  if (v.is_null() || (v.is_boolean() && !v.get<bool>()) || (v.is_number() && v.get<double>() == 0.0) ||
      ((v.is_string() || v.is_array() || v.is_object()) && v.empty()))
    return true;
  if (name == "response_format") return v.is_object() && v.size() == 1 && v.value("type", "") == "text";
  if (name == "modalities") return v == json::array({"text"});
  return false;
}

// Refuses fields of `obj` that `table` refuses (unless sent as a no-op) or does not know.
void CheckFields(const json& obj, std::span<const RequestField> table, const std::string& where,
                 const char* what) {
  for (const auto& [name, value] : obj.items()) {
    const std::string param = where.empty() ? name : where + "." + name;
    const RequestField* f = FindField(table, name);
    if (!f) throw BadRequest(param + " is not a known " + what + " field; nothing was run", param);
    if (f->use == FieldUse::kRefused && !IsNoOp(name, value))
      throw BadRequest(param + ": " + f->note + "; the request was not run", param);
  }
}

ImageMode ImageModeOf(const json& image_url, const std::string& where, ImageMode fallback) {
  if (!image_url.is_object() || !HasField(image_url, "detail")) return fallback;
  const json& d = image_url["detail"];
  if (d == "low") return ImageMode::kFast;
  if (d == "high") return ImageMode::kDetail;
  if (d == "auto") return fallback;
  throw BadRequest(where + ".detail must be low, high or auto", where + ".detail");
}

RequestMessage ParseMessage(const json& m, const std::string& where, int& images_left, const ServerLimits& limits,
                            ImageMode image_mode) {
  if (!m.is_object()) throw BadRequest(where + " must be an object", where);
  CheckFields(m, MessageFields(), where, "message");
  if (!m.contains("role") || !m["role"].is_string()) throw BadRequest(where + ".role is missing", where + ".role");
  RequestMessage msg;
  msg.role = m["role"].get<std::string>();
  if (msg.role == "developer") msg.role = "system";  // OpenAI's newer name for it
  if (msg.role != "system" && msg.role != "user" && msg.role != "assistant" && msg.role != "tool")
    throw BadRequest(where + ".role '" + msg.role + "' is not supported (system, user, assistant, tool)", where + ".role");
  if (HasField(m, "tool_calls")) {
    if (msg.role != "assistant") throw BadRequest(where + ".tool_calls: only assistant messages make calls", where + ".tool_calls");
    msg.tool_calls = ParseMessageToolCalls(m["tool_calls"], where);
  }
  if (msg.role == "tool") {
    if (!m.contains("tool_call_id") || !m["tool_call_id"].is_string())
      throw BadRequest(where + ".tool_call_id is missing (a tool message answers a call)", where + ".tool_call_id");
    msg.tool_call_id = m["tool_call_id"].get<std::string>();
  } else if (HasField(m, "tool_call_id")) {
    throw BadRequest(where + ".tool_call_id: only tool messages answer a call", where + ".tool_call_id");
  }
  const json* content = m.contains("content") ? &m["content"] : nullptr;
  if (!content || content->is_null()) {
    if (msg.role != "assistant") throw BadRequest(where + ".content is missing", where + ".content");
    return msg;
  }
  if (content->is_string()) {
    msg.text = content->get<std::string>();
    if (!msg.text.empty()) msg.parts.push_back(MessagePart::Text(msg.text));
    return msg;
  }
  if (!content->is_array()) throw BadRequest(where + ".content must be a string or an array of parts", where + ".content");
  for (size_t k = 0; k < content->size(); ++k) {
    const json& part = (*content)[k];
    const std::string pw = Where(where + ".content", k);
    if (!part.is_object() || !part.contains("type") || !part["type"].is_string())
      throw BadRequest(pw + " must be an object with a type", pw);
    const std::string type = part["type"].get<std::string>();
    const RequestField* known = FindField(ContentPartTypes(), type);
    if (!known) throw BadRequest(pw + ".type '" + type + "' is not a known content part type", pw + ".type");
    if (known->use == FieldUse::kRefused) throw BadRequest(pw + ".type '" + type + "': " + known->note, pw + ".type");
    if (type == "text") {
      if (!part.contains("text") || !part["text"].is_string()) throw BadRequest(pw + ".text must be a string", pw);
      const std::string text = part["text"].get<std::string>();
      msg.text += text;  // the chat template concatenates parts with no separator
      if (!text.empty()) msg.parts.push_back(MessagePart::Text(text));
    } else if (type == "image_url") {
      if (msg.role != "user") throw BadRequest("images are accepted in user messages only", pw);
      const json* iu = part.contains("image_url") ? &part["image_url"] : nullptr;
      const json* url = iu && iu->is_object() && iu->contains("url") ? &(*iu)["url"] : iu;
      if (!url || !url->is_string()) throw BadRequest(pw + ".image_url.url must be a string", pw + ".image_url");
      if (--images_left < 0)
        throw BadRequest("more than " + std::to_string(limits.max_images) + " images in one request", pw);
      RequestImage img;
      img.param = pw + ".image_url";
      img.bytes = ParseImageDataUrl(url->get<std::string>(), img.param).bytes;
      CheckImageSize(img, limits);
      img.sha256 = Sha256Hex(img.bytes.data(), img.bytes.size());
      img.mode = ImageModeOf(*iu, pw + ".image_url", image_mode);
      msg.parts.push_back(MessagePart::Image(static_cast<int>(msg.images.size())));
      msg.images.push_back(std::move(img));
    }
  }
  return msg;
}

// response_format (OpenAI's Structured Outputs): {"type": "text" | "json_object" | "json_schema",
// "json_schema": {"name", "description", "schema", "strict"}}. The schema is compiled here, so a
// keyword the grammar cannot enforce is a 400 naming it before anything runs. Its text is read
// from an order-keeping parse of the body: properties are generated in the order sent.
void ParseResponseFormat(const json& rf, const std::string& body, ChatRequest& r) {
  const std::string where = "response_format";
  if (!rf.is_object() || !rf.contains("type") || !rf["type"].is_string())
    throw BadRequest(where + " must be an object with a type (text, json_object, json_schema)", where);
  const std::string type = rf["type"].get<std::string>();
  for (const auto& [name, value] : rf.items())
    if (name != "type" && !(name == "json_schema" && type == "json_schema"))
      throw BadRequest(where + "." + name + " is not a known field for type " + type, where + "." + name);
  if (type == "text") return;
  if (type == "json_object") {
    r.format = ChatRequest::Format::kJsonObject;
    return;
  }
  if (type != "json_schema")
    throw BadRequest(where + ".type '" + type + "' is not supported (text, json_object, json_schema)", where + ".type");
  const std::string js = where + ".json_schema";
  if (!rf.contains("json_schema") || !rf["json_schema"].is_object()) throw BadRequest(js + " must be an object", js);
  for (const auto& [name, value] : rf["json_schema"].items()) {
    if (name != "name" && name != "description" && name != "schema" && name != "strict")
      throw BadRequest(js + "." + name + " is not a known field (name, description, schema, strict)", js + "." + name);
    if (name == "strict" && !value.is_boolean() && !value.is_null()) throw BadRequest(js + ".strict must be true or false", js + ".strict");
  }
  if (!rf["json_schema"].contains("schema")) throw BadRequest(js + ".schema is missing", js + ".schema");
  const auto ordered = nlohmann::ordered_json::parse(body, nullptr, /*allow_exceptions=*/false);
  r.json_schema = ordered["response_format"]["json_schema"]["schema"].dump();
  try {
    text::CompileJsonSchemaText(r.json_schema, js + ".schema");
  } catch (const Error& e) {
    throw BadRequest(js + ".schema: " + e.what(), js + ".schema");
  }
  r.format = ChatRequest::Format::kJsonSchema;
}

}  // namespace

std::optional<SamplingParams> ChatRequest::Sampling() const {
  if (!temperature && !top_p && !top_k && !presence_penalty) return std::nullopt;
  if (temperature && *temperature == 0.0f) return SamplingParams::Greedy();
  SamplingParams s;
  s.greedy = false;
  s.temperature = temperature.value_or(1.0f);
  s.top_p = top_p.value_or(1.0f);
  s.top_k = top_k.value_or(0);
  s.presence_penalty = presence_penalty.value_or(0.0f);
  return s;
}

ChatRequest ParseChatRequest(const std::string& body, const ServerLimits& limits) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw BadRequest("the request body is not valid JSON");
  if (!j.is_object()) throw BadRequest("the request body must be a JSON object");
  ChatRequest r;
  CheckFields(j, ChatRequestFields(), "", "chat-completions");
  // glance.image_mode is every image's default, so it is read before the messages.
  if (HasField(j, "glance")) {
    const json& g = j["glance"];
    if (!g.is_object()) throw BadRequest("glance must be an object", "glance");
    for (const auto& [name, value] : g.items())
      if (name != "attention" && name != "image_mode" && name != "forced_answer")
        throw BadRequest("glance." + name + " is not a known field (attention, image_mode, forced_answer)", "glance." + name);
    if (g.contains("forced_answer")) {
      if (!g["forced_answer"].is_string()) throw BadRequest("glance.forced_answer must be a string", "glance.forced_answer");
      r.forced_answer = g["forced_answer"].get<std::string>();
    }
    if (g.contains("attention")) {
      if (!g["attention"].is_boolean()) throw BadRequest("glance.attention must be true or false", "glance.attention");
      r.attention = g["attention"].get<bool>();
    }
    if (g.contains("image_mode")) {
      if (!g["image_mode"].is_string()) throw BadRequest("glance.image_mode must be fast or detail", "glance.image_mode");
      const std::optional<ImageMode> m = ParseImageMode(g["image_mode"].get<std::string>());
      if (!m) throw BadRequest("glance.image_mode must be fast or detail", "glance.image_mode");
      r.image_mode = *m;
    }
  }
  if (HasField(j, "chat_template_kwargs")) {
    const json& k = j["chat_template_kwargs"];
    if (!k.is_object()) throw BadRequest("chat_template_kwargs must be an object", "chat_template_kwargs");
    for (const auto& [name, value] : k.items()) {
      const std::string param = "chat_template_kwargs." + name;
      if (name != "enable_thinking")
        throw BadRequest(param + " is not supported (only enable_thinking is)", param);
      if (!value.is_boolean()) throw BadRequest(param + " must be true or false", param);
      r.enable_thinking = value.get<bool>();
    }
  }
  if (HasField(j, "model")) {
    if (!j["model"].is_string()) throw BadRequest("model must be a string", "model");
    r.model = j["model"].get<std::string>();
  }
  if (!j.contains("messages") || !j["messages"].is_array() || j["messages"].empty())
    throw BadRequest("messages must be a non-empty array", "messages");
  const json& msgs = j["messages"];
  if (msgs.size() > static_cast<size_t>(limits.max_messages))
    throw BadRequest("more than " + std::to_string(limits.max_messages) + " messages in one request", "messages");
  int images_left = limits.max_images;
  for (size_t i = 0; i < msgs.size(); ++i)
    r.messages.push_back(ParseMessage(msgs[i], Where("messages", i), images_left, limits, r.image_mode));
  // Shape: [system], then a user message; an assistant message answers a user or tool message;
  // tool messages follow an assistant message that made calls; the last is a user or tool message.
  size_t first = 0;
  if (r.messages[0].role == "system") first = 1;
  for (size_t i = first; i < r.messages.size(); ++i) {
    const std::string& role = r.messages[i].role;
    const std::string before = i == first ? "" : r.messages[i - 1].role;
    const bool ok = role == "user"        ? before != "user"
                    : role == "assistant" ? before == "user" || before == "tool"
                    : role == "tool"      ? before == "tool" || (before == "assistant" && !r.messages[i - 1].tool_calls.empty())
                                          : false;
    if (!ok) {
      const std::string why = role == "tool" ? " (a tool message answers an assistant message's tool_calls)"
                              : role == "system" ? " (a system message comes first)"
                              : " (after an optional system message, user and assistant alternate; tool results "
                                "follow the assistant message that made the calls)";
      throw BadRequest(Where("messages", i) + ": a " + role + " message cannot come " +
                       (before.empty() ? std::string("first") : "after a " + before + " message") + why,
                       Where("messages", i));
    }
  }
  if ((r.messages.back().role != "user" && r.messages.back().role != "tool") || r.messages.size() == first)
    throw BadRequest("the last message must be the user's or a tool result", "messages");

  const char* max_name = HasField(j, "max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
  if (HasField(j, max_name)) {
    const json& v = j[max_name];
    if (!v.is_number_integer() || v.get<int64_t>() < 1) throw BadRequest(std::string(max_name) + " must be a positive integer", max_name);
    if (v.get<int64_t>() > limits.max_tokens)
      throw BadRequest(std::string(max_name) + " is above this server's limit of " + std::to_string(limits.max_tokens), max_name);
    r.max_tokens = static_cast<int>(v.get<int64_t>());
  } else {
    // No length asked for: the default, but never past the cap the server was started with.
    r.max_tokens = std::min(r.max_tokens, limits.max_tokens);
  }
  if (HasField(j, "stream")) {
    if (!j["stream"].is_boolean()) throw BadRequest("stream must be true or false", "stream");
    r.stream = j["stream"].get<bool>();
  }
  if (HasField(j, "stream_options") && j["stream_options"].is_object() && j["stream_options"].contains("include_usage"))
    r.include_usage = j["stream_options"]["include_usage"].is_boolean() && j["stream_options"]["include_usage"].get<bool>();
  if (HasField(j, "temperature")) r.temperature = static_cast<float>(Number(j, "temperature", 0.0, 2.0));
  if (HasField(j, "top_p")) r.top_p = static_cast<float>(Number(j, "top_p", 0.0, 1.0));
  if (r.top_p && *r.top_p == 0.0f) throw BadRequest("top_p must be above 0", "top_p");
  if (HasField(j, "top_k")) r.top_k = static_cast<int>(Number(j, "top_k", 0, 1e6));
  if (HasField(j, "presence_penalty")) r.presence_penalty = static_cast<float>(Number(j, "presence_penalty", -2.0, 2.0));
  if (HasField(j, "seed")) {
    if (!j["seed"].is_number_integer()) throw BadRequest("seed must be an integer", "seed");
    r.seed = j["seed"].is_number_unsigned() ? j["seed"].get<uint64_t>() : static_cast<uint64_t>(j["seed"].get<int64_t>());
  }
  if (HasField(j, "n") && !(j["n"].is_number_integer() && j["n"].get<int64_t>() == 1))
    throw BadRequest("n: only n = 1 is supported (one answer per request); the request was not run", "n");
  if (HasField(j, "stop")) {
    const json& s = j["stop"];
    if (s.is_string()) r.stop.push_back(s.get<std::string>());
    else if (s.is_array() && s.size() <= 4 && std::all_of(s.begin(), s.end(), [](const json& x) { return x.is_string(); }))
      for (const auto& x : s) r.stop.push_back(x.get<std::string>());
    else throw BadRequest("stop must be a string or an array of up to 4 strings", "stop");
    std::erase(r.stop, std::string());
  }
  if (HasField(j, "response_format")) ParseResponseFormat(j["response_format"], body, r);
  if (r.format != ChatRequest::Format::kText && r.enable_thinking.value_or(false))
    throw BadRequest("chat_template_kwargs.enable_thinking cannot be true with a JSON response_format: the answer "
                     "must start with the document", "chat_template_kwargs.enable_thinking");
  {
    const auto ordered = nlohmann::ordered_json::parse(body, nullptr, /*allow_exceptions=*/false);
    ParseToolFields(j, ordered, r);
  }
  const bool constrained_calls =
      r.tool_choice == ChatRequest::ToolChoice::kRequired || r.tool_choice == ChatRequest::ToolChoice::kFunction;
  if (constrained_calls && r.format != ChatRequest::Format::kText)
    throw BadRequest("tool_choice required or a named function cannot be combined with a JSON response_format", "tool_choice");
  if (constrained_calls && r.enable_thinking.value_or(false))
    throw BadRequest("chat_template_kwargs.enable_thinking cannot be true with tool_choice required or a named "
                     "function: the answer must start with the call", "chat_template_kwargs.enable_thinking");
  if (HasField(j, "logprobs")) {
    if (!j["logprobs"].is_boolean()) throw BadRequest("logprobs must be true or false", "logprobs");
    if (j["logprobs"].get<bool>()) r.top_logprobs = 0;
  }
  if (HasField(j, "top_logprobs")) {
    const json& v = j["top_logprobs"];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > kMaxTopLogprobs)
      throw BadRequest("top_logprobs must be an integer from 0 to " + std::to_string(kMaxTopLogprobs), "top_logprobs");
    if (r.top_logprobs < 0) throw BadRequest("top_logprobs needs logprobs: true", "top_logprobs");
    r.top_logprobs = static_cast<int>(v.get<int64_t>());
  }
  return r;
}

}  // namespace glance::server
