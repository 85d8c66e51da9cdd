#include "core/engine/session.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <utility>

#include "core/engine/attention_capture.h"
#include "core/engine/attention_rollout.h"
#include "core/engine/engine.h"
#include "core/engine/prompt_stream.h"
#include "core/engine/speculative.h"
#include "core/engine/speculative_record.h"
#include "core/engine/speculative_sampling.h"
#include "core/engine/stop_scanner.h"
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

// Attention capture over the images of the last user message (or, when it has none, the
// conversation's most recent image): one AttentionCapture per image, fed the same rows.
struct Capture {
  std::vector<std::unique_ptr<AttentionCapture>> images;  // message order
  std::vector<int> image_indices;                          // Session::images() index of each

  explicit operator bool() const { return !images.empty(); }
  // The message's last image: what on_attention and TurnResult::attention report.
  AttentionCapture& primary() { return *images.back(); }
  void BeginToken(int step) {
    for (auto& c : images) c->BeginToken(step);
  }
  void AddLayerRow(int layer, int n_heads, const float* probs, int64_t key_stride, int64_t n_keys) {
    for (auto& c : images) c->AddLayerRow(layer, n_heads, probs, key_stride, n_keys);
  }
  void AddHiddenRow(int layer, int n_heads, const int64_t* positions, int64_t n_keys, const float* weights,
                    int64_t head_stride, const float* totals, int64_t total_stride) {
    for (auto& c : images) c->AddHiddenRow(layer, n_heads, positions, n_keys, weights, head_stride, totals, total_stride);
  }
  void AddVerifyRow(const VerifyAttention& v, int64_t row) {
    for (auto& c : images) v.AddRow(*c, row);
  }
  // Ends every image's map; returns the primary one.
  const AttentionMap& EndToken(int32_t token, const std::string& piece) {
    for (size_t k = 0; k + 1 < images.size(); ++k) images[k]->EndToken(token, piece);
    return images.back()->EndToken(token, piece);
  }
};

// Reports the last query row of every full-attention layer to the capture.
class CaptureObserver final : public lm::AttentionObserver {
 public:
  explicit CaptureObserver(Capture& capture) : capture_(capture) {}
  Rows rows() const override { return Rows::kLastOnly; }
  void OnAttention(const lm::AttentionProbs& p) override {
    const float* last = p.row(0, p.n_queries - 1);
    capture_.AddLayerRow(p.layer, p.n_heads, last, p.n_queries * p.n_keys, p.n_keys);
  }
  // The DeltaNet layers' hidden attention (the state tracks it while keep_hidden is on).
  bool wants_hidden_attention() const override { return true; }
  void OnHiddenAttention(const lm::HiddenAttentionWeights& w) override {
    capture_.AddHiddenRow(w.layer, w.n_heads, w.positions, w.n_keys, w.row(0, w.n_queries - 1), w.n_queries * w.n_keys,
                          w.total(0, w.n_queries - 1), w.n_queries);
  }

 private:
  Capture& capture_;
};

bool IsPrefix(const std::vector<int64_t>& prefix, std::span<const int64_t> full) {
  return prefix.size() <= full.size() && std::equal(prefix.begin(), prefix.end(), full.begin());
}

bool Stopped(const StreamCallbacks& cb) { return cb.cancel && cb.cancel->load(); }

// Prompt rows processed so far out of those this call has to process, for on_progress.
struct PromptProgress {
  const StreamCallbacks& cb;
  int64_t chunk = 256;  // PrefillChunkRows
  int64_t done = 0, total = 0;
  bool total_known = false;  // set by the caller (several prefills); else each prefill sets it
  PrefillControl Control() {
    PrefillControl c;
    c.cancel = cb.cancel;
    c.chunk = chunk;
    const int64_t before = done;
    if (cb.on_progress)
      c.on_rows = [this, before](int64_t rows, int64_t) {
        done = before + rows;
        cb.on_progress({Progress::Stage::kPrompt, done, total, 0, 1});
      };
    else
      c.on_rows = [this, before](int64_t rows, int64_t) { done = before + rows; };
    return c;
  }
};

}  // namespace

