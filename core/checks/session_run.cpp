#include "core/checks/session_run.h"

#include <algorithm>

#include "core/checks/check_gates.h"
#include "core/checks/reference_data.h"
#include "core/engine/engine.h"
#include "core/engine/sampler.h"
#include "core/engine/session.h"
#include "core/lm/language_model.h"
#include "core/lm/mrope.h"
#include "core/util/error.h"

namespace glance::checks {

namespace {

std::vector<int32_t> Int32(const std::vector<int64_t>& ids) { return {ids.begin(), ids.end()}; }

// One turn through the Session: the parts built so far and `text` sent with `tokens` as its answer.
void SendForced(Session& session, const std::string& text, const std::vector<int32_t>& tokens,
                std::optional<bool> thinking, PromptStream& prompt, std::vector<std::vector<float>>& rows) {
  GenerateOptions o;
  o.max_new_tokens = static_cast<int>(tokens.size());
  o.forced_tokens = tokens;
  o.enable_thinking = thinking;
  o.capture_attention = false;
  o.sampling = SamplingParams::Greedy();
  StreamCallbacks cb;
  cb.on_prompt = [&](const PromptStream& s) { prompt = s; };
  cb.on_logits = [&](std::span<const float> l) { rows.emplace_back(l.begin(), l.end()); };
  session.Send(text, o, cb);
}

// "turn N: ..." saying whether `got` equals `want` (named `what`); counts a difference.
std::string CompareIds(const char* turn, std::span<const int64_t> got, const std::vector<int64_t>& want,
                       const char* what, int& mismatches) {
  const std::string head = std::string(turn) + " ";
  if (std::equal(got.begin(), got.end(), want.begin(), want.end()))
    return head + std::to_string(got.size()) + " ids = " + what;
  ++mismatches;
  const auto diff = std::mismatch(got.begin(), got.end(), want.begin(), want.end());
  return head + std::to_string(got.size()) + " ids vs " + std::to_string(want.size()) + " in " + what +
         ", first difference at row " + std::to_string(diff.first - got.begin());
}

}  // namespace

SessionScript SessionScriptFromReference(const ReferenceData& ref) {
  SessionScript s;
  const nlohmann::json& prompt = ref.meta().at("prompt");
  if (prompt.contains("enable_thinking") && prompt["enable_thinking"].is_boolean())
    s.enable_thinking = prompt["enable_thinking"].get<bool>();
  const std::vector<ChatMessage> messages = MessagesFromJson(prompt.at("messages"));
  const std::string refused = ref.dir() + ": a Session cannot send the reference prompt: ";
  size_t at = 0;
  if (!messages.empty() && messages[0].role == "system") {
    for (const ContentPart& p : messages[0].content) {
      if (p.kind != ContentPart::kText) throw Error(refused + "the system message holds an image");
      s.system_prompt += p.text;
    }
    ++at;
  }
  if (messages.size() != at + 1 || messages[at].role != "user")
    throw Error(refused + "it is not one user message (after an optional system message): message " +
                std::to_string(std::min(messages.size() - 1, at + 1)) + " is '" +
                (messages.size() > at ? messages[std::min(messages.size() - 1, at + 1)].role : std::string("none")) + "'");
  int n_images = 0;
  for (size_t k = 0; k < messages[at].content.size(); ++k) {
    const ContentPart& p = messages[at].content[k];
    if (p.kind == ContentPart::kText)
      s.parts.push_back(MessagePart::Text(p.text));
    else if (p.kind == ContentPart::kImage)
      s.parts.push_back(MessagePart::Image(n_images++));
    else
      throw Error(refused + "part " + std::to_string(k) + " of its user message is a video, which a Session cannot attach");
  }
  s.images = ReferenceImageFiles(ref);
  if (s.images.size() != static_cast<size_t>(n_images))
    throw Error(refused + "its message has " + std::to_string(n_images) + " image(s), the folder " +
                std::to_string(s.images.size()));
  s.tokens = Int32(ref.I64("decode.tokens"));
  if (ref.Has("turn2.tokens") && ref.meta().contains("turn2")) {
    s.turn2_user_text = ref.meta()["turn2"].at("user_text").get<std::string>();
    s.turn2_tokens = Int32(ref.I64("turn2.tokens"));
  }
  return s;
}

SessionRun RunSession(const SessionScript& script, const std::shared_ptr<const Engine>& engine,
                      std::span<const float* const> features) {
  SessionRun r;
  Session session(engine);
  if (!script.system_prompt.empty()) session.SetSystemPrompt(script.system_prompt);
  for (const MessagePart& p : script.parts) {
    if (p.kind == MessagePart::kText) {
      session.AddText(p.text);
    } else {
      if (p.image < 0 || static_cast<size_t>(p.image) >= script.images.size())
        throw Error("the session script names image " + std::to_string(p.image) + " of " +
                    std::to_string(script.images.size()));
      session.AttachImage(script.images[static_cast<size_t>(p.image)], ImageMode::kDetail);
    }
  }
  SendForced(session, "", script.tokens, script.enable_thinking, r.prompt, r.decode);
  if (script.turn2_user_text.empty()) return r;
  SendForced(session, script.turn2_user_text, script.turn2_tokens, script.enable_thinking, r.turn2_prompt, r.turn2);

  // The reference side: turn 2's ids and its answer but the last token, in one all-row pass.
  PromptStream all = r.turn2_prompt;
  const size_t first = all.size() - 1;  // the generation prompt's last row gives step 0
  for (size_t k = 0; k + 1 < script.turn2_tokens.size(); ++k) all.ids.push_back(script.turn2_tokens[k]);
  all.positions = lm::ComputeMropePositions(static_cast<int64_t>(all.size()), all.runs);
  lm::LmState state = engine->lm().NewState();
  lm::ForwardOutput out;
  PrefillRows(*engine, all, 0, all.size(), features, state, out, nullptr, /*all_logits=*/true);
  for (size_t row = first; row < all.size(); ++row) {
    const float* l = out.logits.data() + static_cast<int64_t>(row) * out.vocab;
    r.turn2_scratch.emplace_back(l, l + out.vocab);
  }
  return r;
}

Measurement MeasureSessionIds(const ReferenceData& ref, const SessionRun& run) {
  int mismatches = 0;
  std::string figure = CompareIds("turn 1", run.prompt.ids, ref.I64("prompt.input_ids"), "prompt.input_ids", mismatches);
  if (!run.turn2_prompt.ids.empty()) {
    const nlohmann::json& t2 = ref.meta().at("turn2");
    if (t2.contains("template_render_ids"))
      figure += "; " + CompareIds("turn 2", run.turn2_prompt.ids, t2["template_render_ids"].get<std::vector<int64_t>>(),
                                  "HF's render", mismatches);
    else
      figure += "; turn 2 not compared (no turn2.template_render_ids)";
  }
  return {figure, {{Quantity::kMismatches, static_cast<double>(mismatches)}}};
}

Measurement MeasureSessionLogits(const SessionRun& run, const std::vector<std::vector<float>>& reference_decode) {
  double worst = 0.0, worst_of_range = 0.0;
  int steps = 0, same = 0, missing = 0;
  auto compare = [&](const std::vector<std::vector<float>>& got, const std::vector<std::vector<float>>& want) {
    const size_t n = std::min(got.size(), want.size());
    missing += static_cast<int>(std::max(got.size(), want.size()) - n);
    for (size_t s = 0; s < n; ++s) {
      const size_t v = std::min(got[s].size(), want[s].size());
      const double d = MaxAbsDiff(got[s].data(), want[s].data(), v);
      worst = std::max(worst, d);
      if (v > 0) {  // the same |Δ| against the scale of the logits (it differs by model: issue 30)
        const auto [lo, hi] = std::minmax_element(want[s].begin(), want[s].begin() + static_cast<long>(v));
        if (*hi > *lo) worst_of_range = std::max(worst_of_range, d / static_cast<double>(*hi - *lo));
      }
      same += Argmax(got[s].data(), static_cast<int64_t>(v)) == Argmax(want[s].data(), static_cast<int64_t>(v));
      ++steps;
    }
  };
  compare(run.decode, reference_decode);
  compare(run.turn2, run.turn2_scratch);
  std::string figure = FormatFigure("%d teacher-forced steps: max |Δ| %.2e (%.4f of the logit range), argmax equal at %d",
                                    steps, worst, worst_of_range, same) +
                       "/" + std::to_string(steps);
  if (missing > 0) figure += ", " + std::to_string(missing) + " steps missing";
  return {figure,
          {{Quantity::kMaxAbs, worst},
           {Quantity::kMaxAbsOfRange, worst_of_range},
           {Quantity::kMismatches, static_cast<double>(steps - same + missing)}}};
}

}  // namespace glance::checks
