#include "ui/known_models.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QObject>
#include <QSet>

#include "core/model/weight_cache.h"

namespace glance::ui {
namespace {

qint64 FolderBytes(const QString& dir) {
  qint64 total = 0;
  QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::NoSymLinks, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    it.next();
    total += it.fileInfo().size();
  }
  return total;
}

QString Canonical(const QString& dir) {
  const QString c = QFileInfo(dir).canonicalFilePath();
  return c.isEmpty() ? QDir::cleanPath(QFileInfo(dir).absoluteFilePath()) : c;
}

bool IsModelFolder(const QString& dir) { return QFileInfo::exists(dir + QStringLiteral("/config.json")); }

KnownModel Describe(KnownModel::Kind kind, const QString& dir, const QString& name, const QString& cacheDir) {
  KnownModel m;
  m.kind = kind;
  m.dir = Canonical(dir);
  m.name = name.isEmpty() ? QFileInfo(m.dir).fileName() : name;
  m.exists = QFileInfo(m.dir).isDir();
  if (!m.exists) return m;
  m.bytes = FolderBytes(m.dir);
  for (const WeightCache::File& f : WeightCache::FilesFor(m.dir.toStdString(), cacheDir.toStdString()))
    m.caches.push_back({QString::fromStdString(f.precision), QString::fromStdString(f.path), static_cast<qint64>(f.bytes)});
  return m;
}

bool Inside(const QString& dir, const QString& root) {
  const QString d = Canonical(dir), r = Canonical(root);
  return !r.isEmpty() && d.startsWith(r + QLatin1Char('/')) && d != r;
}

}  // namespace

qint64 KnownModel::cacheBytes() const {
  qint64 total = 0;
  for (const Cache& c : caches) total += c.bytes;
  return total;
}

QStringList WithRecentModel(QStringList recent, const QString& dir) {
  const QString d = Canonical(dir);
  recent.removeAll(d);
  recent.prepend(d);
  while (recent.size() > kMaxRecentModels) recent.removeLast();
  return recent;
}

QString ModelFolderDialogStart(const QStringList& recent, const QStringList& modelsRoots) {
  for (const QString& dir : recent) {
    QDir d(dir);
    if (d.exists() && d.cdUp()) return d.absolutePath();
  }
  for (const QString& root : modelsRoots)
    if (QDir(root).exists()) return QDir(root).absolutePath();
  return QDir::homePath();
}

std::vector<KnownModel> ListKnownModels(const QString& demoDir, const QStringList& modelsRoots, const QStringList& recent,
                                        const QString& cacheDir) {
  std::vector<KnownModel> models;
  QSet<QString> listed;
  if (!demoDir.isEmpty() && IsModelFolder(demoDir)) {
    models.push_back(Describe(KnownModel::Kind::kDemo, demoDir, QObject::tr("Demo model (shapes world)"), cacheDir));
    listed.insert(models.back().dir);
  }
  // <root>/<repo> where repo is "owner/name": two levels; a folder with a config.json is a model.
  QStringList candidates;
  for (const QString& modelsRoot : modelsRoots) {
    if (modelsRoot.isEmpty()) continue;
    const QDir root(modelsRoot);
    for (const QFileInfo& level1 : root.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
      if (IsModelFolder(level1.filePath())) {
        candidates << level1.filePath();
        continue;
      }
      for (const QFileInfo& level2 : QDir(level1.filePath()).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
        if (IsModelFolder(level2.filePath())) candidates << level2.filePath();
    }
  }
  for (const QString& dir : candidates) {
    KnownModel m = Describe(KnownModel::Kind::kDownloaded, dir, QString(), cacheDir);
    if (listed.contains(m.dir)) continue;
    listed.insert(m.dir);
    models.push_back(std::move(m));
  }
  for (const QString& dir : recent) {
    // A folder gone since (moved, deleted) is not offered: there is nothing to load or delete.
    if (dir.isEmpty() || listed.contains(Canonical(dir)) || !IsModelFolder(dir)) continue;
    KnownModel m = Describe(KnownModel::Kind::kOpened, dir, QString(), cacheDir);
    listed.insert(m.dir);
    models.push_back(std::move(m));
  }
  return models;
}

bool DeleteDownloadedModel(const KnownModel& model, const QStringList& modelsRoots, QString* error) {
  QString modelsRoot;  // the one it is in
  for (const QString& root : modelsRoots)
    if (!root.isEmpty() && Inside(model.dir, root)) modelsRoot = root;
  if (!model.deletable() || modelsRoot.isEmpty()) {
    *error = QObject::tr("%1 was not downloaded by Glance; it is not deleted (remove it yourself if you mean to)")
                 .arg(model.dir);
    return false;
  }
  QStringList left;
  for (const KnownModel::Cache& c : model.caches)
    if (QFileInfo::exists(c.path) && !QFile::remove(c.path)) left << c.path;
  if (!QDir(model.dir).removeRecursively()) left << model.dir;
  if (!left.isEmpty()) {
    *error = QObject::tr("Could not delete all of %1: %2 remain").arg(model.name, left.join(QStringLiteral(", ")));
    return false;
  }
  // The owner folder (<root>/Qwen) goes too once it is empty.
  const QString parent = QFileInfo(model.dir).absolutePath();
  if (Inside(parent, modelsRoot)) QDir().rmdir(parent);
  return true;
}

bool ClearWeightCaches(const KnownModel& model, QString* error) {
  QStringList left;
  // A loaded model's cache may be mapped: on Linux removing the name leaves the mapping whole.
  for (const KnownModel::Cache& c : model.caches)
    if (QFileInfo::exists(c.path) && !QFile::remove(c.path)) left << c.path;
  if (left.isEmpty()) return true;
  *error = QObject::tr("Could not delete the weight caches %1").arg(left.join(QStringLiteral(", ")));
  return false;
}

QString ByteSize(qint64 bytes) {
  // The user's decimal separator, as every other number (ui/stats_format.h): "72,1 GB" in German.
  const QLocale locale;
  const double b = static_cast<double>(bytes);
  if (b >= 1e9) return QObject::tr("%1 GB").arg(locale.toString(b / 1e9, 'f', 1));
  if (b >= 1e6) return QObject::tr("%1 MB").arg(locale.toString(b / 1e6, 'f', 0));
  if (b >= 1e3) return QObject::tr("%1 KB").arg(locale.toString(b / 1e3, 'f', 0));
  return QObject::tr("%1 bytes").arg(locale.toString(bytes));
}

}  // namespace glance::ui
