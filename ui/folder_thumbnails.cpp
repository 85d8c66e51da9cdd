#include "ui/folder_thumbnails.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QImageReader>
#include <QSaveFile>
#include <QStandardPaths>
#include <algorithm>

#include "core/model/weight_cache.h"

namespace glance::ui {

FolderThumbnails::FolderThumbnails(int edge, QString diskDir, QObject* parent)
    : QObject(parent), edge_(edge), diskDir_(std::move(diskDir)) {
  memory_.setMaxCost(256 * 1024 * 1024);  // ~8,000 thumbnails of 96 px
  // Decoding is CPU work; leave a core to the GUI and the engine.
  pool_.setMaxThreadCount(std::max(1, QThread::idealThreadCount() / 2));
  if (!diskDir_.isEmpty()) QDir().mkpath(diskDir_);
}

FolderThumbnails::~FolderThumbnails() {
  pool_.clear();  // the queued ones never start
  pool_.waitForDone();
}

QString FolderThumbnails::DefaultDiskDir() {
  // Glance's cache folder, where the weight cache lives too (it removes only its own leftovers).
  const std::string dir = WeightCache::DefaultDir();
  // Not CacheLocation: <cache>/<Organization>/<Application> is the doubled ~/.cache/Glance/Glance
  // (ui/data_folder.h MoveDoubledThumbnailCache).
  if (dir.empty())
    return QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation) + QStringLiteral("/glance/thumbnails");
  return QString::fromStdString(dir) + QStringLiteral("/thumbnails");
}

QString FolderThumbnails::diskKey(const QString& path) const {
  const QFileInfo info(path);
  if (!info.exists()) return {};
  const QString key = info.absoluteFilePath() + QLatin1Char('\n') +
                      QString::number(info.lastModified().toMSecsSinceEpoch()) + QLatin1Char('\n') +
                      QString::number(info.size()) + QLatin1Char('\n') + QString::number(edge_);
  return QString::fromLatin1(QCryptographicHash::hash(key.toUtf8(), QCryptographicHash::Sha1).toHex()) +
         QStringLiteral(".png");
}

QImage FolderThumbnails::get(const QString& path) {
  if (const QImage* hit = memory_.object(path)) return *hit;
  if (failed_.contains(path) || inFlight_.contains(path)) return {};
  inFlight_.insert(path);
  const QString disk = diskDir_.isEmpty() ? QString() : diskDir_ + QLatin1Char('/') + diskKey(path);
  const int edge = edge_;
  FolderThumbnails* self = this;
  pool_.start(
      [self, path, disk, edge] {
        QImage image;
        bool decoded = false;
        if (!disk.isEmpty() && QFileInfo::exists(disk)) image.load(disk, "PNG");
        if (image.isNull()) {
          QImageReader reader(path);
          reader.setAutoTransform(true);  // EXIF orientation, as the large view shows it
          const QSize size = reader.size();
          if (size.isValid() && (size.width() > edge || size.height() > edge))
            reader.setScaledSize(size.scaled(edge, edge, Qt::KeepAspectRatio));
          image = reader.read();
          if (!image.isNull() && (image.width() > edge || image.height() > edge))
            image = image.scaled(edge, edge, Qt::KeepAspectRatio, Qt::SmoothTransformation);
          decoded = true;
          if (!image.isNull() && !disk.isEmpty()) {
            QSaveFile out(disk);  // whole or not at all: another window may read it
            if (out.open(QIODevice::WriteOnly) && image.save(&out, "PNG")) out.commit();
          }
        }
        // `self` is alive here: its destructor waits for running jobs; and a call queued to it
        // is dropped if it is deleted before the call is delivered.
        QMetaObject::invokeMethod(
            self, [self, path, image, decoded] { self->finished(path, image, decoded); }, Qt::QueuedConnection);
      },
      ++priority_);  // newest first: the rows the user just scrolled to
  return {};
}

void FolderThumbnails::finished(const QString& path, const QImage& image, bool decoded) {
  inFlight_.remove(path);
  if (image.isNull()) {
    failed_.insert(path);
  } else {
    memory_.insert(path, new QImage(image), static_cast<int>(std::min<qsizetype>(image.sizeInBytes(), 1 << 30)));
    ++(decoded ? made_ : fromDisk_);
  }
  Q_EMIT ready(path);
}

}  // namespace glance::ui
