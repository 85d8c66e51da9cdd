// The folder view's caption run on the bundled demo model (issue 33): Caption ▸ Caption into
// sidecar files… on the engine thread, each image's state changing as its sidecar is written, a
// file that is not an image marked failed, a caption edited by hand in the view left alone by an
// overwrite run (control: "also change captions edited by hand" replaces it), the selected images
// only, append with a prefix, no run without a model, and Stop keeping what was written.
#include <QDir>
#include <QFile>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "ui/caption_folder_dialog.h"
#include "ui/folder_model.h"
#include "ui/folder_view.h"
#include "ui/main_window.h"

using glance::ui::FolderCaptionChoice;
using glance::ui::FolderImageState;
using glance::ui::FolderModel;
using glance::ui::FolderWindow;
using glance::ui::MainWindow;

namespace {

constexpr int kTimeoutMs = 120000;
const QString kScenes = QStringLiteral(GLANCE_SOURCE_RESOURCES "/demo-scenes");

QByteArray ReadText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
}

class TestFolderViewCaption : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void captionRunIntoSidecarsLeavesTheEditedOne() {
    QTemporaryDir dir, cache;
    for (int i = 0; i < 3; ++i) {
      const QString name = QStringLiteral("scene-%1.png").arg(i, 3, 10, QLatin1Char('0'));
      QVERIFY(QFile::copy(kScenes + QLatin1Char('/') + name, dir.path() + QLatin1Char('/') + name));
    }
    {
      QFile bad(dir.path() + QStringLiteral("/broken.png"));
      QVERIFY(bad.open(QIODevice::WriteOnly));
      bad.write("not a picture at all");
    }
    MainWindow window;
    FolderWindow view(window.worker(), [&] { return window.generateOptions(); },
                      [&] { return window.isModelLoaded(); }, nullptr, cache.path());
    QVERIFY(view.openFolder(dir.path(), false));
    FolderModel* m = view.model();
    QCOMPARE(m->count(FolderImageState::kNone), 4);
    // No model yet: refused with a line saying so, nothing written.
    QVERIFY(!view.startCaption(FolderCaptionChoice{}));
    QVERIFY2(view.statusText().contains(QStringLiteral("Load a model")), qPrintable(view.statusText()));

