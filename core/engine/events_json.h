#pragma once
// JSON for the engine's value types (glance-cli --json, saved conversations, exports).
// ToJson/FromJson round-trip exactly; FromJson throws glance::Error on a malformed document.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/engine/events.h"

namespace glance {

nlohmann::json ToJson(const ImageInfo& v);
nlohmann::json ToJson(const AttentionMap& v);
nlohmann::json ToJson(const AttentionWord& v);
nlohmann::json ToJson(const StageTime& v);
nlohmann::json ToJson(const TurnStats& v);

ImageInfo ImageInfoFromJson(const nlohmann::json& j);
AttentionMap AttentionMapFromJson(const nlohmann::json& j);
AttentionWord AttentionWordFromJson(const nlohmann::json& j);
TurnStats TurnStatsFromJson(const nlohmann::json& j);

// The one attention schema. A token's map is ToJson(AttentionMap) ("token_text", ...) wherever
// it is written: glance-cli --json, saved conversations, and the attention export (the GUI's
// Export JSON), which is
//   {"model","precision" (omitted when empty),"grid_h","grid_w","layers","n_heads" (of the
//    first map; omitted without maps),"tokens":[AttentionMap...],"words":[AttentionWord...]}.
struct AttentionExport {
  std::string model, precision;
  std::vector<AttentionMap> maps;
  std::vector<AttentionWord> words;
};
nlohmann::json ToJson(const AttentionExport& v);
// Also reads exports written before the schema was one (until 2026-12): a token's text under
// "text", its layers and heads only at the top level.
AttentionExport AttentionExportFromJson(const nlohmann::json& j);

}  // namespace glance
