#include "ui/event_types.h"

#include <QCoreApplication>

#include "ui/local_server_config.h"
#include "ui/stats_format.h"

namespace glance::ui {

void RegisterEventTypes() {
  qRegisterMetaType<glance::ModelInfo>();
  qRegisterMetaType<glance::ImageInfo>();
  qRegisterMetaType<glance::AttentionMap>();
  qRegisterMetaType<glance::TurnStats>();
  qRegisterMetaType<glance::TurnResult>();
  qRegisterMetaType<glance::GenerateOptions>();
  qRegisterMetaType<glance::EngineOptions>();
  qRegisterMetaType<glance::ImageMode>();
  qRegisterMetaType<glance::Progress>();
  qRegisterMetaType<glance::SavedConversation>();
  qRegisterMetaType<std::vector<glance::AttentionMap>>();
  qRegisterMetaType<glance::ui::LocalServerConfig>();
  qRegisterMetaType<glance::server::ServedRequest>();
}

QString DescribeImage(const ImageInfo& info) {
  const QChar times(0x00D7);
  const QChar arrow(0x2192);
  QString text;
  if (info.source_w != info.resized_w || info.source_h != info.resized_h)
    text += QStringLiteral("%1%2%3 %4 ").arg(info.source_w).arg(times).arg(info.source_h).arg(arrow);
  text += QCoreApplication::translate("Stats", "%1%2%3 %4 %5%6%7 = %8 tokens")
              .arg(info.resized_w)
              .arg(times)
              .arg(info.resized_h)
              .arg(arrow)
              .arg(info.grid_w)
              .arg(times)
              .arg(info.grid_h)
              .arg(info.tokens());
  text += QStringLiteral(" (%1)").arg(Q(std::string(Name(info.mode))));
  return text;
}

double ImageSeconds(const TurnStats& stats) {
  double seconds = 0.0;
  for (const StageTime& s : stats.stages)
    if (s.name == "preprocess" || s.name == "vision") seconds += s.seconds;
  return seconds;
}

double TtftWithImages(const TurnStats& stats) { return ImageSeconds(stats) + stats.ttft_s; }

double ReReadSeconds(const TurnStats& stats) {
  double seconds = 0.0;
  for (const StageTime& s : stats.stages)
    if (s.name == kReReadStage) seconds += s.seconds;
  return seconds;
}

QString ThreadCount(int threads) {
  return QCoreApplication::translate("Stats", "%n thread(s)", nullptr, threads);
}

QString SpeculativeSummary(const TurnStats& s) {
  return QCoreApplication::translate("Stats", "MTP %1 of drafts accepted, %2 tok/pass")
      .arg(FormatShare(s.acceptance_rate()), FormatRatio(s.tokens_per_weight_pass()));
}

QString DescribeStats(const TurnStats& s) {
  const QString dot = QStringLiteral(" \u00B7 ");
  const QString rate = QCoreApplication::translate("Stats", "tok/s");
  QStringList parts;
  // One form for each kind of number (ui/stats_format.h).
  parts << QCoreApplication::translate("Stats", "prompt %1 tok").arg(FormatCount(s.prompt_tokens));
  parts << QCoreApplication::translate("Stats", "TTFT %1").arg(FormatDuration(TtftWithImages(s)));
  parts << QCoreApplication::translate("Stats", "prefill %1").arg(FormatRate(s.prefill_tokens_per_s, rate));
  parts << QCoreApplication::translate("Stats", "decode %1").arg(FormatRate(s.decode_tokens_per_s, rate));
  parts << QCoreApplication::translate("Stats", "%1 tok").arg(FormatCount(s.generated_tokens));
  if (s.draft_tokens > 0) parts << SpeculativeSummary(s);
  // How the tokens were chosen (issue 34: the stats did not say): a seed is recorded exactly
  // when the turn sampled.
  parts << (s.seed ? QCoreApplication::translate("Stats", "sampled, seed %1").arg(*s.seed)
                   : QCoreApplication::translate("Stats", "greedy"));
  parts << Q(s.backend) + QLatin1Char(' ') + Q(std::string(Name(s.precision)));
  return parts.join(dot);
}

}  // namespace glance::ui
