// The data folder (issue 34 '~/.local/share/Glance/Glance'): DataFolder() is not doubled, and what
// earlier versions kept in the doubled folder is moved up at start with the settings that named
// it — conversations, kept images and downloaded models stay reachable; a name already taken in
// the new folder is left in the old one and named in one line.
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "ui/data_folder.h"
#include "ui/folder_thumbnails.h"
#include "ui/settings_file.h"

using glance::ui::DataFolderMove;
using glance::ui::SettingsFile;

namespace {

void Write(const QString& path, const QByteArray& bytes) {
  QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(bytes);
}

QByteArray Read(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class TestDataFolder : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void theAppsNamesNoLongerDoubleTheFolder() {
    QCoreApplication::setOrganizationName(QStringLiteral("Glance"));
    QCoreApplication::setApplicationName(QStringLiteral("Glance"));
    const QString generic = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    QCOMPARE(glance::ui::DataFolder(), generic + QStringLiteral("/Glance"));
    QCOMPARE(glance::ui::OldDataFolder(), generic + QStringLiteral("/Glance/Glance"));  // what AppDataLocation gave
  }

  // Issue 34: the thumbnail cache's first place was the doubled ~/.cache/Glance/Glance; it moves
  // to Glance's cache folder (~/.cache/glance/thumbnails, with the weight cache), and the doubled
  // folders go once empty (a folder with anything else in it stays).
  void theDoubledThumbnailCacheMovesToGlancesCacheFolder() {
    QCoreApplication::setOrganizationName(QStringLiteral("Glance"));
    QCoreApplication::setApplicationName(QStringLiteral("Glance"));
    QTemporaryDir cache;
    const QByteArray previous = qgetenv("XDG_CACHE_HOME");
    qputenv("XDG_CACHE_HOME", cache.path().toLocal8Bit());
    const QString generic = QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation);
    const QString old = glance::ui::OldThumbnailFolder();
    QCOMPARE(old, QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/thumbnails"));
    QVERIFY2(old.contains(QStringLiteral("/Glance/Glance/")), qPrintable(old));
    const QString now = glance::ui::FolderThumbnails::DefaultDiskDir();
    QCOMPARE(now, cache.path() + QStringLiteral("/glance/thumbnails"));  // with the weight cache
    QVERIFY(!now.contains(QStringLiteral("Glance/Glance")));
    Write(old + QStringLiteral("/ab/abcdef.png"), "thumb");
    Write(old + QStringLiteral("/cd.png"), "thumb 2");
    Write(now + QStringLiteral("/ee.png"), "kept");
    const DataFolderMove moved = glance::ui::MoveDoubledThumbnailCache();
    QVERIFY2(moved.problems.isEmpty(), qPrintable(moved.problems.join(QLatin1Char('\n'))));
    QCOMPARE(moved.moved, 2);
    QCOMPARE(Read(now + QStringLiteral("/ab/abcdef.png")), QByteArray("thumb"));
    QCOMPARE(Read(now + QStringLiteral("/cd.png")), QByteArray("thumb 2"));
    QCOMPARE(Read(now + QStringLiteral("/ee.png")), QByteArray("kept"));
    QVERIFY(!QFileInfo::exists(old));
    QVERIFY(!QFileInfo::exists(QFileInfo(old).path()));  // .../Glance/Glance, emptied, gone
    QVERIFY(QFileInfo::exists(generic));                   // the cache folder itself stays
    // A second start: nothing to do.
    QCOMPARE(glance::ui::MoveDoubledThumbnailCache().moved, 0);
    // Control: a doubled folder holding something else stays (only the thumbnails move).
    Write(old + QStringLiteral("/x.png"), "x");
    Write(QFileInfo(old).path() + QStringLiteral("/other"), "not ours");
    QCOMPARE(glance::ui::MoveDoubledThumbnailCache().moved, 1);
    QCOMPARE(Read(QFileInfo(old).path() + QStringLiteral("/other")), QByteArray("not ours"));
    if (previous.isNull()) qunsetenv("XDG_CACHE_HOME");
    else qputenv("XDG_CACHE_HOME", previous);
  }

  void everythingMovesUpAndTheSettingsFollow() {
    QTemporaryDir dir;
    const QString to = dir.filePath(QStringLiteral("Glance"));
    const QString from = to + QStringLiteral("/Glance");
    const QString model = QStringLiteral("/models/Qwen/Qwen3.5-0.8B");
    Write(from + QStringLiteral("/conversations/a.json"), "chat a");
    Write(from + QStringLiteral("/conversations/images/abc/cat.png"), "cat");
    Write(from + model + QStringLiteral("/config.json"), "{}");
    Write(from + QStringLiteral("/.hidden"), "h");
    auto settings = SettingsFile::Open(dir.filePath(QStringLiteral("settings.json")));
    settings->setValue(QStringLiteral("settings/model_dir"), from + model);
    settings->setValue(QStringLiteral("models/recent"), from + model + QStringLiteral("\n/elsewhere/model"));
    settings->setValue(QStringLiteral("theme"), QStringLiteral("dark"));
    settings->setValue(QStringLiteral("window/width"), 800);
    settings->setValue(QStringLiteral("lookalike"), from + QStringLiteral("-not-inside/x"));

    const DataFolderMove moved = glance::ui::MoveDataFolder(from, to, settings.get());
    QVERIFY2(moved.problems.isEmpty(), qPrintable(moved.problems.join(QLatin1Char('\n'))));
    QCOMPARE(moved.moved, 3);  // conversations, models, .hidden
    QCOMPARE(Read(to + QStringLiteral("/conversations/a.json")), QByteArray("chat a"));
    QCOMPARE(Read(to + QStringLiteral("/conversations/images/abc/cat.png")), QByteArray("cat"));
    QCOMPARE(Read(to + model + QStringLiteral("/config.json")), QByteArray("{}"));
    QCOMPARE(Read(to + QStringLiteral("/.hidden")), QByteArray("h"));
    QVERIFY(!QFileInfo::exists(from));  // the doubled folder is gone
    QCOMPARE(settings->value(QStringLiteral("settings/model_dir")).toString(), to + model);
    QCOMPARE(settings->value(QStringLiteral("models/recent")).toString(), to + model + QStringLiteral("\n/elsewhere/model"));
    QCOMPARE(settings->value(QStringLiteral("theme")).toString(), QStringLiteral("dark"));
    QCOMPARE(settings->value(QStringLiteral("window/width")).toInt(), 800);
    QCOMPARE(settings->value(QStringLiteral("lookalike")).toString(), from + QStringLiteral("-not-inside/x"));

    // A second start: nothing left to do.
    const DataFolderMove again = glance::ui::MoveDataFolder(from, to, settings.get());
    QCOMPARE(again.moved, 0);
    QVERIFY(again.problems.isEmpty());
  }

  // Both folders in use (an older version run after a newer one): the folders merge, and a file
  // of the same name in both is left in the old folder, which then stays, named in one line.
  void aTakenNameStaysInTheOldFolder() {
    QTemporaryDir dir;
    const QString to = dir.filePath(QStringLiteral("Glance"));
    const QString from = to + QStringLiteral("/Glance");
    Write(from + QStringLiteral("/conversations/a.json"), "old a");
    Write(from + QStringLiteral("/conversations/b.json"), "old b");
    Write(to + QStringLiteral("/conversations/b.json"), "new b");
    auto settings = SettingsFile::Open(dir.filePath(QStringLiteral("settings.json")));
    settings->setValue(QStringLiteral("last"), from + QStringLiteral("/conversations/b.json"));

    const DataFolderMove moved = glance::ui::MoveDataFolder(from, to, settings.get());
    QCOMPARE(moved.moved, 1);
    QCOMPARE(Read(to + QStringLiteral("/conversations/a.json")), QByteArray("old a"));
    QCOMPARE(Read(to + QStringLiteral("/conversations/b.json")), QByteArray("new b"));
    QCOMPARE(Read(from + QStringLiteral("/conversations/b.json")), QByteArray("old b"));  // kept, not lost
    QCOMPARE(moved.problems.size(), 1);
    const QString line = moved.problems.first();
    QVERIFY2(line.contains(from + QStringLiteral("/conversations/b.json")) && line.contains(QStringLiteral("already exists")) &&
                 !line.contains(QLatin1Char('\n')),
             qPrintable(line));
    // The setting names a file that did not move: it still points at it.
    QCOMPARE(settings->value(QStringLiteral("last")).toString(), from + QStringLiteral("/conversations/b.json"));
  }

  void aMissingOrSameFolderIsNothingToDo() {
    QTemporaryDir dir;
    const DataFolderMove none = glance::ui::MoveDataFolder(dir.filePath(QStringLiteral("absent")), dir.path(), nullptr);
    QCOMPARE(none.moved, 0);
    QVERIFY(none.problems.isEmpty());
    Write(dir.filePath(QStringLiteral("x")), "x");
    const DataFolderMove same = glance::ui::MoveDataFolder(dir.path(), dir.path() + QStringLiteral("/."), nullptr);
    QCOMPARE(same.moved, 0);
    QCOMPARE(Read(dir.filePath(QStringLiteral("x"))), QByteArray("x"));
  }
};

QTEST_MAIN(TestDataFolder)
#include "test_data_folder.moc"
