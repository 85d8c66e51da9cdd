// File ▸ Manage models… (issue 34 'a model manager'): the demo, downloaded and opened models with
// their size on disk and weight caches; Load; Delete only for a downloaded model (confirmation
// naming the bytes it frees; the folder and its caches go) and never for a folder Glance did not
// download; the window remembers the folders it loaded for the list.
#include <QAction>
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QPushButton>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "core/engine/engine.h"
#include "core/model/safetensors.h"
#include "core/model/weight_cache.h"
#include "ui/known_models.h"
#include "ui/main_window.h"
#include "ui/model_download.h"
#include "ui/model_switch_menu.h"
#include "ui/model_manager_dialog.h"

using glance::ui::KnownModel;
using glance::ui::ModelManagerDialog;

namespace {

const QString kDemo = QString::fromStdString(glance::DefaultDemoModelDir());

// A copy of the demo model's folder at `dir` (a small real checkpoint).
void CopyModel(const QString& dir) {
  QVERIFY(QDir().mkpath(dir));
  for (const QString& name : QDir(kDemo).entryList(QDir::Files))
    QVERIFY(QFile::copy(kDemo + QLatin1Char('/') + name, dir + QLatin1Char('/') + name));
}

// A weight cache file for `dir` at precision `precision`, `bytes` long, where the engine would put it.
QString MakeCache(const QString& cacheDir, const QString& dir, const char* precision, int bytes) {
  const glance::TensorStore store = glance::TensorStore::OpenFolder(QDir(dir).canonicalPath().toStdString());
  const QString path = cacheDir + QLatin1Char('/') + QString::fromStdString(glance::WeightCache::Key(store, precision)) +
                       QStringLiteral(".bin");
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(QByteArray(bytes, 'x'));
  return path;
}

int RowOf(const ModelManagerDialog& d, KnownModel::Kind kind) {
  for (size_t i = 0; i < d.models().size(); ++i)
    if (d.models()[i].kind == kind) return static_cast<int>(i);
  return -1;
}

}  // namespace

class TestModelManager : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void listsSizesCachesAndDeletesOnlyDownloadedModels() {
    QTemporaryDir tmp;
    const QString root = tmp.filePath(QStringLiteral("models"));
    const QString cache = tmp.filePath(QStringLiteral("cache"));
    const QString downloaded = root + QStringLiteral("/Qwen/Tiny");
    const QString opened = tmp.filePath(QStringLiteral("mine/MyModel"));
    CopyModel(downloaded);
    CopyModel(opened);
    QVERIFY(QDir().mkpath(cache));
    const QString q8 = MakeCache(cache, downloaded, "q8", 1000);
    const QString q4 = MakeCache(cache, downloaded, "q4", 500);
    const QString openedCache = MakeCache(cache, opened, "q8", 700);
    QVERIFY(!q8.isEmpty() && !q4.isEmpty() && !openedCache.isEmpty());

    ModelManagerDialog dialog({kDemo, {root}, {opened, downloaded}, cache, opened});
    QCOMPARE(dialog.models().size(), size_t{3});  // the downloaded one listed once
    QCOMPARE(dialog.models()[0].kind, KnownModel::Kind::kDemo);
    const int d = RowOf(dialog, KnownModel::Kind::kDownloaded), o = RowOf(dialog, KnownModel::Kind::kOpened);
    QVERIFY(d > 0 && o > d);
    const KnownModel& dm = dialog.models()[static_cast<size_t>(d)];
    QCOMPARE(dm.name, QStringLiteral("Tiny"));
    qint64 folderBytes = 0;
    for (const QFileInfo& f : QDir(downloaded).entryInfoList(QDir::Files)) folderBytes += f.size();
    QCOMPARE(dm.bytes, folderBytes);
    QCOMPARE(dm.caches.size(), size_t{2});
    QCOMPARE(dm.cacheBytes(), qint64{1500});
    QCOMPARE(dialog.table()->item(d, 2)->text(), QStringLiteral("q8 1 KB, q4 500 bytes"));
    QVERIFY(dialog.table()->item(o, 0)->text().endsWith(QStringLiteral("(loaded)")));
    QVERIFY(dialog.table()->item(o, 3)->text().contains(QStringLiteral("opened")));

