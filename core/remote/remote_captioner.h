#pragma once
// A Captioner (core/engine/caption_folder.h) that asks an OpenAI-compatible server instead of a
// local model: one chat-completions request per image, the image as a base64 data: URL before
// the question, as a local Session::AttachImage + Send puts it, so a `glance-cli serve` with the
// same model and greedy settings gives the same caption as captioning here.
//
// What is sent from GenerateOptions: max_tokens; the sampling when one is chosen (greedy as
// temperature 0; custom as temperature, top_p, top_k when on, presence_penalty when on); the seed;
// chat_template_kwargs.enable_thinking when thinking is forced on or off; the image mode as
// image_url.detail (fast = low, detail = high). A JSON answer is response_format json_object, or
// json_schema with the schema. min_p and repetition_penalty have no field in the OpenAI API:
// RemoteRequestProblem names them so the run refuses them before it starts.
//
// Thread contract: the captioner may be called from several threads at once (it shares only the
// immutable RemoteClient).
#include <memory>
#include <optional>
#include <string>

#include "core/engine/caption_folder.h"
#include "core/engine/caption_insight.h"
#include "core/engine/session.h"
#include "core/vision/image_preprocessor.h"  // ImageMode
#include "core/remote/remote_client.h"

namespace glance::remote {

struct RemoteCaptionRequest {
  std::string model;          // the request's "model"
  std::optional<std::string> system;
  std::string prompt;         // the question
  GenerateOptions options;
  ImageMode mode = ImageMode::kFast;
  bool json_answer = false;   // the caption is a JSON document (a json preset, --json-schema)
  std::string json_schema;    // with json_answer: the schema's text ("" = any JSON object)
  // Ask for the answer's attention maps in the "glance" request field: only for a Glance server
  // (another server may refuse a field it does not know; ResolveRemoteModel tells).
  bool glance_attention = false;
};

// One line naming the setting a remote request cannot carry, or "" when all can be sent.
std::string RemoteRequestProblem(const GenerateOptions& options);

// The request body for one image (`bytes`, its MIME type `mime`).
std::string ChatRequestBody(const RemoteCaptionRequest& request, const std::string& bytes, const std::string& mime);

// "image/png", ... from the file's first bytes (its name's extension when they say nothing).
std::string ImageMimeType(const std::string& bytes, const std::string& path);

// The caption in a chat-completions answer; throws glance::Error naming `where` when the answer
// has no message text, or a JSON answer was cut off at max_tokens.
std::string CaptionFromAnswer(const nlohmann::json& answer, bool json_answer, int max_tokens, const std::string& where);

// A Glance server's "glance" answer field (server/openai_json.cpp GlanceJson): its timing and,
// when asked for, one attention map per word; nullopt when the answer has none (another server).
std::optional<CaptionInsight> InsightFromAnswer(const nlohmann::json& answer);

// `on_insight` (optional) hears each answer's InsightFromAnswer, with the image's path, on the
// thread that captioned it, before the caption is returned.
Captioner MakeRemoteCaptioner(std::shared_ptr<const RemoteClient> client, RemoteCaptionRequest request,
                              std::function<void(const std::string& path, CaptionInsight)> on_insight = {});

}  // namespace glance::remote
