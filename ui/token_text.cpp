#include "ui/token_text.h"

namespace glance::ui {

QString ChipText(const std::string& text) {
  const QString t = QString::fromStdString(text).trimmed();
  return t.isEmpty() ? QStringLiteral("\u2423") : t;
}

QString VisibleToken(const std::string& text) {
  QString t = QString::fromStdString(text);
  t.replace(QLatin1Char('\n'), QStringLiteral("\u21B5"));
  t.replace(QLatin1Char('\t'), QStringLiteral("\u21E5"));
  return t.trimmed().isEmpty() ? QStringLiteral("\u2423") : t;
}

}  // namespace glance::ui
