#include "app/cli/json_output.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/engine/events_json.h"

namespace glance::cli {

std::string StatsLine(const TurnStats& s) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "[%d prompt tokens (%d image) · prefill %.2f s, %.1f tok/s · first token %.2f s · "
                "%d tokens at %.1f tok/s · %s, %d threads]",
                s.prompt_tokens, s.image_tokens, s.prefill_s, s.prefill_tokens_per_s, s.ttft_s,
                s.generated_tokens, s.decode_tokens_per_s, s.backend.c_str(), s.threads);
  std::string line = buf;
  if (s.draft_tokens > 0) {  // speculative decoding: how much of it was accepted
    std::snprintf(buf, sizeof buf, " · speculative mtp k=%d: %d/%d drafts accepted (%.0f%%), %.2f tokens per weight pass",
                  s.draft_tokens, s.accepted, s.drafted, 100.0 * s.acceptance_rate(), s.tokens_per_weight_pass());
    line.insert(line.size() - 1, buf);
  }
  return line;
}

std::string CaptionJson(const ModelInfo& model, const ImageInfo& image, const TurnResult& r) {
  nlohmann::json j;
  j["model"] = {{"dir", model.dir}, {"name", model.name}, {"demo", model.is_demo}};
  j["image"] = ToJson(image);
  j["text"] = r.text;
  j["tokens"] = r.tokens;
  j["stop_reason"] = r.stop_reason;
  j["stats"] = ToJson(r.stats);
  nlohmann::json words = nlohmann::json::array();
  for (const auto& w : r.words) words.push_back(ToJson(w));
  j["words"] = words;
  nlohmann::json maps = nlohmann::json::array();
  for (const auto& m : r.attention) maps.push_back(ToJson(m));
  j["attention"] = maps;
  return j.dump(2);
}

}  // namespace glance::cli
