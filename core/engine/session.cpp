#include "core/engine/session.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>

#include "core/engine/attention_rollout.h"
#include "core/engine/session_impl.h"
#include "core/text/chat_template.h"
#include "core/util/sha256.h"
#include "core/vision/vision_tower.h"

namespace glance {

using namespace session_internal;

SessionImage SessionImpl::Encode(const vision::PreprocessedImage& pre, const std::string& path,
                                 const std::string& sha, ImageMode mode, Timing timing, const StreamCallbacks& cb,
                                 int index, int count) const {
  SessionImage img;
  engine->CheckWeightsUnchanged();  // the vision tower reads mapped weights too
  {
    ScopedStage s(timing, "vision");
    img.features = engine->vision().Forward(
        pre, engine->pool(), nullptr, {},
        [&](int done, int total) {
          if (cb.on_progress) cb.on_progress({Progress::Stage::kImage, done, total, index, count});
          return !Stopped(cb);
        },
        cb.cancel);
  }
  if (img.features.empty()) throw Cancelled();
  img.grid = {pre.merged_h(), pre.merged_w()};
  img.info.path = path;
  img.info.sha256 = sha;
  img.info.source_w = pre.source_w;
  img.info.source_h = pre.source_h;
  img.info.resized_w = pre.resized_w;
  img.info.resized_h = pre.resized_h;
  img.info.grid_w = pre.merged_w();
  img.info.grid_h = pre.merged_h();
  img.info.mode = mode;
  img.timing = std::move(timing);
  return img;
}

ImageInfo SessionImpl::Attach(SessionImage img) {
  images.push_back(std::move(img));
  image_infos.push_back(images.back().info);
  pending.push_back(MessagePart::Image(static_cast<int>(images.size()) - 1));
  return images.back().info;
}

// A turn from its ordered parts: the joined text and the image list derived from them.
static ChatTurn MakeTurn(std::vector<MessagePart> parts) {
  ChatTurn t;
  for (const MessagePart& p : parts) {
    if (p.kind == MessagePart::kText)
      t.user_text += p.text;
    else
      t.image_indices.push_back(p.image);
  }
  t.parts = std::move(parts);
  return t;
}

static std::vector<int> PendingImages(const std::vector<MessagePart>& parts) {
  std::vector<int> out;
  for (const MessagePart& p : parts)
    if (p.kind == MessagePart::kImage) out.push_back(p.image);
  return out;
}

std::vector<MessagePart> SavedTurn::OrderedParts() const {
  if (!parts.empty()) return parts;
  std::vector<MessagePart> out;
  for (size_t k = 0; k < images.size(); ++k) out.push_back(MessagePart::Image(static_cast<int>(k)));
  if (!user_text.empty()) out.push_back(MessagePart::Text(user_text));
  return out;
}

std::vector<ChatMessage> SessionImpl::Messages() const {
  std::vector<ChatMessage> msgs;
  if (!system_prompt.empty()) msgs.push_back(ChatMessage::FromText("system", system_prompt));
  for (size_t i = 0; i < turns.size(); ++i) {
    const ChatTurn& t = turns[i];
    for (const std::string& result : t.tool_results) msgs.push_back(ChatMessage::FromText("tool", result));
    if (!t.parts.empty() || t.tool_results.empty()) {
      ChatMessage user;
      user.role = "user";
      for (const MessagePart& p : t.parts)
        user.content.push_back(p.kind == MessagePart::kImage ? ContentPart::Image() : ContentPart::Text(p.text));
      msgs.push_back(std::move(user));
    }
    if (i + 1 < turns.size() && t.complete) {
      msgs.push_back(ChatMessage::FromText("assistant", t.answer));
      msgs.back().tool_calls = t.tool_calls;
    }
  }
  return msgs;
}

std::vector<int> SessionImpl::RenderOrder() const {
  std::vector<int> order;
  for (const ChatTurn& t : turns) order.insert(order.end(), t.image_indices.begin(), t.image_indices.end());
  return order;
}

PromptStream SessionImpl::Stream(std::optional<bool> thinking) const {
  std::vector<lm::ImageGrid> grids;
  for (int i : RenderOrder()) grids.push_back(images[static_cast<size_t>(i)].grid);
  PromptStream s = BuildPromptStream(*engine, Messages(), thinking, grids, tools);
  if (static_cast<int>(s.size()) >= context_limit())
    throw ContextFull("the conversation would be " + std::to_string(s.size()) + " tokens, past the context limit of " +
                      std::to_string(context_limit()) + " tokens; start a new chat or shorten the message");
  return s;
}

std::vector<const float*> SessionImpl::FeaturePointers() const {
  std::vector<const float*> f;
  for (int i : RenderOrder()) f.push_back(images[static_cast<size_t>(i)].features.data());
  return f;
}

bool SessionImpl::PrefillUser(const PromptStream& stream, Timing& timing, PromptProgress& progress) {
  const std::span<const int64_t> hist(stream.ids.data(), stream.history_end);
  // Continue from the longest snapshot that is a prefix of the history.
  const Snapshot* from = nullptr;
  for (const Snapshot* s : {&before_user, &after_user})
    if (s->valid && IsPrefix(s->ids, hist) && (!from || s->ids.size() >= from->ids.size())) from = s;
  lm::LmState state = from ? from->state : engine->lm().NewState();
  if (keep_mtp && !state.mtp.active) engine->lm().EnableMtp(state);  // the drafter sees the prompt
  if (keep_hidden) engine->lm().EnableHiddenAttention(state);
  else state.hidden = lm::HiddenAttentionState{};
  const size_t begin = from ? from->ids.size() : 0;
  // Every row this turn reads, the generation prompt too (Generate reads it and reports the
  // last step), so the bar ends on the count the stats give ("prompt 71 tok"), not 62 of 62.
  if (!progress.total_known) progress.total = static_cast<int64_t>(stream.size() - begin);
  const std::vector<const float*> features = FeaturePointers();
  progress.chunk = PrefillChunkRows(*engine);
  lm::ForwardOutput out;
  ScopedStage s(timing, "prefill");
  if (!PrefillRows(*engine, stream, begin, stream.history_end, features, state, out, nullptr, false, progress.Control()))
    return false;
  Snapshot before{state, std::vector<int64_t>(hist.begin(), hist.end()), true};
  if (!PrefillRows(*engine, stream, stream.history_end, stream.user_end, features, state, out, nullptr, false,
                   progress.Control()))
    return false;
  before_user = std::move(before);
  after_user = {std::move(state), std::vector<int64_t>(stream.ids.begin(), stream.ids.begin() + static_cast<std::ptrdiff_t>(stream.user_end)), true};
  return true;
}


Session::Session(std::shared_ptr<const Engine> engine) : impl_(std::make_unique<SessionImpl>()) {
  if (!engine) throw Error("Session needs a loaded engine");
  impl_->engine = std::move(engine);
  impl_->kernel_stats_at_start = impl_->engine->backend().Stats();
}

Session::~Session() = default;

void Session::SetTools(std::vector<std::string> tools) { impl_->tools = std::move(tools); }
const std::vector<std::string>& Session::tools() const { return impl_->tools; }

void Session::AddToolResult(const std::string& text) { impl_->pending_tool_results.push_back(text); }

void Session::SetSystemPrompt(const std::string& text) {
  if (!impl_->turns.empty())
    throw Error("the system prompt can only change before the first message (start a new chat)");
  impl_->system_prompt = text;
}

// Decodes and encodes one image file (index of count being encoded, for progress).
static SessionImage EncodeFile(const SessionImpl& im, const std::string& path, ImageMode mode,
                               const StreamCallbacks& cb, int index, int count) {
  Timing timing(&im.engine->backend());
  vision::PreprocessedImage pre;
  {
    ScopedStage s(timing, "preprocess");
    pre = im.engine->preprocessor().Preprocess(path, mode);
  }
  return im.Encode(pre, path, Sha256File(path), mode, std::move(timing), cb, index, count);
}

ImageInfo Session::AttachImage(const std::string& path, ImageMode mode, const StreamCallbacks& cb) {
  return impl_->Attach(EncodeFile(*impl_, path, mode, cb, 0, 1));
}

ImageInfo Session::AttachImageRgb(const uint8_t* rgb, int width, int height, int stride, ImageMode mode,
                                  const StreamCallbacks& cb) {
  if (!rgb || width <= 0 || height <= 0) throw Error("the pasted image is empty");
  Timing timing(&impl_->engine->backend());
  vision::PreprocessedImage pre;
  {
    ScopedStage s(timing, "preprocess");
    pre = impl_->engine->preprocessor().PreprocessFromRgb(height, width, rgb, mode, stride);
  }
  const int64_t row = stride > 0 ? stride : int64_t{width} * 3;
  return impl_->Attach(impl_->Encode(pre, "", Sha256Hex(rgb, static_cast<size_t>(row * height)), mode,
                                     std::move(timing), cb, 0, 1));
}

void SessionImpl::EraseImage(int index) {
  images.erase(images.begin() + index);
  image_infos.erase(image_infos.begin() + index);
  for (MessagePart& p : pending)
    if (p.kind == MessagePart::kImage && p.image > index) --p.image;
}

void Session::ClearPendingImages() {
  // Pending images are the last ones; drop them (last first) so indices of sent images stay
  // stable. The pending text stays.
  auto& im = *impl_;
  std::vector<int> gone = PendingImages(im.pending);
  std::erase_if(im.pending, [](const MessagePart& p) { return p.kind == MessagePart::kImage; });
  std::sort(gone.rbegin(), gone.rend());
  for (int i : gone) im.EraseImage(i);
}

void Session::ClearPending() {
  ClearPendingImages();
  impl_->pending.clear();
  impl_->pending_tool_results.clear();
}

void Session::RemovePendingImage(int image_index) {
  auto& im = *impl_;
  const auto it = std::find(im.pending.begin(), im.pending.end(), MessagePart::Image(image_index));
  if (it == im.pending.end())
    throw Error("image " + std::to_string(image_index) + " is not attached to the next message");
  im.pending.erase(it);
  im.EraseImage(image_index);
}

void Session::AddText(const std::string& text) {
  if (text.empty()) return;
  auto& im = *impl_;
  if (!im.pending.empty() && im.pending.back().kind == MessagePart::kText)
    im.pending.back().text += text;  // adjacent text parts render as one (no separator)
  else
    im.pending.push_back(MessagePart::Text(text));
}

const std::vector<MessagePart>& Session::pending_parts() const { return impl_->pending; }

TurnResult Session::Send(const std::string& user_text, const GenerateOptions& options, const StreamCallbacks& cb) {
  auto& im = *impl_;
  std::vector<MessagePart> parts = im.pending;
  if (!user_text.empty()) {
    if (!parts.empty() && parts.back().kind == MessagePart::kText)
      parts.back().text += user_text;
    else
      parts.push_back(MessagePart::Text(user_text));
  }
  if (parts.empty() && im.pending_tool_results.empty())
    throw Error("nothing to send: type a message or attach an image");
  im.CheckForcedTokens(options);
  im.engine->CheckWeightsUnchanged();  // a weights file changed in place under the mapping
  const auto t0 = Clock::now();
  Timing timing(&im.engine->backend());
  int new_image_tokens = 0;
  for (int i : PendingImages(parts)) {
    for (const auto& s : im.images[static_cast<size_t>(i)].timing.stages())
      timing.Add(s.name, s.seconds, s.calls, s.npu_s, s.transfer_s);
    new_image_tokens += im.images[static_cast<size_t>(i)].info.tokens();
  }
  // Keep what the user wrote if anything below fails: the turn is removed, the parts stay pending.
  const Snapshot saved_before = im.before_user, saved_after = im.after_user;
  const std::vector<MessagePart> saved_pending = im.pending;
  const std::vector<std::string> saved_results = im.pending_tool_results;
  im.turns.push_back(MakeTurn(std::move(parts)));
  im.turns.back().tool_results = std::move(im.pending_tool_results);
  im.pending_tool_results.clear();
  im.keep_mtp = im.RequestedDrafts(options) > 0 && im.engine->lm().has_mtp();
  im.keep_hidden = options.capture_attention;
  try {
    const PromptStream stream = im.Stream(options.enable_thinking);
    PromptProgress progress{cb};
    if (!im.PrefillUser(stream, timing, progress)) throw Cancelled();
    im.pending.clear();
    im.pending_tool_results.clear();
    const int prompt_tokens = static_cast<int>(progress.done);
    return im.Generate(stream, options, cb, t0, std::move(timing), new_image_tokens, prompt_tokens);
  } catch (...) {
    if (!im.turns.empty() && !im.turns.back().complete) {
      im.pending = saved_pending;
      im.pending_tool_results = saved_results;
      im.turns.pop_back();
      im.before_user = saved_before;
      im.after_user = saved_after;
    }
    throw;
  }
}

TurnResult Session::Regenerate(const GenerateOptions& options, const StreamCallbacks& cb) {
  auto& im = *impl_;
  if (im.turns.empty() || !im.after_user.valid) throw Error("nothing to regenerate yet: send a message first");
  im.CheckForcedTokens(options);
  im.engine->CheckWeightsUnchanged();
  const PromptStream stream = im.Stream(options.enable_thinking);
  im.turns.back().complete = false;
  im.turns.back().answer.clear();
  return im.Generate(stream, options, cb, Clock::now(), Timing{}, 0, 0);
}

TurnResult Session::EditLastUser(const std::string& new_text, const GenerateOptions& options,
                                 const StreamCallbacks& cb) {
  auto& im = *impl_;
  if (im.turns.empty()) throw Error("there is no message to edit yet");
  // The edited message keeps its images (in their order), plus any attached since, then the
  // new text.
  std::vector<MessagePart> parts;
  for (int i : im.turns.back().image_indices) parts.push_back(MessagePart::Image(i));
  for (int i : PendingImages(im.pending)) parts.push_back(MessagePart::Image(i));
  if (!new_text.empty()) parts.push_back(MessagePart::Text(new_text));
  return EditLastUserParts(parts, options, cb);
}

TurnResult Session::EditLastUserParts(const std::vector<MessagePart>& parts, const GenerateOptions& options,
                                      const StreamCallbacks& cb) {
  auto& im = *impl_;
  if (im.turns.empty()) throw Error("there is no message to edit yet");
  // The images it may name: the last message's and the pending ones — the tail of `images`.
  std::vector<int> allowed = im.turns.back().image_indices;
  for (int i : PendingImages(im.pending)) allowed.push_back(i);
  std::vector<int> used;
  for (const MessagePart& p : parts) {
    if (p.kind != MessagePart::kImage) continue;
    if (std::find(allowed.begin(), allowed.end(), p.image) == allowed.end())
      throw Error("the edited message names image " + std::to_string(p.image) +
                  ", which is neither in the last message nor attached");
    if (std::find(used.begin(), used.end(), p.image) != used.end())
      throw Error("the edited message names image " + std::to_string(p.image) + " twice");
    used.push_back(p.image);
  }
  const ChatTurn last = im.turns.back();
  const Snapshot saved_after = im.after_user;
  const std::vector<MessagePart> saved_pending = im.pending;
  const std::vector<std::string> saved_results = im.pending_tool_results;
  im.turns.pop_back();
  im.pending = parts;
  im.pending_tool_results = last.tool_results;  // the edited message keeps its tool results
  // Restore the snapshot before the message: Send() continues from it.
  im.after_user = im.before_user;
  try {
    // Images the edit leaves out stay in images() (indices of sent images never change) but
    // out of the prompt.
    return Send("", options, cb);
  } catch (...) {
    im.pending = saved_pending;
    im.pending_tool_results = saved_results;
    im.turns.push_back(last);
    im.after_user = saved_after;
    throw;
  }
}

void Session::ChooseLastAnswer(const std::string& text, bool parse_tool_calls) {
  auto& im = *impl_;
  if (im.turns.empty() || !im.turns.back().complete || !im.after_user.valid)
    throw Error("there is no answer to replace yet");
  ChatTurn& turn = im.turns.back();
  turn.answer = text;
  turn.tool_calls.clear();
  if (!im.tools.empty() && parse_tool_calls) {
    const ParsedToolCalls calls = ParseToolCalls(text, im.tools);
    if (calls.ok) {
      turn.answer = calls.content;
      turn.tool_calls = calls.calls;
    }
  }
  // The cache after this answer: the render through the generation prompt, then the answer.
  im.context_tokens = static_cast<int>(im.Stream(std::nullopt).size() + im.tok().Encode(text).size());
}

void Session::Continue(const SavedConversation& saved, const StreamCallbacks& cb) {
  auto& im = *impl_;
  if (saved.empty()) throw Error("the saved conversation has no messages");
  im.engine->CheckWeightsUnchanged();
  // Build the new conversation aside; swap it in only when all of it worked.
  SessionImpl next;
  next.engine = im.engine;
  next.system_prompt = im.system_prompt;
  next.tools = im.tools;
  next.kernel_stats_at_start = im.kernel_stats_at_start;
  next.keep_mtp = im.keep_mtp;
  next.keep_hidden = im.keep_hidden;
  int n_images = 0, index = 0;
  for (const SavedTurn& t : saved) n_images += static_cast<int>(t.images.size());
  for (size_t i = 0; i < saved.size(); ++i) {
    const SavedTurn& t = saved[i];
    const bool answered = !t.answer.empty() || !t.tool_calls.empty();
    if (!answered && i + 1 < saved.size())
      throw Error("the saved conversation's message " + std::to_string(i + 1) + " has no answer");
    const std::string where = "the saved conversation's message " + std::to_string(i + 1);
    // Each saved image encoded once, in the order its parts name it; its index in the session.
    std::vector<int> encoded(t.images.size(), -1);
    std::vector<MessagePart> parts;
    for (const MessagePart& p : t.OrderedParts()) {
      if (p.kind == MessagePart::kText) {
        parts.push_back(p);
        continue;
      }
      if (p.image < 0 || static_cast<size_t>(p.image) >= t.images.size())
        throw Error(where + " names image " + std::to_string(p.image) + " of " + std::to_string(t.images.size()));
      if (encoded[static_cast<size_t>(p.image)] >= 0) throw Error(where + " names one image twice");
      const SavedImage& s = t.images[static_cast<size_t>(p.image)];
      if (s.path.empty()) throw Error("an image of message " + std::to_string(i + 1) + " was never saved to a file");
      if (!std::filesystem::is_regular_file(s.path)) throw Error("the image " + s.path + " is no longer there");
      const std::string sha = Sha256File(s.path);
      if (!s.sha256.empty() && sha != s.sha256)
        throw Error("the image " + s.path + " has changed since the conversation was saved (sha256 differs)");
      next.Attach(EncodeFile(next, s.path, s.mode, cb, index++, n_images));
      encoded[static_cast<size_t>(p.image)] = static_cast<int>(next.images.size()) - 1;
      parts.push_back(MessagePart::Image(encoded[static_cast<size_t>(p.image)]));
    }
    next.pending.clear();
    if (parts.empty() && t.tool_results.empty()) throw Error(where + " is empty");
    ChatTurn turn = MakeTurn(std::move(parts));
    turn.tool_results = t.tool_results;
    turn.answer = t.answer;
    turn.tool_calls = t.tool_calls;
    turn.complete = answered;
    next.turns.push_back(std::move(turn));
  }
  // The history through the last user message, as Send leaves it before generating; the
  // last answer (if any) joins the cache with the next Send, as in a live session. Turn by
  // turn, as the live session prefilled it: the same pieces give bit-identical states.
  std::vector<ChatTurn> all = std::move(next.turns);
  next.turns.clear();
  std::vector<PromptStream> streams;
  for (ChatTurn& t : all) {
    next.turns.push_back(t);
    streams.push_back(next.Stream(std::nullopt));
  }
  Timing timing(&next.engine->backend());
  PromptProgress progress{cb};
  progress.total = static_cast<int64_t>(streams.back().user_end);
  progress.total_known = true;
  for (const PromptStream& stream : streams)
    if (!next.PrefillUser(stream, timing, progress)) throw Cancelled();
  next.context_tokens = static_cast<int>(streams.back().user_end);
  // Images attached but not yet sent go with the next message, after the saved ones (the GUI
  // attaches to a reopened chat before the history is re-read at the first Send).
  next.pending_tool_results = im.pending_tool_results;
  for (const MessagePart& p : im.pending) {
    if (p.kind == MessagePart::kText)
      next.pending.push_back(p);
    else
      next.Attach(std::move(im.images[static_cast<size_t>(p.image)]));
  }
  im.images = std::move(next.images);
  im.image_infos = std::move(next.image_infos);
  im.pending = std::move(next.pending);
  im.pending_tool_results = std::move(next.pending_tool_results);
  im.turns = std::move(next.turns);
  im.before_user = std::move(next.before_user);
  im.after_user = std::move(next.after_user);
  im.context_tokens = next.context_tokens;
}

void Session::Reset() {
  auto& im = *impl_;
  im.images.clear();
  im.image_infos.clear();
  im.pending.clear();
  im.pending_tool_results.clear();
  im.turns.clear();
  im.before_user = {};
  im.after_user = {};
  im.context_tokens = 0;
}

const std::vector<ChatTurn>& Session::turns() const { return impl_->turns; }
const std::vector<ImageInfo>& Session::images() const { return impl_->image_infos; }
int Session::context_tokens() const { return impl_->context_tokens; }

std::vector<AttentionMap> Session::Rollout(const std::vector<AttentionMap>& answer, std::optional<bool> enable_thinking,
                                           int64_t max_rows) const {
  const SessionImpl& im = *impl_;
  if (im.turns.empty() || im.turns.back().image_indices.empty())
    throw Error("rollout: the last message has no image");
  const PromptStream stream = im.Stream(enable_thinking);
  const size_t run = stream.runs.size() - 1;  // the message's last image is the prompt's last run
  return RolloutMaps(*im.engine, stream, im.FeaturePointers(), answer, run, im.RenderOrder()[run], max_rows);
}
int Session::context_limit() const { return impl_->context_limit(); }

int Session::SetContextLimit(int tokens) {
  if (tokens < kMinContextLimit)
    throw Error("context length " + std::to_string(tokens) + " is too small; at least " +
                std::to_string(kMinContextLimit) + " tokens");
  impl_->asked_context_limit = tokens;
  return impl_->context_limit();
}

int Session::model_context_limit() const { return impl_->model_context_limit(); }
uint64_t Session::snapshot_bytes() const {
  const auto& im = *impl_;
  return (im.before_user.valid ? im.before_user.state.ByteSize() : 0) +
         (im.after_user.valid ? im.after_user.state.ByteSize() : 0);
}

}  // namespace glance
