#pragma once
// The engine's value events (core/engine/events.h, session.h) as Qt metatypes, so the worker
// thread can hand them to the GUI thread by queued signals, plus small string helpers.
#include <QMetaType>
#include <QStringList>
#include <QString>
#include <string>

#include "core/engine/engine.h"
#include "core/engine/events.h"
#include "core/engine/session.h"

Q_DECLARE_METATYPE(glance::ModelInfo)
Q_DECLARE_METATYPE(glance::ImageInfo)
Q_DECLARE_METATYPE(glance::AttentionMap)
Q_DECLARE_METATYPE(glance::TurnStats)
Q_DECLARE_METATYPE(glance::TurnResult)
Q_DECLARE_METATYPE(glance::GenerateOptions)
Q_DECLARE_METATYPE(glance::EngineOptions)
Q_DECLARE_METATYPE(glance::ImageMode)
Q_DECLARE_METATYPE(glance::Progress)
Q_DECLARE_METATYPE(glance::SavedConversation)
Q_DECLARE_METATYPE(std::vector<glance::AttentionMap>)  // attention rollout maps

namespace glance::ui {

// Registers the types above for queued connections. Idempotent; call before connecting.
void RegisterEventTypes();

inline QString Q(const std::string& s) { return QString::fromStdString(s); }

// "224×224 → 7×7 = 49 tokens" (source size first when it differs from the processed size).
QString DescribeImage(const ImageInfo& info);

// Seconds this turn spent turning its new images into tokens (the "preprocess" and "vision"
// stages, which run when an image is attached, before TurnStats::ttft_s starts counting).
double ImageSeconds(const TurnStats& stats);
// The stage the desktop app adds to a turn's stats when the answer first re-read a saved
// conversation into the engine (a continued chat after a restart or a model switch).
inline constexpr const char* kReReadStage = "reread";
// Its seconds in `stats` (0 when the turn re-read nothing).
double ReReadSeconds(const TurnStats& stats);
// What the user waits from attaching an image (or sending) to the first token:
// ImageSeconds + ttft_s.
double TtftWithImages(const TurnStats& stats);

// "1 thread", "4 threads".
QString ThreadCount(int threads);

// "MTP 87% of drafts accepted, 1.74 tok/pass" (for a turn decoded speculatively).
QString SpeculativeSummary(const TurnStats& stats);

// "prompt 57 tok · TTFT 0.12 s · prefill 480 tok/s · decode 35.1 tok/s · 12 tok · cpu q8",
// with SpeculativeSummary before the backend when the turn was decoded speculatively.
QString DescribeStats(const TurnStats& stats);

}  // namespace glance::ui