struct SessionImpl {
  std::shared_ptr<const Engine> engine;
  std::string system_prompt;
  std::vector<std::string> tools;    // SetTools: rendered in the system turn
  std::vector<SessionImage> images;
  std::vector<MessagePart> pending;  // the next user message, as built so far
  std::vector<std::string> pending_tool_results;  // the next message's tool results
  std::vector<ChatTurn> turns;
  std::vector<ImageInfo> image_infos;
  Snapshot before_user;  // state before the last user message
  Snapshot after_user;   // state after the last user message (before the generation prompt)
  // The backend's cumulative per-kernel counters when the current turn began (npu:gemm, ...):
  // the turn's Timing gets the difference.
  std::vector<kernels::KernelStat> kernel_stats_at_start;
  int context_tokens = 0;
  // Prefills keep the MTP drafter's cache (speculative decoding was asked for last; Send sets it).
  bool keep_mtp = false;
  // Prefills track the image rows for the DeltaNet layers' hidden attention (attention capture
  // was asked for last; Send sets it). Off: the states neither keep nor compute any of it.
  bool keep_hidden = true;

  const Tokenizer& tok() const { return engine->tokenizer(); }
  int asked_context_limit = kDefaultContextLimit;  // SetContextLimit
  int model_context_limit() const {
    return static_cast<int>(std::min<int64_t>(engine->config().text.max_position_embeddings, kMaxContextLimit));
  }
  int context_limit() const { return std::min(asked_context_limit, model_context_limit()); }

  // Encodes one image; throws Cancelled (nothing kept) when stopped.
  SessionImage Encode(const vision::PreprocessedImage& pre, const std::string& path, const std::string& sha,
                      ImageMode mode, Timing timing, const StreamCallbacks& cb, int index, int count) const;
  ImageInfo Attach(SessionImage img);
  // The conversation's turns as template messages (the last turn's answer omitted).
  std::vector<ChatMessage> Messages() const;
  // The images in the order the render places them (the turns' image parts in order): the
  // prompt's k-th image run is images[RenderOrder()[k]].
  std::vector<int> RenderOrder() const;
  std::vector<const float*> FeaturePointers() const;  // features in RenderOrder()
  // Drops images[index] (a pending one), renumbering later pending parts.
  void EraseImage(int index);
  // The one render of this turn.
  PromptStream Stream(std::optional<bool> thinking) const;
  // Prefills the stream up to the end of the last user message from the longest snapshot that
  // is a prefix of it, and snapshots before/after that message. Returns false when cancelled
  // (the snapshots then untouched).
  bool PrefillUser(const PromptStream& stream, Timing& timing, PromptProgress& progress);
  Capture SetupCapture(const PromptStream& stream, const GenerateOptions& options) const;
  // Generates the answer of the last turn from the after-user snapshot.
  TurnResult Generate(const PromptStream& stream, const GenerateOptions& options, const StreamCallbacks& cb,
                      Clock::time_point t0, Timing timing, int new_image_tokens, int prompt_tokens);
  // Drafts per speculative step for this turn: 0 (plain decoding) unless asked for and the
  // checkpoint has an MTP layer; at most 3.
  int SpeculativeDrafts(const GenerateOptions& options) const {
    const int asked = RequestedDrafts(options);
    if (asked <= 0 || !engine->lm().has_mtp()) return 0;
    return std::min(asked, 3);
  }
  // speculative_draft_tokens, or with speculative_auto what this machine's record says
  // (speculative_record.h), looked up once per session.
  int RequestedDrafts(const GenerateOptions& options) const {
    if (!options.speculative_auto) return options.speculative_draft_tokens;
    if (!auto_drafts) {
      const SpeculativeAutoChoice c = ChooseSpeculativeAuto(*engine, DefaultSpeculativeRecordPath());
      auto_drafts = c.draft_tokens;
      auto_warning = c.warning;  // reaches the user once, in the next turn's stats
    }
    return *auto_drafts;
  }
  mutable std::optional<int> auto_drafts;
  mutable std::string auto_warning;  // a damaged record, not yet reported
  // Throws glance::Error for a forced token outside the vocabulary (before anything changes).
  void CheckForcedTokens(const GenerateOptions& options) const {
    for (int32_t id : options.forced_tokens)
      if (id < 0 || static_cast<size_t>(id) >= tok().size())
        throw Error("forced token " + std::to_string(id) + " is outside the vocabulary (" +
                    std::to_string(tok().size()) + " tokens)");
  }
  // Fills r.stats from the turn's timing (the one place turn statistics are computed).
  void FinishStats(TurnResult& r, Timing& timing, Clock::time_point t0, Clock::time_point first_token,
                   int new_image_tokens, int prompt_tokens, int64_t cache_tokens);
};

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
  if (!progress.total_known) progress.total = static_cast<int64_t>(stream.user_end - begin);
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

