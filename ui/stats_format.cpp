#include "ui/stats_format.h"

#include <QLocale>
#include <cmath>

namespace glance::ui {

QString FormatCount(qint64 n) { return QLocale().toString(n); }

QString FormatDuration(double seconds) {
  const QLocale locale;
  if (!std::isfinite(seconds) || seconds < 0.0) seconds = 0.0;
  const double ms = seconds * 1000.0;
  // Rounded first, so 999.6 ms is "1.00 s", not "1,000 ms", and 9.96 ms is "10 ms".
  if (std::round(ms * 10.0) / 10.0 < 10.0) return QStringLiteral("%1 ms").arg(locale.toString(ms, 'f', 1));
  if (std::round(ms) < 1000.0) return QStringLiteral("%1 ms").arg(locale.toString(std::round(ms), 'f', 0));
  return QStringLiteral("%1 s").arg(locale.toString(seconds, 'f', 2));
}

QString FormatRate(double perSecond, const QString& unit) {
  if (!std::isfinite(perSecond)) perSecond = 0.0;
  return QStringLiteral("%1 %2").arg(QLocale().toString(perSecond, 'f', 1), unit);
}

QString FormatShare(double fraction) {
  if (!std::isfinite(fraction)) fraction = 0.0;
  return QStringLiteral("%1%").arg(QLocale().toString(100.0 * fraction, 'f', 0));
}

QString FormatRatio(double value) {
  if (!std::isfinite(value)) value = 0.0;
  return QLocale().toString(value, 'f', 2);
}

QString FormatWeight(double value) {
  if (!std::isfinite(value)) value = 0.0;
  return QLocale().toString(value, 'g', 3);
}

QString FormatPercent(double fraction) {
  if (!std::isfinite(fraction)) fraction = 0.0;
  return QLocale().toString(100.0 * fraction, 'f', 1) + QStringLiteral(" %");
}

}  // namespace glance::ui
