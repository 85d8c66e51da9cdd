// The whole window with the bundled demo model (needs the engine: Engine::Load, Session):
// dropping the demo image streams a caption, Stop halts a generation within a token, and the
// window closes cleanly while generating.
#include <QDropEvent>
#include <QMimeData>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QUrl>

#include "ui/attention_panel.h"
#include "ui/chat_view.h"
#include "ui/engine_worker.h"
#include "ui/image_drop_area.h"
#include "ui/main_window.h"
#include "ui/timing_panel.h"

using glance::TurnResult;
using glance::ui::MainWindow;

namespace {

const QString kDemoImage = QStringLiteral(GLANCE_SOURCE_RESOURCES "/demo-image.png");
constexpr int kTimeoutMs = 120000;

void DropFile(QWidget* target, const QString& path) {
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(path)});
  QDragEnterEvent enter(QPoint(5, 5), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(target, &enter);
  QVERIFY(enter.isAccepted());
  QDropEvent drop(QPointF(5, 5), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(target, &drop);
  QVERIFY(drop.isAccepted());
}

TurnResult LastResult(const QSignalSpy& spy) {
  return qvariant_cast<TurnResult>(spy.last().at(0));
}

}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void dropStreamsACaption() {
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy ready(&window, &MainWindow::modelReady);
    QSignalSpy failed(&window, &MainWindow::failed);
    QSignalSpy done(&window, &MainWindow::turnCompleted);
    window.generateOptions().max_new_tokens = 12;
    window.loadDefaultModel();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count() + failed.count(), 1, kTimeoutMs);
    QCOMPARE(failed.count(), 0);

    DropFile(window.dropArea(), kDemoImage);
    QTRY_COMPARE_WITH_TIMEOUT(done.count() + failed.count(), 1, kTimeoutMs);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(0).toString()));
    const TurnResult result = LastResult(done);
    QVERIFY(result.stats.generated_tokens > 0);
    QCOMPARE(window.chat()->lastUserMessage(), QStringLiteral("Describe this image."));
    // The streamed text the chat shows is the engine's answer.
    QCOMPARE(window.chat()->lastAnswer(), QString::fromStdString(result.text));
    QVERIFY(window.dropArea()->infoText().contains(QStringLiteral("tokens")));
    QCOMPARE(window.timing()->turnCount(), 1);
    QVERIFY(window.timing()->chartStages().contains(QStringLiteral("decode")));
    QVERIFY(window.attention()->wordCount() > 0);  // the demo image was captured
  }

  void stopHaltsGeneration() {
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));  // shortcuts need the active window
    QSignalSpy ready(&window, &MainWindow::modelReady);
    QSignalSpy done(&window, &MainWindow::turnCompleted);
    window.setCaptionOnDrop(false);
    window.generateOptions().max_new_tokens = 4000;  // far more than the test waits for
    glance::SamplingParams sampled;
    sampled.greedy = false;  // sampled: unlikely to stop on EOS early
    window.generateOptions().sampling = sampled;
    window.generateOptions().seed = 7;
    window.loadDefaultModel();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, kTimeoutMs);

    QSignalSpy pieces(window.worker(), &glance::ui::EngineWorker::textPiece);
    window.chat()->submit(QStringLiteral("Tell me a long story."));
    QTRY_VERIFY_WITH_TIMEOUT(pieces.count() >= 2 || done.count() > 0, kTimeoutMs);
    if (done.count() > 0 && LastResult(done).stop_reason == "eos")
      QSKIP("the random demo model ended its answer before Stop could be tested");
    QTest::keyClick(&window, Qt::Key_Escape);  // the Stop shortcut
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, kTimeoutMs);
    const TurnResult result = LastResult(done);
    QCOMPARE(result.stop_reason, std::string("cancelled"));
    QVERIFY(result.stats.generated_tokens < 4000);
    QVERIFY(!window.chat()->isBusy());
  }

  void closingWhileGeneratingExitsCleanly() {
    auto window = std::make_unique<MainWindow>();
    QSignalSpy ready(window.get(), &MainWindow::modelReady);
    window->generateOptions().max_new_tokens = 4000;
    window->loadDefaultModel();
    QSignalSpy failed(window.get(), &MainWindow::failed);
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, kTimeoutMs);
    // A fresh chat: the newest saved one (the earlier tests') reopens at start, and this test is
    // about closing, not continuing (the random model's sampled story may hold special tokens).
    window->newChat();
    QSignalSpy pieces(window->worker(), &glance::ui::EngineWorker::textPiece);
    window->chat()->submit(QStringLiteral("Go on."));
    QTRY_VERIFY_WITH_TIMEOUT(pieces.count() >= 1 || failed.count() > 0, kTimeoutMs);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(0).toString()));
    QElapsedTimer timer;
    timer.start();
    window.reset();  // stop + quit + wait
    QVERIFY2(timer.elapsed() < 5000, "closing waited for the whole generation");
  }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
