#include "core/engine/session.h"

#include <algorithm>
#include <chrono>

#include "core/engine/attention_capture.h"
#include "core/engine/engine.h"
#include "core/engine/timing.h"
#include "core/lm/language_model.h"
#include "core/text/chat_template.h"
#include "core/text/stream_decoder.h"
#include "core/text/tokenizer.h"
#include "core/util/error.h"
#include "core/util/sha256.h"
#include "core/vision/image_preprocessor.h"
#include "core/vision/vision_tower.h"
#include "kernels/backend.h"

namespace glance {

using Clock = std::chrono::steady_clock;

namespace {

// The state after a prefix of the conversation's token stream, and that prefix.
struct Snapshot {
  lm::LmState state;
  std::vector<int64_t> ids;
  bool valid = false;
};

struct SessionImage {
  ImageInfo info;
  std::vector<float> features;  // [tokens][hidden] merged vision features
  lm::ImageGrid grid;
  Timing timing;                // preprocess + vision, charged to the turn that sends it
};

// Reports the last query row of every full-attention layer to an AttentionCapture.
class CaptureObserver final : public lm::AttentionObserver {
 public:
  explicit CaptureObserver(AttentionCapture& capture) : capture_(capture) {}
  Rows rows() const override { return Rows::kLastOnly; }
  void OnAttention(const lm::AttentionProbs& p) override {
    const float* last = p.row(0, p.n_queries - 1);
    capture_.AddLayerRow(p.layer, p.n_heads, last, p.n_queries * p.n_keys, p.n_keys);
  }

 private:
  AttentionCapture& capture_;
};

bool IsPrefix(const std::vector<int64_t>& prefix, const std::vector<int64_t>& full) {
  return prefix.size() <= full.size() && std::equal(prefix.begin(), prefix.end(), full.begin());
}

}  // namespace

struct SessionImpl {
  std::shared_ptr<const Engine> engine;
  std::string system_prompt;
  std::vector<SessionImage> images;
  std::vector<int> pending;  // images attached to the next user message
  std::vector<ChatTurn> turns;
  std::vector<ImageInfo> image_infos;
  Snapshot before_user;  // state before the last user message
  Snapshot after_user;   // state after the last user message (before the generation prompt)
  // The backend's cumulative per-kernel counters when the current turn began (npu:gemm, ...):
  // the turn's Timing gets the difference.
  std::vector<kernels::KernelStat> kernel_stats_at_start;
  int context_tokens = 0;

  const Tokenizer& tok() const { return engine->tokenizer(); }
  int64_t image_token_id() const { return engine->config().image_token_id; }
  int context_limit() const {
    return static_cast<int>(std::min<int64_t>(engine->config().text.max_position_embeddings, 65536));
  }

