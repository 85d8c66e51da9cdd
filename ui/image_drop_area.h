#pragma once
// Where images come in: drops (file URLs or image data), paste (the window's Ctrl+V action
// calls pasteFromClipboard) and an Open dialog.
// Shows a thumbnail with the token grid and "224×224 → 7×7 = 49 tokens" once the engine has
// processed it. A file that is not a readable image gets an inline message, never a dialog.
// GUI thread only.
#include <QFrame>
#include <QImage>

#include "core/engine/events.h"

class QLabel;
class QMimeData;

namespace glance::ui {

class HeatmapWidget;

// The image at `path` for showing (not for the model): EXIF orientation applied, decoded at
// most `max_side` pixels on its long side where the format can (JPEG), and allowed up to 1 GiB
// while decoding (Qt's default 128 MB refuses large photos that exist). Null + *error saying
// why (missing file, unreadable format, too large).
QImage LoadImagePreview(const QString& path, QString* error = nullptr, int max_side = 4096);

// Where File ▸ Open image starts: the folder of the last image opened, else Pictures, else home;
// always a folder that exists (a missing Pictures folder was taken as a file name and the dialog
// opened with "Pictures" typed in its name field).
QString ImageOpenFolder(const QString& remembered, const QString& pictures);

class ImageDropArea : public QFrame {
  Q_OBJECT
 public:
  explicit ImageDropArea(QWidget* parent = nullptr);

  // Takes what a drop or paste carries. Returns true when it held a usable image.
  bool handleMime(const QMimeData* mime);
  bool pasteFromClipboard();
  void openDialog();

  // After the engine processed the image: what the tower saw, and its grid. `name` (default:
  // the file's name) is elided to fit, so a long one does not widen the dock.
  void setImageInfo(const ImageInfo& info, const QImage& processed, const QString& name = {});
  void clearImage();
  // While the engine encodes it: the thumbnail at once and "Encoding…".
  void showBusy(const QImage& preview, const QString& name);
  void showMessage(const QString& text);  // inline, replaces the previous one
  QString message() const;
  QString infoText() const;

 Q_SIGNALS:
  void imageFileChosen(const QString& path);
  void imagePasted(const QImage& image);
  void demoSceneRequested();  // the "Try a demo scene" button

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dragLeaveEvent(QDragLeaveEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  bool takeFile(const QString& path);
  void setHighlighted(bool on);

  HeatmapWidget* preview_ = nullptr;
  QLabel* info_ = nullptr;
  QLabel* message_ = nullptr;
};

}  // namespace glance::ui