    // Load; on the loaded model the button says it loads it again.
    dialog.selectRow(o);
    QCOMPARE(dialog.loadButton()->text(), QStringLiteral("Re&load"));
    QSignalSpy load(&dialog, &ModelManagerDialog::loadRequested);
    dialog.selectRow(0);
    QCOMPARE(dialog.loadButton()->text(), QStringLiteral("&Load"));
    dialog.loadSelected();
    QCOMPARE(load.count(), 1);
    QCOMPARE(load.last().at(1).toBool(), true);  // the demo

    // An opened folder and the demo are never deleted, whatever is answered.
    QStringList asked;
    dialog.setConfirm([&](const QString& q) {
      asked << q;
      return true;
    });
    dialog.selectRow(o);
    QVERIFY(!dialog.deleteSelected());
    dialog.selectRow(0);
    QVERIFY(!dialog.deleteSelected());
    QVERIFY(asked.isEmpty());
    KnownModel forged = dialog.models()[static_cast<size_t>(o)];
    forged.kind = KnownModel::Kind::kDownloaded;  // outside the models folder all the same
    QString error;
    QVERIFY(!glance::ui::DeleteDownloadedModel(forged, {root}, &error));
    QVERIFY2(error.contains(QStringLiteral("not downloaded by Glance")), qPrintable(error));
    QVERIFY(QFileInfo::exists(opened + QStringLiteral("/model.safetensors")));
    QVERIFY(QFileInfo::exists(openedCache));

    // The downloaded one: asked with the bytes it frees; the folder, its caches and Qwen/ go.
    dialog.setConfirm([&](const QString& q) {
      asked << q;
      return false;  // cancelled first
    });
    dialog.selectRow(d);
    QVERIFY(!dialog.deleteSelected());
    QVERIFY(QFileInfo::exists(downloaded));
    dialog.setConfirm([&](const QString& q) {
      asked << q;
      return true;
    });
    dialog.selectRow(d);
    QVERIFY2(dialog.deleteSelected(), qPrintable(dialog.problem()));
    QCOMPARE(asked.size(), 2);
    QVERIFY2(asked.last().contains(glance::ui::ByteSize(folderBytes + 1500)) &&
                 asked.last().contains(QDir::toNativeSeparators(QDir(downloaded).canonicalPath())) &&
                 asked.last().contains(QStringLiteral("weight caches")),
             qPrintable(asked.last()));
    QVERIFY(!QFileInfo::exists(downloaded));
    QVERIFY(!QFileInfo::exists(root + QStringLiteral("/Qwen")));
    QVERIFY(!QFileInfo::exists(q8) && !QFileInfo::exists(q4));
    QVERIFY(QFileInfo::exists(openedCache));  // another model's cache stays
    QCOMPARE(dialog.models().size(), size_t{2});

