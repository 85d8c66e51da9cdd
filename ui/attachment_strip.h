#pragma once
// The images attached to the next message, above the message box (issue 34 item 2): one tile
// per image, in the order they go with the message, each with its thumbnail, its name and a
// remove button; "Encoding…" on a tile until the engine has taken that image. Hidden when
// nothing is attached. GUI thread only.
#include <QImage>
#include <QString>
#include <QWidget>
#include <vector>

class QHBoxLayout;
class QLabel;
class QToolButton;

namespace glance::ui {

// A small copy of `image` for the strip and the chat's bubbles (at most 320 px a side: sharp
// at scale 2, small in memory).
QImage Thumbnail(const QImage& image);

class AttachmentStrip : public QWidget {
  Q_OBJECT
 public:
  explicit AttachmentStrip(QWidget* parent = nullptr);

  // A new tile at the end, busy until setReady(index).
  void addImage(const QImage& preview, const QString& name);
  void setReady(int index, const QString& detail);
  void removeAt(int index);
  void clear();
  int count() const { return static_cast<int>(tiles_.size()); }
  std::vector<QImage> images() const;
  QString nameAt(int index) const;
  QToolButton* removeButton(int index) const;
  // Remove buttons off while the engine is busy (the image being encoded cannot go yet).
  void setRemovable(bool on);

 Q_SIGNALS:
  // The user asked to drop the image at `index` (the owner removes it from the engine first).
  void removeRequested(int index);

 private:
  struct Tile {
    QWidget* box = nullptr;
    QLabel* thumb = nullptr;
    QLabel* caption = nullptr;
    QToolButton* remove = nullptr;
    QImage image;
    QString name;
  };
  std::vector<Tile> tiles_;
  QHBoxLayout* row_ = nullptr;
  bool removable_ = true;
};

}  // namespace glance::ui
