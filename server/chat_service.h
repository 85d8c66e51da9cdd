#pragma once
// The server without HTTP: takes a parsed ChatRequest, waits its turn on the one engine, finds
// the held conversation the request continues (or starts one), and generates. The HTTP layer
// (chat_server.h) and in-process callers (the bench) use it the same way.
//
// Continuation: a held Session is keyed by its tools and messages (role, text, image sha256s,
// tool calls). A request whose messages minus the new message (the last user message and the
// tool results before it) equal a held key continues that Session: only the new message is
// prefilled (design.md "Sessions and state"). Up to ServerLimits::
// max_conversations sessions are held, least recently used dropped first. Any other history is
// taken up with Session::Continue (processed once, then held like the others).
//
// Thread contract: Prepare() may be called from any thread; a Job is used by one thread and
// holds the engine (EngineQueue) until it is destroyed. The model itself always runs on the
// service's EngineThread; callbacks are called from it while the Job's caller waits.
#include <atomic>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/json_constraint.h"
#include "core/engine/tool_call_constraint.h"
#include "core/engine/session.h"
#include "server/chat_request.h"
#include "server/engine_queue.h"
#include "server/engine_thread.h"
#include "server/server_options.h"

namespace glance {
class Engine;
}

namespace glance::server {

struct Completion {
  std::string text;                // the answer, cut before a stop sequence; with tool_calls the text before them
  std::string finish_reason;       // "stop" | "length" | "tool_calls" | "cancelled"
  // The answer's calls (the request's tools, tool_choice not none, every call well formed);
  // a call written badly leaves the whole answer in `text` and this empty.
  std::vector<ToolCall> tool_calls;
  std::vector<std::string> tool_call_ids;  // "call_...", one per call
  int prompt_tokens = 0;           // the whole prompt, as OpenAI counts it
  int completion_tokens = 0;
  int reused_tokens = 0;           // prompt tokens taken from a held conversation's state
  double queue_s = 0.0;            // time waiting for the engine
  TurnResult turn;                 // stats, attention maps and words
  std::vector<int64_t> prompt_ids;  // the turn's whole prompt as the model read it (pads expanded)
  // OpenAI's choices[0].logprobs: {"content": [{token, logprob, bytes, top_logprobs}]} for the
  // tokens of `text` (logprobs asked for), else null.
  nlohmann::json logprobs;
};

struct CompletionCallbacks {
  // Answer text safe to show (stop sequences held back, and with tools the text from where a
  // call may start: server/tool_call_stream.h), as it is generated, with the
  // logprobs of the tokens produced since the previous delta ({"content": [...]}; null when
  // not asked for).
  std::function<void(const std::string& delta, const nlohmann::json& logprobs)> on_delta;
  // Polled after every token's forward pass and every prompt chunk, on the engine thread;
  // false cancels the generation before the next forward pass (the client went away).
  std::function<bool()> client_alive;
};

class ChatService {
 public:
  ChatService(std::shared_ptr<const Engine> engine, const ServerLimits& limits);
  ~ChatService();

  class Job;
  // Waits for the engine, then matches or starts the conversation and attaches the new
  // message's images. Throws ApiError (400 bad image, 429/503 queue) before any output.
  std::unique_ptr<Job> Prepare(const ChatRequest& request);

  const std::string& model_id() const { return model_id_; }
  const Engine& engine() const { return *engine_; }
  void Shutdown() { queue_.Shutdown(); }
  int waiting() const { return queue_.waiting(); }
  // ServerLimits::context_length for conversations from their next request on (the desktop
  // app's setting changes while its server runs). Throws glance::Error below kMinContextLimit.
  void SetContextLength(int tokens);
  EngineQueue& queue() { return queue_; }  // ChatServer::TryHoldEngine

 private:
  struct Held {
    std::unique_ptr<Session> session;
    std::vector<std::string> key;  // one fingerprint per message it holds
  };
  // The held session whose key is `history_key`, or a new one (key empty).
  Held TakeOrCreate(const ChatRequest& request, const std::vector<std::string>& history_key);
  void ContinueHistory(Session& session, const ChatRequest& request);
  void Return(Held held);

  std::shared_ptr<const Engine> engine_;
  ServerLimits limits_;
  std::atomic<int> context_length_;  // limits_.context_length, changed by SetContextLength
  std::string model_id_;
  EngineQueue queue_;
  EngineThread engine_thread_;  // where every forward pass runs
  JsonConstraintCache constraints_;  // response_format schemas, compiled once each
  // tool_choice required/named: the call-format constraint of a request's tools and choice,
  // kept (with its cached masks) for the next request that sends the same (at most 16).
  std::shared_ptr<const ToolCallConstraintSpec> ToolCallSpec(const ChatRequest& request);
  std::mutex tool_specs_mu_;
  std::map<std::string, std::shared_ptr<const ToolCallConstraintSpec>> tool_specs_;
  std::mutex held_mu_;
  std::list<Held> held_;  // most recently used first
  friend class Job;
};

class ChatService::Job {
 public:
  ~Job();
  // Generates the answer (throws ApiError for a conversation past the context limit).
  Completion Run(const CompletionCallbacks& callbacks);

 private:
  friend class ChatService;
  Job() = default;
  // Drops the images this request attached and returns the conversation to the held ones
  // (a session without turns is not worth holding); the job holds none afterwards.
  void KeepConversationAsItWas();
  ChatService* service_ = nullptr;
  EngineQueue::Turn turn_;
  Held held_;
  std::vector<std::string> key_;  // history + the new user message
  ChatRequest request_;
  double queue_s_ = 0.0;
  int reused_tokens_ = 0;
  bool ran_ = false;
};

// The fingerprint a message is matched by (role, text, image hashes, tool calls). An answer's
// text is compared trimmed, as the chat template renders it; a call's arguments as parsed JSON.
std::string MessageKey(const RequestMessage& m);
// The index of the request's new message: the last user message and the tool results before
// it, i.e. the messages after the last assistant message (or the system message).
size_t NewMessageStart(const std::vector<RequestMessage>& messages);

}  // namespace glance::server
