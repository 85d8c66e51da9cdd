#include "ui/detail_estimate.h"

#include <QLocale>
#include <QObject>
#include <exception>

#include "core/vision/image_preprocessor.h"

namespace glance::ui {

DetailEstimate EstimateDetail(const QString& model_dir, QSize source, double vision_s_per_token,
                              double prefill_tokens_per_s) {
  DetailEstimate e;
  if (source.isEmpty()) return e;
  try {
    const vision::PreprocessorConfig config = vision::PreprocessorConfig::FromFile(
        (model_dir + QStringLiteral("/preprocessor_config.json")).toStdString());
    const vision::ImagePreprocessor preprocessor(config);
    const vision::ResizeTarget target =
        preprocessor.TargetSize(source.height(), source.width(), vision::ImageMode::kDetail);
    const int factor = static_cast<int>(config.factor());
    e.resized = QSize(target.width, target.height);
    e.tokens = (target.height / factor) * (target.width / factor);
  } catch (const std::exception&) {
    return e;  // no estimate: the engine reports the problem when it loads the image
  }
  if (vision_s_per_token > 0.0 && prefill_tokens_per_s > 0.0)
    e.seconds = e.tokens * vision_s_per_token + e.tokens / prefill_tokens_per_s;
  return e;
}

QString DetailWarningText(const DetailEstimate& e) {
  const QLocale locale;
  QString text = QObject::tr("This image becomes about %1 image tokens in detail mode (%2\u00D7%3 "
                             "pixels).")
                     .arg(locale.toString(e.tokens), locale.toString(e.resized.width()),
                          locale.toString(e.resized.height()));
  if (e.seconds >= 0.0)
    text += QObject::tr(" Encoding and reading them take about %1 s on this machine.")
                .arg(e.seconds, 0, 'f', e.seconds < 10 ? 1 : 0);
  else
    text += QObject::tr(" That can take minutes on a CPU (no image has been timed yet here).");
  text += QObject::tr(" Fast mode uses 49 tokens.");
  return text;
}

}  // namespace glance::ui