  ImageInfo Attach(const vision::PreprocessedImage& pre, const std::string& path, const std::string& sha,
                   ImageMode mode, Timing timing);
  // The conversation's first n_turns as template messages (the last turn's answer omitted).
  std::vector<ChatMessage> Messages(size_t n_turns) const;
  std::vector<int64_t> Tokens(const std::vector<ChatMessage>& msgs, bool generation_prompt,
                              std::optional<bool> thinking) const;
  void Prefill(const std::vector<int64_t>& full, size_t begin, size_t end, lm::LmState& state,
               lm::ForwardOutput& out, lm::AttentionObserver* observer) const;
  TurnResult Generate(const GenerateOptions& options, const StreamCallbacks& cb, Clock::time_point t0,
                      Timing timing, int new_image_tokens);
};

ImageInfo SessionImpl::Attach(const vision::PreprocessedImage& pre, const std::string& path,
                              const std::string& sha, ImageMode mode, Timing timing) {
  SessionImage img;
  {
    ScopedStage s(timing, "vision");
    img.features = engine->vision().Forward(pre, engine->pool());
  }
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
  images.push_back(std::move(img));
  image_infos.push_back(images.back().info);
  pending.push_back(static_cast<int>(images.size()) - 1);
  return images.back().info;
}

std::vector<ChatMessage> SessionImpl::Messages(size_t n_turns) const {
  std::vector<ChatMessage> msgs;
  if (!system_prompt.empty()) msgs.push_back(ChatMessage::FromText("system", system_prompt));
  for (size_t i = 0; i < n_turns && i < turns.size(); ++i) {
    const ChatTurn& t = turns[i];
    const bool last = i + 1 == n_turns;
    ChatMessage user;
    user.role = "user";
    for (size_t k = 0; k < t.image_indices.size(); ++k) user.content.push_back(ContentPart::Image());
    if (!t.user_text.empty()) user.content.push_back(ContentPart::Text(t.user_text));
    msgs.push_back(std::move(user));
    if (!last && t.complete) msgs.push_back(ChatMessage::FromText("assistant", t.answer));
  }
  return msgs;
}

std::vector<int64_t> SessionImpl::Tokens(const std::vector<ChatMessage>& msgs, bool generation_prompt,
                                         std::optional<bool> thinking) const {
  if (msgs.empty() && !generation_prompt) return {};
  ChatTemplateOptions o;
  o.add_generation_prompt = generation_prompt;
  o.enable_thinking = thinking;
  const std::string text = engine->chat_template().Render(msgs, o);
  const std::vector<int32_t> ids = tok().Encode(text);
  // Each <|image_pad|> becomes the image's token count; images are in conversation order.
  const int32_t pad = static_cast<int32_t>(image_token_id());
  const size_t n_pads = static_cast<size_t>(std::count(ids.begin(), ids.end(), pad));
  if (n_pads > images.size()) throw Error("the conversation has more image placeholders than images");
  std::vector<int32_t> counts;
  for (size_t i = 0; i < n_pads; ++i) counts.push_back(static_cast<int32_t>(images[i].grid.h * images[i].grid.w));
  const std::vector<int32_t> expanded = ExpandPadTokens(ids, pad, counts);
  return std::vector<int64_t>(expanded.begin(), expanded.end());
}

void SessionImpl::Prefill(const std::vector<int64_t>& full, size_t begin, size_t end, lm::LmState& state,
                          lm::ForwardOutput& out, lm::AttentionObserver* observer) const {
  if (begin >= end) return;
  // Positions of the whole stream (cheap) sliced to [begin, end); image rows get the features.
  std::vector<lm::ImageGrid> grids;
  size_t n_images = 0;
  for (size_t i = 0; i < full.size(); ++i)
    if (full[i] == image_token_id() && (i == 0 || full[i - 1] != image_token_id())) ++n_images;
  if (n_images > images.size()) throw Error("the conversation has more image placeholders than images");
  for (size_t i = 0; i < n_images; ++i) grids.push_back(images[i].grid);
  const lm::MropePositions pos = lm::ComputeMropePositions(full, image_token_id(), grids);
  const size_t T = end - begin;
  std::vector<int64_t> positions(3 * T);
  for (int a = 0; a < 3; ++a)
    std::copy_n(pos.pos.data() + a * pos.n_tokens + static_cast<int64_t>(begin), T, positions.data() + a * static_cast<int64_t>(T));
  std::vector<lm::EmbeddingOverride> overrides;
  int64_t image = -1, row = 0;
  const int64_t hidden = engine->config().text.hidden_size;
  for (size_t i = 0; i < end; ++i) {
    if (full[i] != image_token_id()) continue;
    if (i == 0 || full[i - 1] != image_token_id()) {  // a new placeholder run = the next image
      ++image;
      row = 0;
    }
    if (i >= begin) overrides.push_back({static_cast<int64_t>(i - begin), images[static_cast<size_t>(image)].features.data() + static_cast<int64_t>(row) * hidden});
    ++row;
  }
  lm::ForwardInput in;
  in.ids = std::span<const int64_t>(full.data() + begin, T);
  in.overrides = overrides;
  in.positions = positions.data();
  state.rope_delta = pos.rope_delta;
  engine->lm().Forward(in, state, out, engine->pool(), observer);
}

TurnResult SessionImpl::Generate(const GenerateOptions& options, const StreamCallbacks& cb,
                                 Clock::time_point t0, Timing timing, int new_image_tokens) {
  TurnResult r;
  ChatTurn& turn = turns.back();
  const std::vector<ChatMessage> msgs = Messages(turns.size());
  const std::vector<int64_t> full = Tokens(msgs, true, options.enable_thinking);
  if (!IsPrefix(after_user.ids, full)) throw Error("internal: generation prompt does not extend the user message");
  if (static_cast<int>(full.size()) >= context_limit())
    throw Error("the conversation is " + std::to_string(full.size()) + " tokens, past the context limit of " +
                std::to_string(context_limit()) + "; start a new chat (or shorten the message)");

  lm::LmState state = after_user.state;
  // Attention capture over the most recent image, when asked and there is one.
  std::unique_ptr<AttentionCapture> capture;
  std::unique_ptr<CaptureObserver> observer;
  if (options.capture_attention && !images.empty()) {
    const size_t last = images.size() - 1;
    std::vector<int64_t> positions;
    int64_t run = -1;
    for (size_t i = 0; i < full.size(); ++i) {
      if (full[i] != image_token_id()) continue;
      if (i == 0 || full[i - 1] != image_token_id()) ++run;
      if (run == static_cast<int64_t>(last)) positions.push_back(static_cast<int64_t>(i));
    }
    if (!positions.empty()) {
      capture = std::make_unique<AttentionCapture>(static_cast<int>(last), static_cast<int>(images[last].grid.h),
                                                   static_cast<int>(images[last].grid.w), std::move(positions));
      observer = std::make_unique<CaptureObserver>(*capture);
    }
  }

  lm::ForwardOutput out;
  if (capture) capture->BeginToken(0);
  {
    ScopedStage s(timing, "prefill");
    Prefill(full, after_user.ids.size(), full.size(), state, out, observer.get());
  }
  const double prefill_s = timing.Seconds("prefill");
  r.stats.prompt_tokens += static_cast<int>(full.size() - after_user.ids.size());

  const SamplingParams sampling = options.sampling.value_or(engine->info().default_sampling);
  if (!sampling.greedy) r.stats.seed = options.seed.value_or(FreshSeed());
  Sampler sampler(sampling, static_cast<int64_t>(tok().size()), r.stats.seed.value_or(0));
  StreamDecoder decoder(tok(), /*skip_special=*/false);
  std::vector<int32_t> context(full.begin(), full.end());
  const auto& stops = engine->stop_ids();
  Clock::time_point first_token_time{};
  Clock::time_point last_time = Clock::now();
  r.stop_reason = "max_tokens";
  for (int step = 0; step < options.max_new_tokens; ++step) {
    if (step > 0) {
      if (cb.cancel && cb.cancel->load()) {
        r.stop_reason = "cancelled";
        break;
      }
      if (state.n_tokens + 1 >= context_limit()) {
        r.stop_reason = "context";
        break;
      }
      if (capture) capture->BeginToken(step);
      ScopedStage s(timing, "decode");
      const int64_t id = r.tokens.back();
      lm::ForwardInput in;
      in.ids = std::span<const int64_t>(&id, 1);
      engine->lm().Forward(in, state, out, engine->pool(), observer.get());
    }
    int32_t next;
    {
      ScopedStage s(timing, "sample");
      std::vector<float> logits(out.last(), out.last() + out.vocab);
      next = sampler.Sample(logits, context, r.tokens);
    }
    const auto now = Clock::now();
    r.stats.token_latencies_s.push_back(std::chrono::duration<double>(now - (step == 0 ? t0 : last_time)).count());
    last_time = now;
    if (step == 0) first_token_time = now;
    if (std::find(stops.begin(), stops.end(), next) != stops.end()) {
      r.stop_reason = "eos";  // the stop token gets no text and no map
      break;
    }
    r.tokens.push_back(next);
    context.push_back(next);
    const std::string piece = decoder.Push(next);
    r.text += piece;
    if (!piece.empty() && cb.on_text) cb.on_text(piece);
    if (capture) {
      const AttentionMap& m = capture->EndToken(next, piece);
      if (cb.on_attention) cb.on_attention(m);
    }
  }
  const std::string tail = decoder.Flush();
  r.text += tail;
  if (!tail.empty() && cb.on_text) cb.on_text(tail);
  if (capture) {
    r.attention = capture->maps();
    r.words = GroupWords(r.attention);
  }

  // Stats (design.md "Timing"): decode tok/s excludes the first token.
  TurnStats& st = r.stats;
  st.image_tokens = new_image_tokens;
  st.generated_tokens = static_cast<int>(r.tokens.size());
  st.prefill_s = prefill_s;
  st.prefill_tokens_per_s = prefill_s > 0 ? st.prompt_tokens / prefill_s : 0.0;
  st.ttft_s = first_token_time == Clock::time_point{} ? 0.0 : std::chrono::duration<double>(first_token_time - t0).count();
  st.decode_s = timing.Seconds("decode");
  const int decoded = std::max(0, st.generated_tokens - 1);
  st.decode_tokens_per_s = st.decode_s > 0 && decoded > 0 ? decoded / st.decode_s : 0.0;
  st.total_s = std::chrono::duration<double>(Clock::now() - t0).count();
  st.context_tokens = static_cast<int>(state.n_tokens);
  st.backend = engine->info().backend;
  st.backend_reason = engine->info().backend_reason;
  st.precision = engine->info().precision;
  st.threads = engine->info().threads;
  // Per-kernel dispatch time of the backend during this turn (attached images included).
  for (const auto& k : engine->backend().Stats()) {
    double sec = k.seconds;
    int64_t calls = k.calls;
    for (const auto& before : kernel_stats_at_start)
      if (before.name == k.name) {
        sec -= before.seconds;
        calls -= before.calls;
      }
    if (calls > 0) timing.Add(k.name, sec, calls);
  }
  kernel_stats_at_start = engine->backend().Stats();
  st.stages = timing.stages();
  context_tokens = static_cast<int>(state.n_tokens);
  turn.answer = r.text;
  turn.complete = true;
  return r;
}

Session::Session(std::shared_ptr<const Engine> engine) : impl_(std::make_unique<SessionImpl>()) {
  if (!engine) throw Error("Session needs a loaded engine");
  impl_->engine = std::move(engine);
  impl_->kernel_stats_at_start = impl_->engine->backend().Stats();
}

Session::~Session() = default;

void Session::SetSystemPrompt(const std::string& text) {
  if (!impl_->turns.empty())
    throw Error("the system prompt can only change before the first message (start a new chat)");
  impl_->system_prompt = text;
}

ImageInfo Session::AttachImage(const std::string& path, ImageMode mode) {
  Timing timing;
  vision::PreprocessedImage pre;
  {
    ScopedStage s(timing, "preprocess");
    pre = impl_->engine->preprocessor().Preprocess(path, mode);
  }
  return impl_->Attach(pre, path, Sha256File(path), mode, std::move(timing));
}

ImageInfo Session::AttachImageRgb(const uint8_t* rgb, int width, int height, int stride, ImageMode mode) {
  if (!rgb || width <= 0 || height <= 0) throw Error("the pasted image is empty");
  Timing timing;
  vision::PreprocessedImage pre;
  {
    ScopedStage s(timing, "preprocess");
    pre = impl_->engine->preprocessor().PreprocessFromRgb(height, width, rgb, mode, stride);
  }
  const int64_t row = stride > 0 ? stride : int64_t{width} * 3;
  return impl_->Attach(pre, "", Sha256Hex(rgb, static_cast<size_t>(row * height)), mode, std::move(timing));
}

void Session::ClearPendingImages() {
  // Pending images are the last ones; drop them so indices of sent images stay stable.
  auto& im = *impl_;
  for (auto it = im.pending.rbegin(); it != im.pending.rend(); ++it) {
    im.images.erase(im.images.begin() + *it);
    im.image_infos.erase(im.image_infos.begin() + *it);
  }
  im.pending.clear();
}

TurnResult Session::Send(const std::string& user_text, const GenerateOptions& options, const StreamCallbacks& cb) {
  auto& im = *impl_;
  if (user_text.empty() && im.pending.empty()) throw Error("nothing to send: type a message or attach an image");
  const auto t0 = Clock::now();
  Timing timing;
  int new_image_tokens = 0;
  for (int i : im.pending) {
    for (const auto& s : im.images[static_cast<size_t>(i)].timing.stages()) timing.Add(s.name, s.seconds, s.calls);
    new_image_tokens += im.images[static_cast<size_t>(i)].info.tokens();
  }
  // Keep what the user wrote if anything below fails: the turn is removed, images stay pending.
  const Snapshot saved_before = im.before_user, saved_after = im.after_user;
  im.turns.push_back({user_text, im.pending, "", false});
  try {
    // Stream = [history up to the previous answer][this user message][generation prompt].
    // The history ends where the last <|im_start|> (this user message's) begins. It is cut
    // from the full render, not rendered alone: alone, the template would render the last
    // assistant turn in its "after the last user query" form, with a <think> block.
    const auto with_user = im.Tokens(im.Messages(im.turns.size()), false, std::nullopt);
    const int64_t im_start = im.tok().TokenId("<|im_start|>");
    size_t boundary = with_user.size();
    while (boundary > 0 && with_user[boundary - 1] != im_start) --boundary;
    if (boundary > 0) --boundary;
    const std::vector<int64_t> hist(with_user.begin(), with_user.begin() + static_cast<std::ptrdiff_t>(boundary));
    if (static_cast<int>(with_user.size()) >= im.context_limit())
      throw Error("the conversation would be " + std::to_string(with_user.size()) +
                  " tokens, past the context limit of " + std::to_string(im.context_limit()) +
                  " tokens; start a new chat or shorten the message");
    // Continue from the longest snapshot that is a prefix of the new stream.
    Snapshot base;
    base.state = im.engine->lm().NewState();
    for (const Snapshot* s : {&im.before_user, &im.after_user})
      if (s->valid && IsPrefix(s->ids, hist) && s->ids.size() >= base.ids.size()) base = *s;
    lm::ForwardOutput out;
    const size_t prompt_before = base.ids.size();
    {
      ScopedStage s(timing, "prefill");
      im.Prefill(hist, base.ids.size(), hist.size(), base.state, out, nullptr);
      im.before_user = {base.state, hist, true};
      im.Prefill(with_user, hist.size(), with_user.size(), base.state, out, nullptr);
      im.after_user = {base.state, with_user, true};
    }
    im.pending.clear();
    TurnResult r = im.Generate(options, cb, t0, std::move(timing), new_image_tokens);
    r.stats.prompt_tokens += static_cast<int>(with_user.size() - prompt_before);
    r.stats.prefill_tokens_per_s = r.stats.prefill_s > 0 ? r.stats.prompt_tokens / r.stats.prefill_s : 0.0;
    return r;
  } catch (...) {
    im.pending = im.turns.back().image_indices;
    im.turns.pop_back();
    im.before_user = saved_before;
    im.after_user = saved_after;
    throw;
  }
}

TurnResult Session::Regenerate(const GenerateOptions& options, const StreamCallbacks& cb) {
  auto& im = *impl_;
  if (im.turns.empty() || !im.after_user.valid) throw Error("nothing to regenerate yet: send a message first");
  im.turns.back().complete = false;
  im.turns.back().answer.clear();
  return im.Generate(options, cb, Clock::now(), Timing{}, 0);
}

TurnResult Session::EditLastUser(const std::string& new_text, const GenerateOptions& options,
                                 const StreamCallbacks& cb) {
  auto& im = *impl_;
  if (im.turns.empty()) throw Error("there is no message to edit yet");
  const ChatTurn last = im.turns.back();
  const Snapshot saved_after = im.after_user;
  const std::vector<int> saved_pending = im.pending;
  im.turns.pop_back();
  // The edited message keeps its images, plus any attached since.
  im.pending = last.image_indices;
  im.pending.insert(im.pending.end(), saved_pending.begin(), saved_pending.end());
  // Restore the snapshot before the message: Send() continues from it.
  im.after_user = im.before_user;
  try {
    return Send(new_text, options, cb);
  } catch (...) {
    im.pending = saved_pending;
    im.turns.push_back(last);
    im.after_user = saved_after;
    throw;
  }
}

void Session::Reset() {
  auto& im = *impl_;
  im.images.clear();
  im.image_infos.clear();
  im.pending.clear();
  im.turns.clear();
  im.before_user = {};
  im.after_user = {};
  im.context_tokens = 0;
}

const std::vector<ChatTurn>& Session::turns() const { return impl_->turns; }
const std::vector<ImageInfo>& Session::images() const { return impl_->image_infos; }
int Session::context_tokens() const { return impl_->context_tokens; }
int Session::context_limit() const { return impl_->context_limit(); }
uint64_t Session::snapshot_bytes() const {
  const auto& im = *impl_;
  return (im.before_user.valid ? im.before_user.state.ByteSize() : 0) +
         (im.after_user.valid ? im.after_user.state.ByteSize() : 0);
}

}  // namespace glance
