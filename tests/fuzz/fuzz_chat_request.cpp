// The server's request reader (server/chat_request.h, data_url.h): the body of
// POST /v1/chat/completions as any local program — or a web page the user visits — may send it.
// It must answer with an ApiError naming the field, or a request that keeps the limits it was
// checked against. The same bytes also go to the data-URL reader alone, so the fuzzer reaches
// the base64 decoder without first having to build JSON around it.
#include <cstdlib>
#include <string>

#include "server/api_error.h"
#include "server/chat_request.h"
#include "server/data_url.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

// What a parsed request promises the rest of the server (chat_request.h).
void CheckAccepted(const glance::server::ChatRequest& r, const glance::server::ServerLimits& limits) {
  if (r.messages.empty() || r.messages.size() > static_cast<size_t>(limits.max_messages)) std::abort();
  // A named tool_choice names one of the tools; required has tools.
  using Choice = glance::server::ChatRequest::ToolChoice;
  if (r.tool_choice == Choice::kRequired && r.tools.empty()) std::abort();
  if (r.tool_choice == Choice::kFunction) {
    bool found = false;
    for (const std::string& t : r.tools)
      found = found || t.find("\"name\":\"" + r.tool_choice_name + "\"") != std::string::npos;
    if (!found) std::abort();
  }
  if (r.messages.back().role != "user" && r.messages.back().role != "tool") std::abort();
  size_t images = 0;
  for (size_t i = 0; i < r.messages.size(); ++i) {
    const auto& m = r.messages[i];
    if (m.role != "system" && m.role != "user" && m.role != "assistant" && m.role != "tool") std::abort();
    if (!m.images.empty() && m.role != "user") std::abort();
    // Calls only from the assistant, each named; a tool result answers an assistant's calls.
    if (!m.tool_calls.empty() && m.role != "assistant") std::abort();
    for (const auto& c : m.tool_calls)
      if (c.name.empty() || c.name.find_first_of("<>\n") != std::string::npos) std::abort();
    if (m.role == "tool" && (i == 0 || (r.messages[i - 1].role != "tool" && r.messages[i - 1].tool_calls.empty())))
      std::abort();
    for (const auto& img : m.images)
      if (img.bytes.empty() || img.sha256.size() != 64) std::abort();
    images += m.images.size();
    // The parts hold every image once, in order, and the text parts make up the text.
    size_t next_image = 0;
    std::string text;
    for (const auto& p : m.parts) {
      if (p.kind == glance::MessagePart::kImage) {
        if (p.image != static_cast<int>(next_image++)) std::abort();
      } else {
        if (p.text.empty()) std::abort();
        text += p.text;
      }
    }
    if (next_image != m.images.size() || text != m.text) std::abort();
  }
  if (images > static_cast<size_t>(limits.max_images)) std::abort();
  if (r.max_tokens < 1 || r.max_tokens > limits.max_tokens) std::abort();
  if (r.stop.size() > 4) std::abort();
  if (const auto s = r.Sampling(); s && !s->greedy) {
    if (!(s->temperature > 0 && s->temperature <= 2) || !(s->top_p > 0 && s->top_p <= 1) || s->top_k < 0)
      std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string body(glance::fuzz::AsText(data, size));
  glance::server::ServerLimits limits;
  limits.max_images = 3;  // small limits, so the fuzzer can reach the edges
  limits.max_messages = 6;
  limits.max_tokens = 64;
  limits.max_image_megapixels = 1.0;
  try {
    CheckAccepted(glance::server::ParseChatRequest(body, limits), limits);
  } catch (const glance::server::ApiError&) {
  }
  try {
    const auto url = glance::server::ParseImageDataUrl(body, "fuzz");
    if (url.bytes.empty() || url.mime.rfind("image/", 0) != 0) std::abort();
  } catch (const glance::server::ApiError&) {
  }
  return 0;
}
