#pragma once
// Where the desktop app keeps its data (conversations, kept images, downloaded models):
// <GenericDataLocation>/<Application>, ~/.local/share/Glance on Linux.
//
// Earlier versions used QStandardPaths::AppDataLocation, which is
// <GenericDataLocation>/<Organization>/<Application>: with both names "Glance" that was
// ~/.local/share/Glance/Glance. MoveDoubledDataFolder moves what is there up one level at start
// and points the settings that named a path inside it (the model folder, recent models) at the
// new place, so nothing a user had becomes unreachable.
//
// GUI thread, at start, before anything reads the data folder.
#include <QString>
#include <QStringList>

namespace glance::ui {

class SettingsFile;

// <GenericDataLocation>/<Application> (test mode redirects it like every standard path).
QString DataFolder();
// Where earlier versions kept it: AppDataLocation ("" when it is DataFolder() itself).
QString OldDataFolder();

struct DataFolderMove {
  int moved = 0;         // entries moved (a folder counts once, with what is in it)
  QStringList problems;  // one line each: what stayed in the old folder and why
};

// Moves every entry of `from` into `to` (made if missing): renamed when `to` has no entry of that
// name, merged entry by entry when both hold a folder of that name; an entry `to` already has
// stays in `from` (a problem line names both). `from` is removed once empty. Settings values in
// `settings` (strings, and the lines of a multi-line string) that name `from` or a path inside
// it are rewritten to the same path under `to`. Nothing to do when `from` is missing or equal
// to `to`.
DataFolderMove MoveDataFolder(const QString& from, const QString& to, SettingsFile* settings);

// MoveDataFolder(OldDataFolder(), DataFolder(), settings): the app calls it once at start.
DataFolderMove MoveDoubledDataFolder(SettingsFile* settings);

// The folder view's thumbnail cache had the same doubling: its first version kept it in
// QStandardPaths::CacheLocation (~/.cache/Glance/Glance/thumbnails), later ones in Glance's cache
// folder with the weight cache (FolderThumbnails::DefaultDiskDir(), ~/.cache/glance/thumbnails).
// "" when the two are the same.
QString OldThumbnailFolder();
// MoveDataFolder(OldThumbnailFolder(), FolderThumbnails::DefaultDiskDir(), nullptr), then the
// doubled folders left empty (~/.cache/Glance/Glance, ~/.cache/Glance) removed. At start.
DataFolderMove MoveDoubledThumbnailCache();

}  // namespace glance::ui
