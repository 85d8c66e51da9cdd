#include "ui/fitting_label.h"

#include <QEvent>
#include <QFontMetrics>
#include <algorithm>

namespace glance::ui {

FittingLabel::FittingLabel(QWidget* parent) : QLabel(parent) {
  setTextFormat(Qt::PlainText);
  setWordWrap(false);
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
}

void FittingLabel::setForms(const QStringList& forms) {
  forms_ = forms;
  fit();
}

QSize FittingLabel::minimumSizeHint() const { return {0, QLabel::minimumSizeHint().height()}; }

QSize FittingLabel::sizeHint() const {
  const QFontMetrics fm(font());
  return {fm.horizontalAdvance(forms_.value(0)), QLabel::sizeHint().height()};
}

void FittingLabel::resizeEvent(QResizeEvent* event) {
  QLabel::resizeEvent(event);
  fit();
}

void FittingLabel::changeEvent(QEvent* event) {
  QLabel::changeEvent(event);
  if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange) fit();
}

void FittingLabel::fit() {
  if (forms_.isEmpty()) {
    QLabel::clear();
    return;
  }
  const QFontMetrics fm(font());
  const int room = std::max(0, contentsRect().width() - 2 * margin());
  QString shown;
  for (const QString& form : forms_)
    if (fm.horizontalAdvance(form) <= room) {
      shown = form;
      break;
    }
  if (shown.isEmpty()) shown = fm.elidedText(forms_.back(), Qt::ElideRight, room);
  if (text() != shown) QLabel::setText(shown);
  setToolTip(shown == forms_.front() ? QString() : forms_.front());  // the whole of it
}

}  // namespace glance::ui
