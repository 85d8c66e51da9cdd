#include "core/engine/prompt_stream.h"

#include <algorithm>
#include <string>

#include "core/engine/engine.h"
#include "core/text/chat_template.h"
#include "core/text/tokenizer.h"
#include "core/util/error.h"

namespace glance {

std::vector<int64_t> PromptStream::ImageRows(size_t k) const {
  const lm::ImageRun& r = runs.at(k);
  std::vector<int64_t> rows(static_cast<size_t>(r.length()));
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = r.begin + static_cast<int64_t>(i);
  return rows;
}

namespace {

// The strings of the tokens that place images. The tokenizer matches added tokens anywhere in the
// render (as Hugging Face's does), so one of these inside text would shift every image after it;
// Hugging Face's processor fails there too ("Image features and image tokens do not match").
std::vector<std::string> ImageMarkers(const Engine& engine) {
  const ModelConfig& c = engine.config();
  std::vector<std::string> m;
  for (int64_t id : {c.vision_start_token_id, c.vision_end_token_id, c.image_token_id, c.video_token_id})
    if (id >= 0 && static_cast<size_t>(id) < engine.tokenizer().size())
      m.push_back(engine.tokenizer().TokenBytes(static_cast<int32_t>(id)));
  return m;
}

void EraseAll(std::string& text, const std::string& marker) {
  for (size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at)) text.erase(at, marker.size());
}

// `messages` with image markers removed from assistant text; throws for one in any other text.
std::vector<ChatMessage> WithoutImageMarkersInText(const Engine& engine, const std::vector<ChatMessage>& messages) {
  std::vector<ChatMessage> out = messages;
  for (const std::string& marker : ImageMarkers(engine)) {
    if (marker.empty()) continue;
    for (ChatMessage& m : out) {
      const bool assistant = m.role == "assistant";
      for (ContentPart& part : m.content) {
        if (part.kind != ContentPart::kText || part.text.find(marker) == std::string::npos) continue;
        if (!assistant)
          throw Error("the " + m.role + " message contains " + marker +
                      ", which is reserved for placing images; remove it from the text");
        EraseAll(part.text, marker);
      }
      if (assistant && m.reasoning_content) EraseAll(*m.reasoning_content, marker);
    }
  }
  return out;
}

}  // namespace

PromptStream BuildPromptStream(const Engine& engine, const std::vector<ChatMessage>& messages,
                               std::optional<bool> enable_thinking, std::span<const lm::ImageGrid> grids,
                               const std::vector<std::string>& tools) {
  ChatTemplateOptions o;
  o.add_generation_prompt = true;
  o.enable_thinking = enable_thinking;
  o.tools = tools;
  const Tokenizer& tok = engine.tokenizer();
  const std::vector<int32_t> ids = tok.Encode(engine.chat_template().Render(WithoutImageMarkersInText(engine, messages), o));
  // Each <|image_pad|> becomes its image's token count; images are in conversation order.
  const int32_t pad = static_cast<int32_t>(engine.config().image_token_id);
  const size_t n_pads = static_cast<size_t>(std::count(ids.begin(), ids.end(), pad));
  if (n_pads > grids.size()) throw Error("the conversation has more image placeholders than images");
  std::vector<int32_t> counts;
  for (size_t i = 0; i < n_pads; ++i) counts.push_back(static_cast<int32_t>(grids[i].h * grids[i].w));
  const std::vector<int32_t> expanded = ExpandPadTokens(ids, pad, counts);

  PromptStream s;
  s.ids.assign(expanded.begin(), expanded.end());
  s.runs = lm::FindImageRuns(s.ids, pad, grids.first(n_pads));
  s.positions = lm::ComputeMropePositions(static_cast<int64_t>(s.ids.size()), s.runs);
  // The generation prompt is the render's tail; it starts with its own <|im_start|>, so it
  // tokenizes on its own. The last user message starts at the <|im_start|> before it.
  const size_t gen = tok.Encode(engine.chat_template().GenerationPrompt(enable_thinking)).size();
  if (gen > s.ids.size()) throw Error("internal: the generation prompt is longer than the render");
  s.user_end = s.ids.size() - gen;
  const int64_t im_start = tok.TokenId("<|im_start|>");
  size_t boundary = s.user_end;
  while (boundary > 0 && s.ids[boundary - 1] != im_start) --boundary;
  s.history_end = boundary > 0 ? boundary - 1 : 0;
  return s;
}

int64_t PrefillChunkRows(const Engine& engine) {
  const double params = std::max(1.0, static_cast<double>(engine.info().parameters));
  return std::clamp<int64_t>(static_cast<int64_t>(1.4e11 / params) / 64 * 64, 64, 256);
}

bool PrefillRows(const Engine& engine, const PromptStream& stream, size_t begin, size_t end,
                 std::span<const float* const> features, lm::LmState& state, lm::ForwardOutput& out,
                 lm::AttentionObserver* observer, bool all_logits, const PrefillControl& control) {
  if (end > stream.size() || begin > end) throw Error("internal: prefill range past the prompt");
  if (features.size() < stream.runs.size()) throw Error("internal: fewer image features than image runs");
  const int64_t hidden = engine.config().text.hidden_size;
  const int64_t n = static_cast<int64_t>(stream.size());
  state.rope_delta = stream.positions.rope_delta;
  const int64_t chunk = all_logits || control.chunk <= 0 ? static_cast<int64_t>(end - begin) : control.chunk;
  size_t at = begin;
  bool stopped = false;
  while (at < end && !stopped) {
    const size_t stop = std::min(end, at + static_cast<size_t>(std::max<int64_t>(chunk, 1)));
    const int64_t T = static_cast<int64_t>(stop - at);
    std::vector<int64_t> positions(static_cast<size_t>(3 * T));
    for (int a = 0; a < 3; ++a)
      std::copy_n(stream.positions.pos.data() + a * n + static_cast<int64_t>(at), T, positions.data() + a * T);
    std::vector<lm::EmbeddingOverride> overrides;
    for (size_t k = 0; k < stream.runs.size(); ++k) {
      const lm::ImageRun& r = stream.runs[k];
      const int64_t lo = std::max<int64_t>(r.begin, static_cast<int64_t>(at));
      const int64_t hi = std::min<int64_t>(r.begin + r.length(), static_cast<int64_t>(stop));
      for (int64_t row = lo; row < hi; ++row)
        overrides.push_back({row - static_cast<int64_t>(at), features[k] + (row - r.begin) * hidden});
    }
    lm::ForwardInput in;
    in.ids = std::span<const int64_t>(stream.ids.data() + at, static_cast<size_t>(T));
    in.overrides = overrides;
    in.positions = positions.data();
    in.all_logits = all_logits;
    if (control.on_rows || control.cancel)
      in.on_layer = [&](int layer, int layers) {
        if (control.cancel && control.cancel->load()) return !(stopped = true);
        if (control.on_rows && layer > 0)
          control.on_rows(static_cast<int64_t>(at - begin) + T * layer / layers, static_cast<int64_t>(end - begin));
        return true;
      };
    // The observer sees the last chunk only: capture wants the rows of the prompt's last query.
    engine.lm().Forward(in, state, out, engine.pool(), stop == end ? observer : nullptr);
    if (stopped) break;
    at = stop;
    if (control.on_rows) control.on_rows(static_cast<int64_t>(at - begin), static_cast<int64_t>(end - begin));
  }
  return !stopped;
}

}  // namespace glance
