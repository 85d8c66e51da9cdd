#pragma once
// Thumbnails for the folder view (issue 33): made off the GUI thread and cached, so a folder of
// thousands of images scrolls without waiting on a decoder.
//
// get() answers from memory at once, or returns a null image and queues the work on a pool of its
// own (newest request first: the rows just scrolled to); ready(path) follows on the GUI thread.
// The work reads a cached thumbnail from disk, or decodes the image at a reduced size
// (QImageReader::setScaledSize: JPEG decodes at 1/2, 1/4, 1/8 scale directly) and saves the
// result on disk, keyed by the image's path, modification time and size, so a changed image gets
// a new one. An image that cannot be decoded is remembered as such (failed()) and not tried again.
//
// Thread contract: GUI thread only; the pool's jobs touch no member but through queued calls.
#include <QCache>
#include <QImage>
#include <QObject>
#include <QSet>
#include <QString>
#include <QThreadPool>

namespace glance::ui {

class FolderThumbnails : public QObject {
  Q_OBJECT
 public:
  // `diskDir` "": no disk cache.
  explicit FolderThumbnails(int edge, QString diskDir, QObject* parent = nullptr);
  ~FolderThumbnails() override;

  // Glance's cache folder + "/thumbnails": $XDG_CACHE_HOME/glance, else ~/.cache/glance
  // (core/model/weight_cache.h), else QStandardPaths' generic cache location + "/glance".
  static QString DefaultDiskDir();
  // The disk cache's file name for `path` as it is now ("" when it cannot be looked at).
  QString diskKey(const QString& path) const;

  QImage get(const QString& path);
  bool failed(const QString& path) const { return failed_.contains(path); }
  int edge() const { return edge_; }
  int pending() const { return static_cast<int>(inFlight_.size()); }
  int made() const { return made_; }        // decoded from the image (not from the disk cache)
  int fromDisk() const { return fromDisk_; }

 Q_SIGNALS:
  void ready(const QString& path);

 private:
  void finished(const QString& path, const QImage& image, bool decoded);

  int edge_;
  QString diskDir_;
  QCache<QString, QImage> memory_;  // cost: bytes
  QSet<QString> inFlight_;
  QSet<QString> failed_;
  QThreadPool pool_;
  int priority_ = 0;
  int made_ = 0;
  int fromDisk_ = 0;
};

}  // namespace glance::ui
