#include "server/chat_service.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <span>

#include "core/engine/engine.h"
#include "core/engine/prompt_stream.h"
#include "core/engine/tool_call_constraint.h"
#include "core/text/tokenizer.h"
#include "core/util/atomic_write.h"
#include "core/util/error.h"
#include "core/vision/image_decode.h"
#include "server/api_error.h"
#include "server/tool_call_stream.h"

namespace glance::server {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

namespace {

std::string TrimmedText(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

// The history key's first entry when the request has tools: they are rendered in the first turn.
std::string ToolsKey(const std::vector<std::string>& tools) {
  std::string k = "tools";
  for (const std::string& t : tools) k += '\0' + t;
  return k;
}

}  // namespace

size_t NewMessageStart(const std::vector<RequestMessage>& messages) {
  size_t i = messages.size();
  while (i > 0 && (messages[i - 1].role == "user" || messages[i - 1].role == "tool")) --i;
  return i;
}

std::string MessageKey(const RequestMessage& m) {
  // The parts in order: the same text and images in another order is another conversation.
  std::string k = m.role;
  if (m.role == "assistant") {
    // The answer as the session holds it: the template trims it; arguments as JSON values.
    k += '\0' + TrimmedText(m.text);
    for (const ToolCall& c : m.tool_calls) {
      const auto args = nlohmann::ordered_json::parse(c.arguments.empty() ? "{}" : c.arguments, nullptr, false);
      k += "\0c" + c.name + '\0' + (args.is_discarded() ? c.arguments : args.dump());
    }
    return k;
  }
  if (m.role != "user") return k + '\0' + m.text;  // text only
  for (const MessagePart& p : m.parts) {
    k += p.kind == MessagePart::kText ? "\0t" : "\0i";
    k += p.kind == MessagePart::kText ? p.text : m.images[static_cast<size_t>(p.image)].sha256;
  }
  return k;
}

ChatService::ChatService(std::shared_ptr<const Engine> engine, const ServerLimits& limits)
    : engine_((engine ? engine : throw Error("the server needs a loaded model"))),
      limits_(limits),
      context_length_(0),
      queue_(limits.max_waiting, limits.max_wait_s),
      constraints_(engine_->tokenizer()) {
  model_id_ = engine_->info().name.empty() ? "glance" : engine_->info().name;
  SetContextLength(limits.context_length);
}

void ChatService::SetContextLength(int tokens) {
  if (tokens != 0 && tokens < kMinContextLimit)
    throw Error("the context length must be at least " + std::to_string(kMinContextLimit) + " tokens, not " +
                std::to_string(tokens));
  context_length_.store(tokens);
}

ChatService::~ChatService() { queue_.Shutdown(); }

ChatService::Held ChatService::TakeOrCreate(const ChatRequest& request, const std::vector<std::string>& history_key) {
  {
    std::lock_guard<std::mutex> lock(held_mu_);
    for (auto it = held_.begin(); it != held_.end(); ++it)
      if (it->key == history_key) {
        Held h = std::move(*it);
        held_.erase(it);
        return h;
      }
  }
  Held h;
  h.session = std::make_unique<Session>(engine_);
  const auto& msgs = request.messages;
  if (!msgs.empty() && msgs[0].role == "system") h.session->SetSystemPrompt(msgs[0].text);
  h.session->SetTools(request.tools);
  return h;
}

// A history this server does not hold (another server's, an edited answer, or one it dropped)
// is taken up with Session::Continue, which reads images by path: each image of the history is
// written to a private folder for the call and removed after.
void ChatService::ContinueHistory(Session& session, const ChatRequest& request) {
  const auto& msgs = request.messages;
  const size_t first = !msgs.empty() && msgs[0].role == "system" ? 1 : 0;
  const size_t new_from = NewMessageStart(msgs);
  if (new_from <= first) return;  // nothing before the new message
  std::string dir_template = (std::filesystem::temp_directory_path() / "glance-server-XXXXXX").string();
  if (!::mkdtemp(dir_template.data())) throw ApiError(503, "server_error", "cannot create a folder for the images");
  const std::filesystem::path dir = dir_template;
  SavedConversation turns;
  try {
    // A turn: the tool results and user message before an answer, then that answer.
    SavedTurn t;
    for (size_t i = first; i < new_from; ++i) {
      const RequestMessage& m = msgs[i];
      if (m.role == "tool") {
        t.tool_results.push_back(m.text);
        continue;
      }
      if (m.role == "user") {
        t.user_text = m.text;
        t.parts = m.parts;
        for (const RequestImage& img : m.images) {
          const std::string path = (dir / (img.sha256 + ".img")).string();
          // Checked (issue 35): an unchecked ofstream on a full disk left a cut-off image for the
          // engine to read; now the request is refused with the reason.
          try {
            WriteFileAtomically(path, std::string(reinterpret_cast<const char*>(img.bytes.data()), img.bytes.size()));
          } catch (const Error& e) {
            throw ApiError(503, "server_error", std::string("cannot keep an image of the conversation: ") + e.what());
          }
          t.images.push_back({path, img.sha256, img.mode});
        }
        continue;
      }
      t.answer = m.text;
      t.tool_calls = m.tool_calls;
      turns.push_back(std::move(t));
      t = SavedTurn{};
    }
    engine_thread_.Run([&] { session.Continue(turns); });
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    throw;
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

std::shared_ptr<const ToolCallConstraintSpec> ChatService::ToolCallSpec(const ChatRequest& request) {
  const bool named = request.tool_choice == ChatRequest::ToolChoice::kFunction;
  const std::string only = named ? request.tool_choice_name : "";
  const int max_calls = named || !request.parallel_tool_calls ? 1 : 16;
  std::string key = only + '\0' + std::to_string(max_calls);
  for (const std::string& t : request.tools) key += '\0' + t;
  {
    std::lock_guard<std::mutex> lock(tool_specs_mu_);
    const auto it = tool_specs_.find(key);
    if (it != tool_specs_.end()) return it->second;
  }
  auto spec = std::make_shared<const ToolCallConstraintSpec>(request.tools, only, max_calls, constraints_.vocab());
  std::lock_guard<std::mutex> lock(tool_specs_mu_);
  if (tool_specs_.size() >= 16) tool_specs_.clear();
  tool_specs_.emplace(key, spec);
  return spec;
}

void ChatService::Return(Held held) {
  std::lock_guard<std::mutex> lock(held_mu_);
  held_.push_front(std::move(held));
  while (static_cast<int>(held_.size()) > std::max(0, limits_.max_conversations)) held_.pop_back();
}

std::unique_ptr<ChatService::Job> ChatService::Prepare(const ChatRequest& request) {
  const auto t0 = Clock::now();
  std::unique_ptr<Job> job(new Job());
  job->service_ = this;
  job->turn_ = queue_.Acquire();
  job->queue_s_ = std::chrono::duration<double>(Clock::now() - t0).count();

  std::vector<std::string> history;
  if (!request.tools.empty()) history.push_back(ToolsKey(request.tools));
  const size_t new_from = NewMessageStart(request.messages);
  for (size_t i = 0; i < new_from; ++i) history.push_back(MessageKey(request.messages[i]));
  job->held_ = TakeOrCreate(request, history);
  // The limit in force now, for held conversations too (from this request on).
  if (const int tokens = context_length_.load(); tokens > 0) job->held_.session->SetContextLimit(tokens);
  try {
    if (job->held_.key.empty()) ContinueHistory(*job->held_.session, request);
  } catch (const Error& e) {
    job->held_ = {};
    throw BadRequest(std::string("cannot take up the conversation's history: ") + e.what(), "messages");
  }
  // The session now holds exactly `history`: if this request fails below, it is held under
  // that key (an empty key would hand the history to the next fresh conversation).
  job->held_.key = history;
  job->key_ = history;
  for (size_t i = new_from; i < request.messages.size(); ++i) job->key_.push_back(MessageKey(request.messages[i]));
  job->request_ = request;
  job->request_.messages.clear();  // the bytes are not needed past this point
  job->request_.messages.push_back({request.messages.back().role, request.messages.back().text, {}, {}});

  // The new message, part by part in the client's order (Send then sends what was built):
  // its tool results, then the user message's parts.
  const RequestMessage& last = request.messages.back();
  Session& s = *job->held_.session;
  try {
    engine_thread_.Run([&] {
      for (size_t i = new_from; i < request.messages.size(); ++i)
        if (request.messages[i].role == "tool") s.AddToolResult(request.messages[i].text);
      if (last.role != "user") return;
      for (const MessagePart& p : last.parts) {
        if (p.kind == MessagePart::kText) {
          s.AddText(p.text);
          continue;
        }
        const RequestImage& img = last.images[static_cast<size_t>(p.image)];
        const vision::RgbImage rgb = vision::DecodeImage(img.bytes, img.param);
        s.AttachImageRgb(rgb.pixels.data(), rgb.width, rgb.height, 0, img.mode);
      }
    });
  } catch (const Error& e) {
    job->KeepConversationAsItWas();
    throw BadRequest(e.what(), request.messages.back().images.empty() ? "" : "messages");
  }
  return job;
}

ChatService::Job::~Job() {
  if (!ran_) KeepConversationAsItWas();  // a job that never ran leaves it as it found it
}

void ChatService::Job::KeepConversationAsItWas() {
  if (!held_.session) return;
  held_.session->ClearPending();
  if (!held_.session->turns().empty()) service_->Return(std::move(held_));
  held_ = {};
}

Completion ChatService::Job::Run(const CompletionCallbacks& cb) {
  ran_ = true;
  Completion c;
  c.queue_s = queue_s_;
  std::atomic<bool> cancel{false};
  bool client_gone = false;
  auto alive = [&] {
    if (!client_gone && cb.client_alive && !cb.client_alive()) client_gone = true;
    if (client_gone) cancel = true;
  };
  // Logprobs, one entry per generated token; those not yet sent go with the next delta.
  const Tokenizer& tok = service_->engine_->tokenizer();
  json token_logprobs = json::array();
  size_t logprobs_sent = 0;
  auto entry = [&](const TokenLogprob& t) {
    const std::string bytes = tok.TokenBytes(t.token);
    return json{{"token", bytes},
                {"logprob", t.logprob},
                {"bytes", std::vector<int>(reinterpret_cast<const uint8_t*>(bytes.data()),
                                           reinterpret_cast<const uint8_t*>(bytes.data()) + bytes.size())}};
  };
  auto unsent_logprobs = [&]() -> json {
    if (request_.top_logprobs < 0) return nullptr;
    json content(token_logprobs.begin() + static_cast<std::ptrdiff_t>(logprobs_sent), token_logprobs.end());
    logprobs_sent = token_logprobs.size();
    return json{{"content", content}};
  };
  StreamCallbacks scb;
  scb.cancel = &cancel;
  scb.on_logprobs = [&](const GeneratedLogprobs& lp) {
    json e = entry(lp.chosen);
    e["top_logprobs"] = json::array();
    for (const TokenLogprob& t : lp.top) e["top_logprobs"].push_back(entry(t));
    token_logprobs.push_back(std::move(e));
  };
  // The client is asked after every token's forward pass (before it is sampled) and after
  // every prompt chunk: a client gone stops the turn before the next forward pass.
  scb.on_logits = [&](std::span<const float>) { alive(); };
  scb.on_progress = [&](const Progress&) { alive(); };
  scb.on_prompt = [&](const PromptStream& p) { c.prompt_ids = p.ids; };
  // With tools (and tool_choice not none) the text from where a call may start waits for the
  // answer's end: sent as content only if the answer holds no well-formed call.
  const bool calls_parsed = !request_.tools.empty() && request_.tool_choice != ChatRequest::ToolChoice::kNone;
  ToolCallHoldback holdback;
  auto deliver = [&](std::string out) {
    if (calls_parsed) out = holdback.Push(out);
    if (!out.empty() && cb.on_delta) cb.on_delta(out, unsent_logprobs());
  };
  // The session applies the stop sequences (o.stop): these pieces end before the first one.
  scb.on_text = [&](const std::string& piece) {
    c.text += piece;
    deliver(piece);
  };

  GenerateOptions o;
  o.max_new_tokens = request_.max_tokens;
  o.capture_attention = request_.attention;
  o.sampling = request_.Sampling();
  o.seed = request_.seed;
  o.enable_thinking = request_.enable_thinking;
  o.top_logprobs = request_.top_logprobs;
  o.parse_tool_calls = calls_parsed;
  o.stop = request_.stop;
  if (request_.forced_answer) {
    // Teacher forcing: the given text's tokens, then the stop token (the answer ends there).
    const std::vector<int32_t> ids = tok.Encode(*request_.forced_answer);
    o.forced_tokens.assign(ids.begin(), ids.end());
    if (!service_->engine_->stop_ids().empty()) o.forced_tokens.push_back(service_->engine_->stop_ids().front());
    o.max_new_tokens = std::max(o.max_new_tokens, static_cast<int>(o.forced_tokens.size()));
  }
  try {
    if (request_.format == ChatRequest::Format::kJsonObject) o.constraint = service_->constraints_.AnyObject();
    if (request_.format == ChatRequest::Format::kJsonSchema)
      o.constraint = service_->constraints_.ForSchemaText(request_.json_schema, "response_format.json_schema.schema");
  } catch (const Error& e) {
    KeepConversationAsItWas();
    throw BadRequest(e.what(), "response_format");
  }
  // tool_choice required / a named function: the answer is calls (core/engine/tool_call_constraint.h).
  const bool named = request_.tool_choice == ChatRequest::ToolChoice::kFunction;
  if (named || request_.tool_choice == ChatRequest::ToolChoice::kRequired) {
    try {
      o.constraint = service_->ToolCallSpec(request_);
    } catch (const Error& e) {
      KeepConversationAsItWas();
      throw BadRequest(e.what(), "tools");
    }
  }
  if (o.constraint) o.enable_thinking = false;  // the answer starts with the document or the call
  Session& s = *held_.session;
  try {
    service_->engine_thread_.Run([&] { c.turn = s.Send("", o, scb); });  // the parts Prepare added
  } catch (const Cancelled&) {
    // Gone during the prompt: nothing generated, the conversation kept as it was.
    KeepConversationAsItWas();
    c.finish_reason = "cancelled";
    return c;
  } catch (const Error& e) {
    KeepConversationAsItWas();
    throw ApiError(400, "context_length_exceeded", e.what(), "messages");
  }
  const bool logprobs_unsent = request_.top_logprobs >= 0 && logprobs_sent < token_logprobs.size();

  const TurnResult& r = c.turn;
  const bool stopped = r.stop_reason == "stop";  // a stop sequence
  c.finish_reason = stopped ? "stop"
                    : client_gone   ? "cancelled"
                    : r.stop_reason == "eos" ? "stop"
                                             : "length";  // max_tokens or the context limit
  // The answer's calls, when every one is well formed (parallel_tool_calls false: one at most);
  // else the whole answer is content, the text held back included.
  const bool took_calls = calls_parsed && r.tool_calls.ok && !stopped && !client_gone &&
                          (request_.parallel_tool_calls || r.tool_calls.calls.size() == 1);
  if (took_calls) {
    c.text = r.tool_calls.content;
    c.tool_calls = r.tool_calls.calls;
    for (size_t i = 0; i < c.tool_calls.size(); ++i) c.tool_call_ids.push_back(NewToolCallId());
    c.finish_reason = "tool_calls";
    holdback.Flush();
    // The calls' tokens' logprobs were held with their text: they go with an empty delta.
    if (logprobs_unsent && cb.on_delta) cb.on_delta("", unsent_logprobs());
  } else {
    const std::string held = holdback.Flush();
    if (!held.empty() && cb.on_delta) cb.on_delta(held, unsent_logprobs());
  }
  if (request_.top_logprobs >= 0) c.logprobs = json{{"content", token_logprobs}};
  // Tokens fed back after the prompt: every generated one but the last, unless the last
  // sample was the stop token (which was fed as the previous token's successor).
  const int fed = std::max(0, static_cast<int>(r.tokens.size()) - (r.stop_reason == "eos" ? 0 : 1));
  c.completion_tokens = static_cast<int>(r.tokens.size());
  c.prompt_tokens = r.stats.context_tokens - fed;
  c.reused_tokens = std::max(0, c.prompt_tokens - r.stats.prompt_tokens);
  // The session now holds this exchange; its key carries the answer as the session has it.
  key_.push_back(MessageKey({"assistant", s.turns().back().answer, {}, {}, s.turns().back().tool_calls}));
  held_.key = key_;
  service_->Return(std::move(held_));
  held_ = {};
  return c;
}

}  // namespace glance::server
