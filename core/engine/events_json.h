#pragma once
// JSON for the engine's value types (glance-cli --json, saved conversations, exports).
// ToJson/FromJson round-trip exactly; FromJson throws glance::Error on a malformed document.
#include <nlohmann/json.hpp>

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

}  // namespace glance