    QSignalSpy ready(&window, &MainWindow::modelReady);
    QSignalSpy failed(&window, &MainWindow::failed);
    window.generateOptions().max_new_tokens = 24;
    window.loadDefaultModel();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count() + failed.count(), 1, kTimeoutMs);
    QCOMPARE(failed.count(), 0);

    // The main window's Caption a folder dialog listens to the same worker signals: it must not
    // take the view's run for its own.
    glance::ui::CaptionFolderDialog* dialog = window.openCaptionFolder();
    QVERIFY(dialog);
    dialog->hide();
    const QString dialogStatus = dialog->statusText();

    // The user writes scene-001's caption by hand before any run.
    QVERIFY(view.select(QStringLiteral("scene-001.png")));
    view.editor()->setPlainText(QStringLiteral("my own caption"));
    view.saveNow();
    QCOMPARE(m->state(m->rowOf(QStringLiteral("scene-001.png"))), FolderImageState::kEdited);

    // Caption the ones without a caption: states change as the run goes.
    QSignalSpy done(&view, &FolderWindow::captionFinished);
    QList<int> seen;  // captioned count each time a row changes
    connect(m, &QAbstractItemModel::dataChanged, this,
            [&] { seen << m->count(FolderImageState::kCaptioned); });
    FolderCaptionChoice uncaptioned;
    uncaptioned.which = FolderCaptionChoice::Which::kUncaptioned;
    QVERIFY(view.startCaption(uncaptioned));
    QVERIFY(view.isCaptioning());
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, kTimeoutMs);
    QVERIFY(!view.isCaptioning());
    QVERIFY2(seen.contains(1), "no state changed while the run went on");
    QCOMPARE(m->state(m->rowOf(QStringLiteral("scene-000.png"))), FolderImageState::kCaptioned);
    QCOMPARE(m->state(m->rowOf(QStringLiteral("scene-002.png"))), FolderImageState::kCaptioned);
    QCOMPARE(m->state(m->rowOf(QStringLiteral("broken.png"))), FolderImageState::kFailed);
    const QByteArray first = ReadText(dir.path() + QStringLiteral("/scene-000.txt"));
    QVERIFY(!first.isEmpty() && first != "<missing>");
    QCOMPARE(ReadText(dir.path() + QStringLiteral("/scene-001.txt")), QByteArray("my own caption"));
    QVERIFY(!QFile::exists(dir.path() + QStringLiteral("/broken.txt")));

    // Overwrite the whole folder: the edited caption is left as it is.
    FolderCaptionChoice all;
    all.which = FolderCaptionChoice::Which::kAll;
    all.existing = QStringLiteral("overwrite");
    QVERIFY(view.startCaption(all));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, kTimeoutMs);
    QCOMPARE(ReadText(dir.path() + QStringLiteral("/scene-001.txt")), QByteArray("my own caption"));
    QCOMPARE(m->state(m->rowOf(QStringLiteral("scene-001.png"))), FolderImageState::kEdited);
    QVERIFY2(view.statusText().contains(QStringLiteral("1 caption edited by hand left as it was")),
             qPrintable(view.statusText()));
    // Control: when the user says so, it is replaced.
    all.replaceEdited = true;
    QVERIFY(view.startCaption(all));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 3, kTimeoutMs);
    QVERIFY2(!view.statusText().contains(QStringLiteral("left as")), qPrintable(view.statusText()));
    QVERIFY(ReadText(dir.path() + QStringLiteral("/scene-001.txt")) != "my own caption");
    QCOMPARE(m->state(m->rowOf(QStringLiteral("scene-001.png"))), FolderImageState::kCaptioned);

    // The selected image only, appended after a prefix.
    QVERIFY(view.select(QStringLiteral("scene-002.png")));
    const QByteArray before2 = ReadText(dir.path() + QStringLiteral("/scene-002.txt"));
    const QByteArray before0 = ReadText(dir.path() + QStringLiteral("/scene-000.txt"));
    FolderCaptionChoice selected;
    selected.which = FolderCaptionChoice::Which::kSelected;
    selected.existing = QStringLiteral("append");
    selected.prefix = QStringLiteral("sks");
    QVERIFY(view.startCaption(selected));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 4, kTimeoutMs);
    const QByteArray after2 = ReadText(dir.path() + QStringLiteral("/scene-002.txt"));
    QVERIFY2(after2.startsWith("sks, " + before2), after2.constData());
    QVERIFY(after2.size() > before2.size() + 5);
    QCOMPARE(ReadText(dir.path() + QStringLiteral("/scene-000.txt")), before0);
    // The editor shows what the run wrote for the image it is on.
    QCOMPARE(view.editor()->toPlainText().toUtf8(), after2);
    QCOMPARE(dialog->logText(), QString());
    QCOMPARE(dialog->statusText(), dialogStatus);
  }

  void stopKeepsWhatWasWrittenAndTheNextRunResumes() {
    QTemporaryDir dir, cache;
    constexpr int kImages = 24;
    for (int i = 0; i < kImages; ++i) {
      const QString name = QStringLiteral("scene-%1.png").arg(i + 100, 3, 10, QLatin1Char('0'));
      QVERIFY(QFile::copy(kScenes + QLatin1Char('/') + name, dir.path() + QLatin1Char('/') + name));
    }
    MainWindow window;
    QSignalSpy ready(&window, &MainWindow::modelReady);
    window.generateOptions().max_new_tokens = 24;
    window.loadDefaultModel();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, kTimeoutMs);
    FolderWindow view(window.worker(), [&] { return window.generateOptions(); },
                      [&] { return window.isModelLoaded(); }, nullptr, cache.path());
    QVERIFY(view.openFolder(dir.path(), false));
    FolderModel* m = view.model();
    QSignalSpy done(&view, &FolderWindow::captionFinished);
    // Stop as soon as the first sidecar is in.
    connect(m, &QAbstractItemModel::dataChanged, &view, [&] {
      if (m->count(FolderImageState::kCaptioned) >= 1) view.stopCaption();
    });
    QVERIFY(view.startCaption(FolderCaptionChoice{}));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, kTimeoutMs);
    QCOMPARE(done.at(0).at(2).toBool(), true);  // stopped
    const int first = m->count(FolderImageState::kCaptioned);
    qInfo("captioned before the stop took effect: %d of %d", first, kImages);
    QVERIFY(first >= 1 && first < kImages);
    QVERIFY2(view.statusText().startsWith(QStringLiteral("Stopped")), qPrintable(view.statusText()));
    // What was written stays, nothing half-written is left, and the next run does the rest.
    int sidecars = 0;
    for (const QString& name : QDir(dir.path()).entryList(QDir::Files | QDir::Hidden)) {
      QVERIFY2(name.endsWith(QStringLiteral(".png")) || name.endsWith(QStringLiteral(".txt")) ||
                   name == QStringLiteral(".glance-sidecars.jsonl"),
               qPrintable(name));
      sidecars += name.endsWith(QStringLiteral(".txt")) ? 1 : 0;
    }
    QCOMPARE(sidecars, first);
    m->disconnect(&view);
    QVERIFY(view.startCaption(FolderCaptionChoice{}));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, kTimeoutMs);
    // Only the rest. Said in full on failure: clean-clone CI runs twice saw 22 where 23 were due
    // (one image failed): the view's refresh cleaned the folder's leftover temporaries while the run
    // was renaming a sidecar's (tests/util/test_atomic_write.cpp reproduces it; fixed there).
    const QString second = QStringLiteral("second run: captioned %1, failed %2, stopped %3; status '%4'; captioned in the view %5")
                               .arg(done.at(1).at(0).toInt())
                               .arg(done.at(1).at(1).toInt())
                               .arg(done.at(1).at(2).toBool())
                               .arg(view.statusText())
                               .arg(m->count(FolderImageState::kCaptioned));
    QVERIFY2(done.at(1).at(0).toInt() == kImages - first, qPrintable(second));
    QCOMPARE(m->count(FolderImageState::kCaptioned), kImages);
  }
};

}  // namespace

QTEST_MAIN(TestFolderViewCaption)
#include "test_folder_view_caption.moc"
