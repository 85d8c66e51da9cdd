#include "ui/theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

namespace glance::ui {
namespace {

QPalette DarkPalette() {
  QPalette p;
  const QColor window(37, 39, 43), base(28, 30, 33), text(225, 227, 230), mid(60, 63, 68);
  const QColor accent(64, 140, 220), disabled(120, 122, 126);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, window);
  p.setColor(QPalette::ToolTipBase, base);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, disabled);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, mid);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, Qt::white);
  p.setColor(QPalette::Light, mid.lighter(130));
  p.setColor(QPalette::Midlight, mid.lighter(115));
  p.setColor(QPalette::Mid, mid);
  p.setColor(QPalette::Dark, base.darker(130));
  p.setColor(QPalette::Shadow, Qt::black);
  p.setColor(QPalette::Highlight, accent);
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, accent.lighter(130));
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, disabled);
  return p;
}

const QPalette& StartupPalette() {
  static const QPalette palette = QApplication::palette();  // taken on first use, at start-up
  return palette;
}

}  // namespace

void ApplyTheme(Theme theme) {
  (void)StartupPalette();
  switch (theme) {
    case Theme::kSystem:
      QApplication::setPalette(StartupPalette());
      break;
    case Theme::kLight:
      QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
      QApplication::setPalette(QApplication::style()->standardPalette());
      break;
    case Theme::kDark:
      QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
      QApplication::setPalette(DarkPalette());
      break;
  }
}

Theme ThemeFromString(const QString& name) {
  if (name == QStringLiteral("light")) return Theme::kLight;
  if (name == QStringLiteral("dark")) return Theme::kDark;
  return Theme::kSystem;
}

QString ThemeToString(Theme theme) {
  switch (theme) {
    case Theme::kLight:
      return QStringLiteral("light");
    case Theme::kDark:
      return QStringLiteral("dark");
    case Theme::kSystem:
      break;
  }
  return QStringLiteral("system");
}

}  // namespace glance::ui