    // An opened folder's weight caches can be cleared (the folder stays); none left: nothing to do.
    const int o2 = RowOf(dialog, KnownModel::Kind::kOpened);
    dialog.selectRow(o2);
    auto* clear = dialog.findChild<QPushButton*>(QStringLiteral("clearCaches"));
    QVERIFY(clear && clear->isEnabled());
    dialog.setConfirm([&](const QString& q) {
      asked << q;
      return false;
    });
    QVERIFY(!dialog.clearSelectedCaches());
    QVERIFY(QFileInfo::exists(openedCache));
    dialog.setConfirm([&](const QString& q) {
      asked << q;
      return true;
    });
    dialog.selectRow(o2);
    QVERIFY2(dialog.clearSelectedCaches(), qPrintable(dialog.problem()));
    QVERIFY2(asked.last().contains(QStringLiteral("q8")) && asked.last().contains(glance::ui::ByteSize(700)) &&
                 asked.last().contains(QStringLiteral("The model stays")),
             qPrintable(asked.last()));
    QVERIFY(!QFileInfo::exists(openedCache));
    QVERIFY(QFileInfo::exists(opened + QStringLiteral("/model.safetensors")));
    dialog.selectRow(RowOf(dialog, KnownModel::Kind::kOpened));
    QCOMPARE(dialog.table()->item(RowOf(dialog, KnownModel::Kind::kOpened), 2)->text(), QStringLiteral("none"));
    QVERIFY(!clear->isEnabled());
    QVERIFY(!dialog.clearSelectedCaches());
  }

  // Sizes in the user's number format (the German free space read "72.1 GB" beside "1,23 s").
  void sizesUseTheUsersDecimalSeparator() {
    const QLocale before;
    QLocale::setDefault(QLocale(QLocale::English));
    QCOMPARE(glance::ui::ByteSize(72'100'000'000), QStringLiteral("72.1 GB"));
    QCOMPARE(glance::ui::ByteSize(3'400'000), QStringLiteral("3 MB"));
    QCOMPARE(glance::ui::ByteSize(1234), QStringLiteral("1 KB"));
    QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
    QCOMPARE(glance::ui::ByteSize(72'100'000'000), QStringLiteral("72,1 GB"));
    QCOMPARE(glance::ui::ByteSize(1'234'000'000'000), QStringLiteral("1.234,0 GB"));
    QLocale::setDefault(before);
  }

  void theLoadedModelIsNotDeleted() {
    QTemporaryDir tmp;
    const QString root = tmp.filePath(QStringLiteral("models"));
    const QString downloaded = root + QStringLiteral("/Qwen/Tiny");
    CopyModel(downloaded);
    ModelManagerDialog dialog({kDemo, {root}, {}, tmp.filePath(QStringLiteral("cache")), downloaded});
    dialog.setConfirm([](const QString&) { return true; });
    dialog.selectRow(RowOf(dialog, KnownModel::Kind::kDownloaded));
    QVERIFY(!dialog.deleteSelected());
    QVERIFY2(dialog.problem().contains(QStringLiteral("is loaded")), qPrintable(dialog.problem()));
    QVERIFY(QFileInfo::exists(downloaded + QStringLiteral("/config.json")));
  }

  // A folder chosen with the download dialog's Folder…: kept for the next start, and a model
  // downloaded there is "downloaded" (deletable), not "opened"; the default folder is still read.
  void aChosenDownloadFolderIsKeptAndItsModelsCountAsDownloaded() {
    QTemporaryDir tmp;
    const QString elsewhere = tmp.filePath(QStringLiteral("big-disk/models"));
    const QString model = elsewhere + QStringLiteral("/Qwen/Tiny");
    CopyModel(model);
    const QString fallback = glance::ui::ModelDownloader::DefaultModelsRoot();
    const QString older = fallback + QStringLiteral("/Qwen/Older");
    CopyModel(older);
    {
      glance::ui::MainWindow window;
      QCOMPARE(window.downloadFolders(), QStringList({fallback}));
      window.rememberDownloadFolder(elsewhere);
    }
    glance::ui::MainWindow restarted;
    const ModelManagerDialog::Sources sources = restarted.modelSources();
    QCOMPARE(sources.modelsRoots, QStringList({elsewhere, fallback}));
    ModelManagerDialog dialog(sources);
    dialog.setConfirm([](const QString&) { return true; });
    int found = 0;
    for (size_t i = 0; i < dialog.models().size(); ++i) {
      const KnownModel& m = dialog.models()[i];
      if (m.dir != QDir(model).canonicalPath() && m.dir != QDir(older).canonicalPath()) continue;
      ++found;
      QVERIFY2(m.kind == KnownModel::Kind::kDownloaded, qPrintable(m.dir));
    }
    QCOMPARE(found, 2);
    QVERIFY(dialog.findChild<QLabel*>(QStringLiteral("modelsFolder"))->text().contains(QDir::toNativeSeparators(elsewhere)));
    for (size_t i = 0; i < dialog.models().size(); ++i)
      if (dialog.models()[i].dir == QDir(model).canonicalPath()) dialog.selectRow(static_cast<int>(i));
    QVERIFY2(dialog.deleteSelected(), qPrintable(dialog.problem()));
    QVERIFY(!QFileInfo::exists(model));
    QVERIFY(QFileInfo::exists(older + QStringLiteral("/config.json")));
  }

  // File ▸ Open model folder… starts beside the last model opened, else in the models folder,
  // else at home: never in the working directory (issue 34: it did whenever the demo was loaded).
  void openModelFolderStartsBesideTheLastModel() {
    QTemporaryDir tmp;
    const QString parent = tmp.filePath(QStringLiteral("models"));
    const QString mine = parent + QStringLiteral("/MyModel");
    QVERIFY(QDir().mkpath(mine));
    const QString gone = tmp.filePath(QStringLiteral("elsewhere/Gone"));
    const QString root = tmp.filePath(QStringLiteral("downloads"));
    QVERIFY(QDir().mkpath(root));
    using glance::ui::ModelFolderDialogStart;
    QCOMPARE(ModelFolderDialogStart({gone, mine}, {root}), QDir(parent).absolutePath());
    QCOMPARE(ModelFolderDialogStart({gone}, {tmp.filePath(QStringLiteral("none")), root}), QDir(root).absolutePath());
    QCOMPARE(ModelFolderDialogStart({}, {tmp.filePath(QStringLiteral("none"))}), QDir::homePath());
  }

  // The window: File ▸ Manage models…, and a folder it loaded is in the list afterwards.
  void windowRemembersOpenedFolders() {
    QTemporaryDir tmp;
    const QString mine = tmp.filePath(QStringLiteral("MyModel"));
    CopyModel(mine);
    glance::ui::MainWindow window;
    bool found = false;
    for (QAction* menu : window.menuBar()->actions())
      if (menu->menu())
        for (QAction* a : menu->menu()->actions()) found = found || a->text() == QStringLiteral("Mana&ge models\u2026");
    QVERIFY(found);
    QSignalSpy ready(&window, &glance::ui::MainWindow::modelReady);
    window.loadModel(mine);
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 120000);
    const ModelManagerDialog::Sources sources = window.modelSources();
    QCOMPARE(sources.recent.value(0), QDir(mine).canonicalPath());
    QCOMPARE(QDir(sources.loadedDir).canonicalPath(), QDir(mine).canonicalPath());
    ModelManagerDialog dialog(sources);
    QCOMPARE(RowOf(dialog, KnownModel::Kind::kOpened) >= 0, true);

    // The status bar's switcher lists the same models, the loaded one checked, and loads another.
    auto* switcher = window.statusBar()->findChild<glance::ui::ModelSwitchButton*>(QStringLiteral("modelSwitch"));
    QVERIFY(switcher && switcher->isVisibleTo(&window));
    switcher->refresh();
    QStringList names, checked;
    QAction* demo = nullptr;
    for (QAction* a : switcher->modelMenu()->actions()) {
      names << a->text();
      if (a->isChecked()) checked << a->text();
      if (a->text().startsWith(QStringLiteral("Demo model"))) demo = a;
    }
    QVERIFY2(names.contains(QStringLiteral("MyModel")) && names.contains(QStringLiteral("Manage models\u2026")),
             qPrintable(names.join(QLatin1Char('|'))));
    QCOMPARE(checked, QStringList({QStringLiteral("MyModel")}));
    QSignalSpy asked(switcher, &glance::ui::ModelSwitchButton::loadRequested);
    for (QAction* a : switcher->modelMenu()->actions())
      if (a->text() == QStringLiteral("MyModel")) a->trigger();  // the loaded one: nothing reloads
    QCOMPARE(asked.count(), 0);
    QVERIFY(demo);
    demo->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 2, 120000);
    QVERIFY(window.modelInfo().is_demo);
    switcher->refresh();
    for (QAction* a : switcher->modelMenu()->actions())
      if (a->isChecked()) QVERIFY2(a->text().startsWith(QStringLiteral("Demo model")), qPrintable(a->text()));
  }
};

QTEST_MAIN(TestModelManager)
#include "test_model_manager.moc"
