#include "ui/link_label.h"

#include <QEvent>

namespace glance::ui {

void LinkLabel::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange && textFormat() != Qt::PlainText) {
    const QString shown = text();
    clear();  // setText with the same text does nothing
    setText(shown);
  }
  QLabel::changeEvent(event);
}

}  // namespace glance::ui
