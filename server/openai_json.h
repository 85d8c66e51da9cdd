#pragma once
// The OpenAI chat-completions wire format the server answers with: the completion object,
// streamed chunks (server-sent events), the model list, and Glance's extension field
// ("glance": timing, reuse of a held conversation, and on request per-word attention maps).
#include <string>

#include <nlohmann/json.hpp>

#include "server/chat_service.h"

namespace glance::server {

struct ResponseIds {
  std::string id;       // "chatcmpl-..."
  int64_t created = 0;  // unix seconds
  std::string model;
};

nlohmann::json UsageJson(const Completion& c);
// timing (TurnStats as core/engine/events_json.h writes it), queue_s, reused_prompt_tokens,
// and with `attention` the words with their mean maps over the last image's grid.
nlohmann::json GlanceJson(const Completion& c, bool attention);
nlohmann::json CompletionJson(const ResponseIds& ids, const Completion& c, bool attention);

// One SSE event: "data: {...}\n\n".
std::string SseEvent(const nlohmann::json& j);
nlohmann::json ChunkJson(const ResponseIds& ids, const nlohmann::json& delta, const nlohmann::json& finish_reason,
                         const nlohmann::json& logprobs = nullptr);

nlohmann::json ModelsJson(const std::string& model_id, int64_t created);

}  // namespace glance::server
