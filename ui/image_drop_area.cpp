#include "ui/image_drop_area.h"

#include <QApplication>
#include <QClipboard>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImageReader>
#include <QLabel>
#include <QMimeData>
#include <QPushButton>
#include <QDir>
#include <QStandardPaths>
#include <QVBoxLayout>

#include "ui/event_types.h"
#include "ui/heatmap.h"
#include "ui/settings_file.h"

namespace glance::ui {

QImage LoadImagePreview(const QString& path, QString* error, int max_side) {
  const QFileInfo file(path);
  if (!file.isFile()) {
    if (error) *error = QObject::tr("The image %1 is no longer there.").arg(path);
    return {};
  }
  QImageReader::setAllocationLimit(1024);  // MiB; the preview is scaled below
  QImageReader reader(path);
  reader.setAutoTransform(true);
  const QSize size = reader.size();
  if (size.isValid() && (size.width() > max_side || size.height() > max_side))
    reader.setScaledSize(size.scaled(max_side, max_side, Qt::KeepAspectRatio));
  QImage image = reader.read();
  if (image.isNull()) {
    if (error)
      *error = QObject::tr("%1 exists but cannot be shown: %2").arg(file.fileName(), reader.errorString());
    return {};
  }
  if (image.width() > max_side || image.height() > max_side)
    image = image.scaled(max_side, max_side, Qt::KeepAspectRatio, Qt::SmoothTransformation);
  return image;
}

ImageDropArea::ImageDropArea(QWidget* parent) : QFrame(parent) {
  setAcceptDrops(true);
  setFrameShape(QFrame::StyledPanel);
  setFocusPolicy(Qt::StrongFocus);
  // The thumbnail and what it is on top, the buttons on a row of their own under both: the
  // buttons fit a narrow dock (beside the thumbnail they were clipped: "Try a demo scen").
  auto* outer = new QVBoxLayout(this);
  auto* layout = new QHBoxLayout;
  outer->addLayout(layout);
  preview_ = new HeatmapWidget(this);
  preview_->setAccessibleName(tr("The image's thumbnail"));
  const int em = fontMetrics().height();
  preview_->setFixedSize(em * 7 / 2, em * 7 / 2);  // small: the heatmap below shows the image large
  layout->addWidget(preview_);

  auto* right = new QVBoxLayout;
  info_ = new QLabel(tr("Drop an image here, paste one (Ctrl+V) or open a file."), this);
  info_->setWordWrap(true);
  message_ = new QLabel(this);
  message_->setWordWrap(true);
  message_->setVisible(false);
  message_->setForegroundRole(QPalette::BrightText);
  message_->setAutoFillBackground(true);
  QPalette warn = message_->palette();
  warn.setColor(QPalette::Window, QColor(176, 40, 40));
  warn.setColor(QPalette::BrightText, Qt::white);
  message_->setPalette(warn);
  message_->setMargin(em / 4);
  auto* buttons = new QHBoxLayout;
  auto* open = new QPushButton(tr("Open\u2026"), this);
  auto* paste = new QPushButton(tr("Paste"), this);
  // A picture the bundled demo model knows how to describe (the main window picks it).
  auto* demo = new QPushButton(tr("Try a demo scene"), this);
  demo->setObjectName(QStringLiteral("demoSceneButton"));
  buttons->addWidget(open);
  buttons->addWidget(paste);
  buttons->addWidget(demo);
  buttons->addStretch(1);
  right->addWidget(info_);
  right->addWidget(message_);
  right->addStretch(1);
  layout->addLayout(right, 1);
  outer->addLayout(buttons);

  connect(open, &QPushButton::clicked, this, &ImageDropArea::openDialog);
  connect(paste, &QPushButton::clicked, this, &ImageDropArea::pasteFromClipboard);
  connect(demo, &QPushButton::clicked, this, &ImageDropArea::demoSceneRequested);
}

bool ImageDropArea::handleMime(const QMimeData* mime) {
  if (mime == nullptr) return false;
  if (mime->hasUrls()) {
    for (const QUrl& url : mime->urls())
      if (url.isLocalFile()) return takeFile(url.toLocalFile());
    showMessage(tr("Only local files can be attached (got %1).")
                    .arg(mime->urls().value(0).toDisplayString()));
    return false;
  }
  if (mime->hasImage()) {
    const QImage image = qvariant_cast<QImage>(mime->imageData());
    if (image.isNull()) {
      showMessage(tr("The pasted data is not an image Glance can read."));
      return false;
    }
    message_->setVisible(false);
    Q_EMIT imagePasted(image);
    return true;
  }
  showMessage(tr("That is not an image: drop an image file or image data."));
  return false;
}

bool ImageDropArea::pasteFromClipboard() {
  return handleMime(QApplication::clipboard()->mimeData());
}

QString ImageOpenFolder(const QString& remembered, const QString& pictures) {
  for (const QString& folder : {remembered, pictures})
    if (!folder.isEmpty() && QFileInfo(folder).isDir()) return folder;
  return QDir::homePath();
}

void ImageDropArea::openDialog() {
  QStringList patterns;
  for (const QByteArray& format : QImageReader::supportedImageFormats())
    patterns << QStringLiteral("*.") + QString::fromLatin1(format);
  const auto settings = SettingsFile::App();
  const QString folder = ImageOpenFolder(settings->value(QStringLiteral("dialogs/image_folder")).toString(),
                                         QStandardPaths::writableLocation(QStandardPaths::PicturesLocation));
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Attach an image"), folder,
      tr("Images (%1);;All files (*)").arg(patterns.join(QLatin1Char(' '))));
  if (path.isEmpty()) return;
  settings->setValue(QStringLiteral("dialogs/image_folder"), QFileInfo(path).absolutePath());
  takeFile(path);
}

