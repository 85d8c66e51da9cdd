#include "server/openai_json.h"

#include "core/engine/caption_insight.h"
#include "core/engine/events_json.h"
#include "server/tool_call_stream.h"

namespace glance::server {

using nlohmann::json;

namespace {
std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }
}  // namespace

json UsageJson(const Completion& c) {
  return {{"prompt_tokens", c.prompt_tokens},
          {"completion_tokens", c.completion_tokens},
          {"total_tokens", c.prompt_tokens + c.completion_tokens}};
}

json GlanceJson(const Completion& c, bool attention) {
  json g = {{"timing", ToJson(c.turn.stats)},
            {"queue_s", c.queue_s},
            {"reused_prompt_tokens", c.reused_tokens},
            {"stop_reason", c.turn.stop_reason}};
  if (attention) {
    // One map per word: the mean over its tokens of the head-and-layer mean map.
    json words = json::array();
    for (const CaptionWordMap& w : WordMeanMaps(c.turn))
      words.push_back({{"text", w.text}, {"grid_h", w.grid_h}, {"grid_w", w.grid_w}, {"map", w.map}});
    g["attention"] = {{"words", words}};
  }
  return g;
}

json CompletionJson(const ResponseIds& ids, const Completion& c, bool attention) {
  json message = {{"role", "assistant"}, {"content", c.text}};
  if (!c.tool_calls.empty()) {
    // OpenAI: content is the text before the calls, null when there is none.
    if (c.text.empty()) message["content"] = nullptr;
    message["tool_calls"] = ToolCallsJson(c.tool_calls, c.tool_call_ids);
  }
  return {{"id", ids.id},
          {"object", "chat.completion"},
          {"created", ids.created},
          {"model", ids.model},
          {"choices", json::array({{{"index", 0},
                                    {"message", message},
                                    {"logprobs", c.logprobs},
                                    {"finish_reason", c.finish_reason}}})},
          {"usage", UsageJson(c)},
          {"glance", GlanceJson(c, attention)}};
}

std::string SseEvent(const json& j) { return "data: " + Dump(j) + "\n\n"; }

json ChunkJson(const ResponseIds& ids, const json& delta, const json& finish_reason, const json& logprobs) {
  return {{"id", ids.id},
          {"object", "chat.completion.chunk"},
          {"created", ids.created},
          {"model", ids.model},
          {"choices", json::array({{{"index", 0}, {"delta", delta}, {"logprobs", logprobs}, {"finish_reason", finish_reason}}})}};
}

json ModelsJson(const std::string& model_id, int64_t created) {
  return {{"object", "list"},
          {"data", json::array({{{"id", model_id}, {"object", "model"}, {"created", created}, {"owned_by", "glance"}}})}};
}

}  // namespace glance::server
