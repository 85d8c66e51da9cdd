#include "server/request_fields.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace glance::server {

namespace {

constexpr FieldUse H = FieldUse::kHonoured;
constexpr FieldUse R = FieldUse::kRefused;
constexpr FieldUse I = FieldUse::kIgnored;

constexpr std::array kChatFields{
    RequestField{"model", H, "any name is accepted; the loaded model answers, and the response names it"},
    RequestField{"messages", H, "system/developer, user and assistant messages; text and images in any order"},
    RequestField{"max_tokens", H, "capped by --max-tokens-limit"},
    RequestField{"max_completion_tokens", H, "as max_tokens"},
    RequestField{"stream", H, "server-sent events, OpenAI's chunk shape"},
    RequestField{"stream_options", H, "include_usage"},
    RequestField{"temperature", H, "0 is greedy"},
    RequestField{"top_p", H, ""},
    RequestField{"top_k", H, "an extension (llama.cpp, vLLM)"},
    RequestField{"presence_penalty", H, ""},
    RequestField{"seed", H, "the same seed, request and model give the same answer"},
    RequestField{"stop", H, "up to 4 strings"},
    RequestField{"n", H, "1 only; n > 1 is refused"},
    RequestField{"chat_template_kwargs", H, "enable_thinking only (vLLM's and llama.cpp's extension)"},
    RequestField{"glance", H, "attention maps, image mode and forced_answer (teacher forcing: the answer is the "
                              "given text, e.g. a scripted answer in tests; this server's extension)"},
    RequestField{"frequency_penalty", R, "frequency_penalty is not implemented (use presence_penalty)"},
    RequestField{"logit_bias", R, "logit_bias is not implemented"},
    RequestField{"logprobs", H, "each token's log-probability after penalties, a response_format's mask and "
                                "temperature, before top-k/top-p (core/engine/logprobs.h)"},
    RequestField{"top_logprobs", H, "0 to 20, with logprobs true"},
    RequestField{"response_format", H, "text, json_object, json_schema (constrained decoding: the answer is a "
                                       "document the schema accepts; keywords it cannot enforce are a 400)"},
    RequestField{"tools", H, "function tools, rendered by the model's chat template; its calls come back as "
                             "tool_calls (a call written badly, e.g. an unknown function or arguments that do not "
                             "fit their types, comes back as plain content, never guessed at)"},
    RequestField{"tool_choice", H, "auto (calls parsed), none (tools still rendered, the answer is not parsed), "
                                   "required and a named function (constrained decoding: the answer is one or "
                                   "more well-formed calls)"},
    RequestField{"functions", R, "function calls are not implemented"},
    RequestField{"function_call", R, "function calls are not implemented"},
    RequestField{"audio", R, "audio output is not supported: the model writes text"},
    RequestField{"modalities", R, "only the text modality is supported"},
    RequestField{"prediction", R, "predicted outputs are not implemented"},
    RequestField{"web_search_options", R, "web search is not available: nothing leaves this machine"},
    RequestField{"reasoning_effort", R,
                 "reasoning_effort is not supported; use chat_template_kwargs.enable_thinking"},
    RequestField{"verbosity", R, "verbosity is not supported"},
    RequestField{"parallel_tool_calls", H, "false: one call at most (required/named choices are constrained to "
                                           "one; with auto an answer of several calls is returned as text)"},
    RequestField{"user", I, "a local server has no accounts to attribute requests to"},
    RequestField{"safety_identifier", I, "a local server has no accounts to attribute requests to"},
    RequestField{"store", I, "nothing is stored: conversations live only in this server's memory"},
    RequestField{"metadata", I, "nothing is stored to attach it to"},
    RequestField{"service_tier", I, "one local tier"},
    RequestField{"prompt_cache_key", I, "conversations are reused automatically by their history"},
};

constexpr std::array kPartTypes{
    RequestField{"text", H, "in order with the images, concatenated with no separator as the chat template does"},
    RequestField{"image_url", H, "a data: URL (PNG, JPEG, WebP, BMP, TIFF); image_url.detail low/high/auto"},
    RequestField{"input_audio", R, "audio input is not supported"},
    RequestField{"file", R, "file inputs are not supported"},
    RequestField{"refusal", R, "refusal parts are not supported"},
};

constexpr std::array kMessageFields{
    RequestField{"role", H, "system, developer (as system), user, assistant, tool"},
    RequestField{"content", H, "a string or an array of parts"},
    RequestField{"name", R, "message names are not rendered by the model's chat template"},
    RequestField{"tool_calls", H, "an assistant message's function calls (content may then be null), rendered back"},
    RequestField{"tool_call_id", H, "required on a tool message; not rendered by the chat template"},
    RequestField{"function_call", R, "function calls are not implemented"},
    RequestField{"audio", R, "audio is not supported"},
    RequestField{"refusal", I, "an earlier answer's refusal text is not rendered by the chat template"},
    RequestField{"reasoning_content", I,
                 "the chat template drops the reasoning of answers before the last user message"},
};

}  // namespace

std::span<const RequestField> ChatRequestFields() { return kChatFields; }
std::span<const RequestField> ContentPartTypes() { return kPartTypes; }
std::span<const RequestField> MessageFields() { return kMessageFields; }

const RequestField* FindField(std::span<const RequestField> table, const std::string& name) {
  const auto it = std::find_if(table.begin(), table.end(),
                               [&](const RequestField& f) { return name == f.name; });
  return it == table.end() ? nullptr : &*it;
}

}  // namespace glance::server
