#pragma once
// The models Glance knows (issue 34 'a model manager'): the bundled demo model, the folders
// downloaded into the models folder (ui/model_download.h), and folders the user opened (kept in
// the settings file as recent folders). Each with its size on disk, its weight caches
// (core/model/weight_cache.h: one file per precision) and where it is. Deleting is allowed only
// for a folder Glance downloaded (inside the models folder): the folder goes, with its caches.
//
// Thread contract: plain values and functions; the listing reads the disk (folder sizes, the
// checkpoint's file list), so it is for the GUI thread at a dialog's opening, not per frame.
#include <QString>
#include <QStringList>
#include <vector>

namespace glance::ui {

struct KnownModel {
  enum class Kind { kDemo, kDownloaded, kOpened };
  Kind kind = Kind::kOpened;
  QString name;   // the folder's name ("Qwen3.5-2B"), or "Demo model (shapes world)"
  QString dir;    // absolute
  qint64 bytes = 0;  // the folder's files
  struct Cache {
    QString precision;  // "q8"
    QString path;
    qint64 bytes = 0;
  };
  std::vector<Cache> caches;
  bool exists = true;  // an opened folder may have gone since

  qint64 cacheBytes() const;
  // Glance downloaded it, so it may delete it.
  bool deletable() const { return kind == Kind::kDownloaded; }
};

// The recent folders, newest first, kept at most kMaxRecent; `dir` moved to the front.
constexpr int kMaxRecentModels = 10;
QStringList WithRecentModel(QStringList recent, const QString& dir);

// Where File ▸ Open model folder… starts: the folder holding the newest recent model that still
// exists (so it shows among its siblings), else the first of `modelsRoots` that exists, else the
// home folder. It started in the working directory whenever the demo model was loaded (issue 34).
QString ModelFolderDialogStart(const QStringList& recent, const QStringList& modelsRoots);

// The demo first, then the downloaded ones (folders in any of `modelsRoots` — the folders
// downloads went to — holding a config.json, also one level down: <root>/<owner>/<name>), then
// the opened ones not already listed and still there. `cacheDir`: the weight cache's folder
// (core WeightCache::DefaultDir()).
std::vector<KnownModel> ListKnownModels(const QString& demoDir, const QStringList& modelsRoots, const QStringList& recent,
                                        const QString& cacheDir);

// Deletes a downloaded model's folder and its weight caches. Refused (false, *error one line)
// for anything else, or a folder not inside one of `modelsRoots`; a failure names what was left.
bool DeleteDownloadedModel(const KnownModel& model, const QStringList& modelsRoots, QString* error);

// Deletes a model's weight caches only (any kind of model: they are made again at its next load
// at that precision, which takes longer). False + *error naming those left.
bool ClearWeightCaches(const KnownModel& model, QString* error);

// "1.2 GB", "840 MB", "12 KB".
QString ByteSize(qint64 bytes);

}  // namespace glance::ui
