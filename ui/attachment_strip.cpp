#include "ui/attachment_strip.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPixmap>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

namespace glance::ui {

QImage Thumbnail(const QImage& image) {
  constexpr int kSide = 320;
  if (image.isNull() || (image.width() <= kSide && image.height() <= kSide)) return image;
  return image.scaled(kSide, kSide, Qt::KeepAspectRatio, Qt::SmoothTransformation);
}

AttachmentStrip::AttachmentStrip(QWidget* parent) : QWidget(parent) {
  row_ = new QHBoxLayout(this);
  row_->setContentsMargins(0, 0, 0, 0);
  row_->addStretch(1);
  setAccessibleName(tr("Attached images"));
  setVisible(false);
}

void AttachmentStrip::addImage(const QImage& preview, const QString& name) {
  const int em = fontMetrics().height();
  Tile tile;
  tile.image = preview;
  tile.name = name;
  tile.box = new QFrame(this);
  static_cast<QFrame*>(tile.box)->setFrameShape(QFrame::StyledPanel);
  auto* layout = new QHBoxLayout(tile.box);
  layout->setContentsMargins(em / 4, em / 4, em / 4, em / 4);
  tile.thumb = new QLabel(tile.box);
  const int side = em * 3;
  if (!preview.isNull())
    tile.thumb->setPixmap(QPixmap::fromImage(
        preview.scaled(side, side, Qt::KeepAspectRatio, Qt::SmoothTransformation)));
  tile.thumb->setFixedSize(side, side);
  tile.thumb->setAlignment(Qt::AlignCenter);
  tile.caption = new QLabel(tile.box);
  tile.caption->setTextFormat(Qt::PlainText);
  tile.remove = new QToolButton(tile.box);
  tile.remove->setAutoRaise(true);
  tile.remove->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
  tile.remove->setEnabled(removable_);
  layout->addWidget(tile.thumb);
  layout->addWidget(tile.caption);
  layout->addWidget(tile.remove, 0, Qt::AlignTop);
  row_->insertWidget(count(), tile.box);
  QToolButton* button = tile.remove;
  connect(button, &QToolButton::clicked, this, [this, button] {
    for (int i = 0; i < count(); ++i)
      if (tiles_[static_cast<size_t>(i)].remove == button) Q_EMIT removeRequested(i);
  });
  tiles_.push_back(tile);
  setReady(count() - 1, tr("Encoding\u2026"));
  setVisible(true);
}

void AttachmentStrip::setReady(int index, const QString& detail) {
  if (index < 0 || index >= count()) return;
  Tile& tile = tiles_[static_cast<size_t>(index)];
  const int em = fontMetrics().height();
  const QString name = fontMetrics().elidedText(tile.name, Qt::ElideMiddle, em * 8);
  tile.caption->setText(detail.isEmpty() ? name : name + QLatin1Char('\n') + detail);
  tile.box->setToolTip(tile.name);
  tile.thumb->setAccessibleName(tr("Image %1: %2").arg(index + 1).arg(tile.name));
  tile.remove->setToolTip(tr("Remove %1 from the message").arg(tile.name));
  tile.remove->setAccessibleName(tr("Remove image %1").arg(index + 1));
}

void AttachmentStrip::removeAt(int index) {
  if (index < 0 || index >= count()) return;
  delete tiles_[static_cast<size_t>(index)].box;
  tiles_.erase(tiles_.begin() + index);
  for (int i = 0; i < count(); ++i)  // the accessible names count from 1 in order
    tiles_[static_cast<size_t>(i)].remove->setAccessibleName(tr("Remove image %1").arg(i + 1));
  setVisible(!tiles_.empty());
}

void AttachmentStrip::clear() {
  for (Tile& tile : tiles_) delete tile.box;
  tiles_.clear();
  setVisible(false);
}

std::vector<QImage> AttachmentStrip::images() const {
  std::vector<QImage> out;
  for (const Tile& tile : tiles_) out.push_back(tile.image);
  return out;
}

QString AttachmentStrip::nameAt(int index) const {
  return index >= 0 && index < count() ? tiles_[static_cast<size_t>(index)].name : QString();
}

QToolButton* AttachmentStrip::removeButton(int index) const {
  return index >= 0 && index < count() ? tiles_[static_cast<size_t>(index)].remove : nullptr;
}

void AttachmentStrip::setRemovable(bool on) {
  removable_ = on;
  for (Tile& tile : tiles_) tile.remove->setEnabled(on);
}

}  // namespace glance::ui
