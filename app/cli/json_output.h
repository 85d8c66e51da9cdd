#pragma once
// What caption/chat print besides the answer: a one-line stats summary, and the --json document.
#include <string>

#include "core/engine/engine.h"
#include "core/engine/events.h"
#include "core/engine/session.h"

namespace glance::cli {

std::string StatsLine(const TurnStats& s);
std::string CaptionJson(const ModelInfo& model, const ImageInfo& image, const TurnResult& r);

}  // namespace glance::cli
