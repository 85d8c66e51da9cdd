#include "ui/data_folder.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include "ui/folder_thumbnails.h"
#include "ui/settings_file.h"

namespace glance::ui {
namespace {

QString Clean(const QString& path) { return QDir::cleanPath(QFileInfo(path).absoluteFilePath()); }

// Moves `from`'s entries into `to`; see MoveDataFolder.
void MoveEntries(const QString& from, const QString& to, const QString& skip, DataFolderMove* result) {
  if (!QDir().mkpath(to)) {
    result->problems << QCoreApplication::translate("DataFolder", "Could not create %1; %2 was left where it is.")
                            .arg(to, from);
    return;
  }
  const QDir source(from);
  const QFileInfoList entries =
      source.entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
  for (const QFileInfo& entry : entries) {
    const QString target = to + QLatin1Char('/') + entry.fileName();
    if (Clean(target) == skip) continue;  // an entry named like the old folder stays in it
    const QFileInfo there(target);
    if (!there.exists() && !there.isSymLink()) {
      // Same file system (the new folder is the old one's parent): a rename, however large.
      if (QDir().rename(entry.absoluteFilePath(), target))
        ++result->moved;
      else
        result->problems << QCoreApplication::translate("DataFolder", "Could not move %1 to %2.")
                                .arg(entry.absoluteFilePath(), target);
    } else if (entry.isDir() && !entry.isSymLink() && there.isDir() && !there.isSymLink()) {
      MoveEntries(entry.absoluteFilePath(), target, skip, result);
      QDir().rmdir(entry.absoluteFilePath());  // only when emptied
    } else {
      result->problems << QCoreApplication::translate("DataFolder", "%1 was left where it is: %2 already exists.")
                              .arg(entry.absoluteFilePath(), target);
    }
  }
}

// `value` with a leading `from` (the folder or a path inside it) replaced by `to`, when what it
// named has moved: gone from the old place and there in the new one.
QString Repointed(const QString& value, const QString& from, const QString& to, bool* changed) {
  if (value != from && !value.startsWith(from + QLatin1Char('/'))) return value;
  const QString moved = to + value.mid(from.size());
  if (QFileInfo::exists(value) || !QFileInfo::exists(moved)) return value;
  *changed = true;
  return moved;
}

void RepointSettings(SettingsFile* settings, const QString& from, const QString& to) {
  if (!settings) return;
  for (const QString& key : settings->allKeys()) {
    const QVariant value = settings->value(key);
    if (value.typeId() != QMetaType::QString) continue;
    bool changed = false;
    // Recent models are kept one path a line.
    QStringList lines = value.toString().split(QLatin1Char('\n'));
    for (QString& line : lines) line = Repointed(line, from, to, &changed);
    if (changed) settings->setValue(key, lines.join(QLatin1Char('\n')));
  }
}

}  // namespace

QString DataFolder() {
  return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QLatin1Char('/') +
         QCoreApplication::applicationName();
}

QString OldDataFolder() {
  const QString old = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
  return Clean(old) == Clean(DataFolder()) ? QString() : old;
}

DataFolderMove MoveDataFolder(const QString& from, const QString& to, SettingsFile* settings) {
  DataFolderMove result;
  if (from.isEmpty() || to.isEmpty() || !QFileInfo(from).isDir() || Clean(from) == Clean(to)) return result;
  const QString source = Clean(from), target = Clean(to);
  MoveEntries(source, target, source, &result);
  QDir().rmdir(source);  // only when everything went
  if (result.moved > 0) RepointSettings(settings, source, target);
  return result;
}

DataFolderMove MoveDoubledDataFolder(SettingsFile* settings) {
  return MoveDataFolder(OldDataFolder(), DataFolder(), settings);
}

QString OldThumbnailFolder() {
  const QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
  if (cache.isEmpty()) return {};
  const QString old = cache + QStringLiteral("/thumbnails");
  return Clean(old) == Clean(FolderThumbnails::DefaultDiskDir()) ? QString() : old;
}

DataFolderMove MoveDoubledThumbnailCache() {
  const QString old = OldThumbnailFolder();
  DataFolderMove result = MoveDataFolder(old, FolderThumbnails::DefaultDiskDir(), nullptr);
  if (!old.isEmpty() && !QFileInfo::exists(old)) {
    // The doubled <cache>/Glance/Glance and <cache>/Glance, when nothing else is in them.
    QDir parent = QFileInfo(Clean(old)).dir();
    const QString generic = Clean(QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation));
    while (Clean(parent.path()) != generic && parent.path().startsWith(generic + QLatin1Char('/')) &&
           QDir().rmdir(parent.path()))
      parent = QFileInfo(parent.path()).dir();
  }
  return result;
}

}  // namespace glance::ui