bool ImageDropArea::takeFile(const QString& path) {
  const QFileInfo file(path);
  if (!file.isFile()) {
    showMessage(tr("%1 is not a file.").arg(file.fileName()));
    return false;
  }
  QImageReader reader(path);
  if (!reader.canRead()) {
    showMessage(tr("%1 is not an image Glance can read (%2).")
                    .arg(file.fileName(), reader.errorString()));
    return false;
  }
  message_->setVisible(false);
  Q_EMIT imageFileChosen(path);
  return true;
}

void ImageDropArea::setImageInfo(const ImageInfo& info, const QImage& processed, const QString& shownName) {
  preview_->setImage(processed);
  // An invisible all-zero map: the overlay draws just the token grid over the thumbnail.
  OverlayStyle style;
  style.opacity = 0.0;
  preview_->setStyle(style);
  preview_->setMap(std::vector<float>(static_cast<size_t>(info.tokens()), 0.0f), info.grid_h,
                   info.grid_w);
  QString name = !shownName.isEmpty() ? shownName
                 : info.path.empty()  ? tr("Pasted image")
                                      : QFileInfo(Q(info.path)).fileName();
  name = fontMetrics().elidedText(name, Qt::ElideMiddle, fontMetrics().height() * 16);
  info_->setText(QStringLiteral("<b>%1</b><br>%2").arg(name.toHtmlEscaped(), DescribeImage(info)));
  message_->setVisible(false);
}

void ImageDropArea::showBusy(const QImage& preview, const QString& name) {
  preview_->setImage(preview);
  preview_->setMap({}, 0, 0);
  const QString shown = fontMetrics().elidedText(name, Qt::ElideMiddle, fontMetrics().height() * 16);
  info_->setText(QStringLiteral("<b>%1</b><br>%2").arg(shown.toHtmlEscaped(), tr("Encoding\u2026 (Esc stops)")));
  message_->setVisible(false);
}

void ImageDropArea::clearImage() {
  preview_->setImage(QImage());
  preview_->setMap({}, 0, 0);
  info_->setText(tr("Drop an image here, paste one (Ctrl+V) or open a file."));
}

void ImageDropArea::showMessage(const QString& text) {
  message_->setText(text);
  message_->setVisible(true);
}

QString ImageDropArea::message() const { return message_->isHidden() ? QString() : message_->text(); }

QString ImageDropArea::infoText() const { return info_->text(); }

void ImageDropArea::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls() || event->mimeData()->hasImage()) {
    event->acceptProposedAction();
    setHighlighted(true);
  }
}

void ImageDropArea::dragLeaveEvent(QDragLeaveEvent* event) {
  setHighlighted(false);
  QFrame::dragLeaveEvent(event);
}

void ImageDropArea::dropEvent(QDropEvent* event) {
  setHighlighted(false);
  if (handleMime(event->mimeData())) event->acceptProposedAction();
}

void ImageDropArea::setHighlighted(bool on) {
  setFrameShadow(on ? QFrame::Sunken : QFrame::Plain);
  setBackgroundRole(on ? QPalette::Highlight : QPalette::Window);
  setAutoFillBackground(on);
}

}  // namespace glance::ui
