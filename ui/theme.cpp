#include "ui/theme.h"

#include <QApplication>
#include <QPalette>
#include <QProxyStyle>
#include <QStyleOption>
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

// Fusion outlines a check box with the window colour made darker, and fills it with the base
// colour: on the dark palette both are near-black, so an unchecked box (the File menu's Local
// server, Hide sinks) could not be seen. This style outlines it with the text colour made
// darker instead, on a dark palette only.
class VisibleIndicatorStyle : public QProxyStyle {
 public:
  using QProxyStyle::QProxyStyle;
  void drawPrimitive(PrimitiveElement element, const QStyleOption* option, QPainter* painter,
                     const QWidget* widget) const override {
    if ((element == PE_IndicatorCheckBox || element == PE_IndicatorRadioButton) &&
        option->palette.color(QPalette::Window).lightness() < 128) {
      // Copied as the kind it is (Fusion draws these only for a button's options).
      const QColor outline = option->palette.color(QPalette::WindowText);
      if (const auto* button = qstyleoption_cast<const QStyleOptionButton*>(option)) {
        QStyleOptionButton lighter(*button);
        lighter.palette.setColor(QPalette::Window, outline);
        QProxyStyle::drawPrimitive(element, &lighter, painter, widget);
      } else {
        QStyleOption lighter(*option);
        lighter.palette.setColor(QPalette::Window, outline);
        QProxyStyle::drawPrimitive(element, &lighter, painter, widget);
      }
      return;
    }
    QProxyStyle::drawPrimitive(element, option, painter, widget);
  }
};

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
      QApplication::setStyle(new VisibleIndicatorStyle(QStyleFactory::create(QStringLiteral("Fusion"))));
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