Capture SessionImpl::SetupCapture(const PromptStream& stream, const GenerateOptions& options) const {
  Capture c;
  if (!options.capture_attention || stream.runs.empty()) return c;
  // Run k of the prompt is images[order[k]]; the last message's images are its last runs.
  const std::vector<int> order = RenderOrder();
  const size_t n_last = turns.back().image_indices.size();
  const size_t first = stream.runs.size() - std::max<size_t>(1, std::min(n_last, stream.runs.size()));
  for (size_t k = first; k < stream.runs.size(); ++k) {
    const lm::ImageGrid g = stream.runs[k].grid;
    c.images.push_back(std::make_unique<AttentionCapture>(order[k], static_cast<int>(g.h), static_cast<int>(g.w),
                                                          stream.ImageRows(k)));
    c.image_indices.push_back(order[k]);
  }
  return c;
}

TurnResult SessionImpl::Generate(const PromptStream& stream, const GenerateOptions& options,
                                 const StreamCallbacks& cb, Clock::time_point t0, Timing timing,
                                 int new_image_tokens, int prompt_tokens) {
  if (!IsPrefix(after_user.ids, stream.ids)) throw Error("internal: generation prompt does not extend the user message");
  const std::vector<int32_t>& forced = options.forced_tokens;
  const int max_steps = forced.empty() ? options.max_new_tokens
                                       : std::min(options.max_new_tokens, static_cast<int>(forced.size()));
  if (cb.on_prompt) cb.on_prompt(stream);
  TurnResult r;
  ChatTurn& turn = turns.back();
  lm::LmState state = after_user.state;
  Capture capture = SetupCapture(stream, options);
  CaptureObserver capture_observer(capture);
  lm::AttentionObserver* const observer = capture ? &capture_observer : nullptr;
  const SamplingParams sampling = options.sampling.value_or(engine->info().default_sampling);
  const int draft_k = forced.empty() ? SpeculativeDrafts(options) : 0;
  r.stats.speculative_warning = std::exchange(auto_warning, std::string());
  if (draft_k > 0) {
    engine->lm().EnableMtp(state);  // no-op when the snapshot already keeps the MTP cache
  } else {
    state.mtp.active = false;  // plain decoding: no MTP rows to pay for
  }
  if (!capture) {
    state.hidden = lm::HiddenAttentionState{};  // nothing captured: no hidden-attention work either
  }

  // The generation prompt; its last row's logits give the first token.
  lm::ForwardOutput out;
  if (capture) capture.BeginToken(0);
  {
    ScopedStage s(timing, "prefill");
    PrefillRows(*engine, stream, after_user.ids.size(), stream.size(), FeaturePointers(), state, out,
                observer);
  }
  prompt_tokens += static_cast<int>(stream.size() - after_user.ids.size());

  // The decode loop: one token per iteration, its logits from a plain one-row forward or from
  // the next unused row of a speculative verify (core/engine/speculative.h).
  if (!sampling.greedy && forced.empty()) r.stats.seed = options.seed.value_or(FreshSeed());
  Sampler sampler(sampling, static_cast<int64_t>(tok().size()), r.stats.seed.value_or(0));
  // The answer's text leaves out special tokens, as Hugging Face's reference decode does
  // (skip_special_tokens=True; the golden's text_skip_special) and vLLM by default: a sampled
  // <|image_pad|> kept in the text would come back as an image placeholder in the next turn's
  // render. <think> and <tool_call> are not special, so reasoning and tool calls stay.
  StreamDecoder decoder(tok(), /*skip_special=*/true);
  std::vector<int32_t> context(stream.ids.begin(), stream.ids.end());
  const auto& stops = engine->stop_ids();
  Clock::time_point first_token_time{};
  Clock::time_point last_time = Clock::now();
  VerifyBatch batch;
  bool in_batch = false;  // batch has rows not yet used
  const int64_t valid_vocab = static_cast<int64_t>(tok().size());
  // Drafts: the MTP's argmax when greedy; when sampling, a draw from its distribution q as the
  // sampler shapes it (penalties counting the drafts so far), kept for the acceptance rule.
  Sampler draft_sampler(sampling, valid_vocab, r.stats.seed.value_or(0) ^ 0x9E3779B97F4A7C15ull);
  std::vector<std::vector<float>> draft_q;
  std::vector<int32_t> draft_context, draft_generated;
  const auto pick_draft = [&](std::span<float> l) -> int64_t {
    if (sampling.greedy) return Argmax(l.data(), std::min<int64_t>(valid_vocab, static_cast<int64_t>(l.size())));
    draft_q.push_back(draft_sampler.Distribution(l, draft_context, draft_generated));
    const int32_t d = draft_sampler.Draw(draft_q.back());
    draft_context.push_back(d);
    draft_generated.push_back(d);
    return d;
  };
  r.stats.draft_tokens = draft_k;
  r.stop_reason = "max_tokens";
  // Constrained decoding (token_constraint.h): this answer's constraint state.
  const std::unique_ptr<TokenConstraint> constraint =
      options.constraint && forced.empty() ? options.constraint->Start(stops) : nullptr;
  std::optional<GeneratedLogprobs> logprobs;
  // Stop sequences (GenerateOptions::stop): on_text gets only what cannot begin one.
  StopScanner stop_scan(options.stop);
  std::vector<size_t> token_starts;  // where each generated token's text begins in r.text
  for (int step = 0; step < max_steps; ++step) {
    const float* logits = out.last();
    if (step > 0) {
      if (Stopped(cb)) {
        r.stop_reason = "cancelled";
        break;
      }
      // Tokens in the cache as plain decoding would have them (verify rows not yet used excluded).
      const int64_t n_cached = in_batch ? batch.n_before + static_cast<int64_t>(batch.used) : state.n_tokens;
      if (n_cached + 1 >= context_limit()) {
        r.stop_reason = "context";
        break;
      }
      if (capture) capture.BeginToken(step);
      if (in_batch) {
        if (capture) capture.AddVerifyRow(batch.attention, static_cast<int64_t>(batch.used));
        logits = batch.logits(batch.used++);
      } else {
        ScopedStage s(timing, "decode");
        const int64_t id = r.tokens.back();
        // Drafts past the answer's or the context's end would be wasted.
        const int k = static_cast<int>(std::min<int64_t>(
            {draft_k, max_steps - step - 1, context_limit() - n_cached - 2}));
        ++r.stats.weight_passes;
        draft_q.clear();
        draft_context = context;
        draft_generated = r.tokens;
        if (k > 0 && DraftAndVerify(engine->lm(), state, id, k, options.speculative_draft_vocab, pick_draft,
                                    static_cast<bool>(capture), engine->pool(), batch)) {
          in_batch = true;
          r.stats.drafted += static_cast<int>(batch.drafts());
          if (capture) capture.AddVerifyRow(batch.attention, 0);
          batch.used = 1;
          logits = batch.logits(0);
        } else {
          lm::ForwardInput in;
          in.ids = std::span<const int64_t>(&id, 1);
          engine->lm().Forward(in, state, out, engine->pool(), observer);
          logits = out.last();
        }
      }
    }
    if (cb.on_logits) cb.on_logits(std::span<const float>(logits, static_cast<size_t>(out.vocab)));
    int32_t next;
    const bool draft_follows = in_batch && batch.used < batch.rows.size();
    {
      ScopedStage s(timing, "sample");
      std::vector<float> row(logits, logits + out.vocab);
      if (constraint) constraint->MaskLogits(row);  // a verify row too: a refused draft cannot be chosen
      if (!forced.empty()) {
        next = forced[static_cast<size_t>(step)];  // teacher forcing: the given token, not a sample
      } else if (draft_follows && !sampling.greedy) {
        // Speculative sampling: keep the draft with probability min(1, p/q), else draw from the
        // residual (never the draft itself), so `next` is distributed as plain sampling's.
        const std::vector<float> p = sampler.Distribution(row, context, r.tokens);
        next = AcceptOrResample(p, draft_q[batch.used - 1], static_cast<int32_t>(batch.rows[batch.used]),
                                sampler.rng()).token;
      } else {
        next = sampler.Sample(row, context, r.tokens);
      }
      if (constraint) constraint->Accept(next);
      // `row` as sampled: penalised (Sample and Distribution work in place) and masked.
      if (options.top_logprobs >= 0)
        logprobs = ComputeLogprobs(row, valid_vocab, sampling.greedy ? 1.0f : sampling.temperature, next,
                                   options.top_logprobs);
    }
    if (draft_follows) {
      // The next verify row was fed draft rows[used]: usable only if that is what was chosen.
      if (next == batch.rows[batch.used]) {
        ++r.stats.accepted;
      } else {
        KeepRows(state, batch, batch.used);
        in_batch = false;
      }
    } else {
      in_batch = false;
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
    if (logprobs) {
      r.logprobs.push_back(*logprobs);
      if (cb.on_logprobs) cb.on_logprobs(*logprobs);
    }
    const std::string piece = decoder.Push(next);
    token_starts.push_back(r.text.size());
    r.text += piece;
    const std::string shown = stop_scan.Push(piece);
    if (!shown.empty() && cb.on_text) cb.on_text(shown);
    if (capture) {
      const AttentionMap& m = capture.EndToken(next, piece);
      if (cb.on_attention) cb.on_attention(m);
    }
    if (stop_scan.stopped()) {
      r.stop_reason = "stop";  // this token completed a stop sequence: it is not fed
      break;
    }
  }
  if (in_batch && batch.used < batch.rows.size()) KeepRows(state, batch, batch.used);  // unused rows
  const std::string tail = decoder.Flush();
  r.text += tail;
  std::string shown_tail = stop_scan.Push(tail);
  if (stop_scan.stopped()) {
    r.stop_reason = "stop";
  } else {
    shown_tail += stop_scan.Flush();
  }
  if (!shown_tail.empty() && cb.on_text) cb.on_text(shown_tail);
  // A stop sequence: the answer is the text before it; the tokens that began at or after the
  // cut (the stop sequence's) keep no map.
  size_t kept_tokens = token_starts.size();
  if (stop_scan.stopped()) {
    r.text.resize(stop_scan.released());
    kept_tokens = static_cast<size_t>(
        std::lower_bound(token_starts.begin(), token_starts.end(), r.text.size()) - token_starts.begin());
  }
  const auto kept_maps = [&](std::vector<AttentionMap> maps) {
    if (maps.size() > kept_tokens) maps.resize(kept_tokens);
    return maps;
  };
  if (capture) {
    r.attention = kept_maps(capture.primary().maps());
    r.words = GroupWords(r.attention);
    for (size_t k = 0; k < capture.images.size(); ++k)
      r.attention_by_image.push_back({capture.image_indices[k], kept_maps(capture.images[k]->maps())});
  }
  FinishStats(r, timing, t0, first_token_time, new_image_tokens, prompt_tokens, state.n_tokens);
  turn.answer = r.text;
  turn.complete = true;
  turn.tool_calls.clear();
  if (!tools.empty() && options.parse_tool_calls) {
    // Kept in its history form: the next render equals the template's for the calls.
    r.tool_calls = ParseToolCalls(r.text, tools);
    if (r.tool_calls.ok) {
      turn.answer = r.tool_calls.content;
      turn.tool_calls = r.tool_calls.calls;
    }
  } else {
    r.tool_calls.content = r.text;
  }
  return r;
}

void SessionImpl::FinishStats(TurnResult& r, Timing& timing, Clock::time_point t0, Clock::time_point first_token,
                              int new_image_tokens, int prompt_tokens, int64_t cache_tokens) {
  // design.md "Timing": decode tok/s excludes the first token.
  TurnStats& st = r.stats;
  st.image_tokens = new_image_tokens;
  st.prompt_tokens = prompt_tokens;
  st.generated_tokens = static_cast<int>(r.tokens.size());
  st.prefill_s = timing.Seconds("prefill");
  st.prefill_tokens_per_s = st.prefill_s > 0 ? st.prompt_tokens / st.prefill_s : 0.0;
  st.ttft_s = first_token == Clock::time_point{} ? 0.0 : std::chrono::duration<double>(first_token - t0).count();
  st.decode_s = timing.Seconds("decode");
  const int decoded = std::max(0, st.generated_tokens - 1);
  st.decode_tokens_per_s = st.decode_s > 0 && decoded > 0 ? decoded / st.decode_s : 0.0;
  st.total_s = std::chrono::duration<double>(Clock::now() - t0).count();
  st.context_tokens = static_cast<int>(cache_tokens);
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
  context_tokens = static_cast<int>(cache_tokens);
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
