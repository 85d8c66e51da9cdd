// One answer of a Session: the generation prompt, the decode loop (plain or speculative),
// attention capture and the turn's statistics. The conversation around it is session.cpp.
#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "core/engine/attention_capture.h"
#include "core/engine/session_impl.h"
#include "core/engine/speculative_sampling.h"
#include "core/engine/stop_scanner.h"
#include "core/text/chat_template.h"
#include "core/text/stream_decoder.h"

namespace glance {

using namespace session_internal;

namespace {

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

}  // namespace

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
  if (cb.on_progress) cb.on_progress({Progress::Stage::kPrompt, prompt_tokens, prompt_tokens, 0, 1});

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

}  // namespace glance
