// The chat view without an engine: Enter sends and Shift+Enter adds a line, streamed pieces
// render as Markdown, the stats line, Stop/Regenerate/Edit/New chat and their shortcuts.
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QProgressBar>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTextBrowser>

#include "ui/chat_view.h"

using glance::ui::ChatView;

class TestChatView : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void enterSendsShiftEnterAddsLine() {
    ChatView view;
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy sent(&view, &ChatView::sendRequested);
    view.input()->setFocus();
    QTest::keyClicks(view.input(), QStringLiteral("first"));
    QTest::keyClick(view.input(), Qt::Key_Return, Qt::ShiftModifier);
    QTest::keyClicks(view.input(), QStringLiteral("second"));
    QCOMPARE(sent.count(), 0);
    QCOMPARE(view.input()->toPlainText(), QStringLiteral("first\nsecond"));
    QTest::keyClick(view.input(), Qt::Key_Return);
    QCOMPARE(sent.count(), 1);
    QCOMPARE(sent.at(0).at(0).toString(), QStringLiteral("first\nsecond"));
    QVERIFY(view.input()->toPlainText().isEmpty());
    QTest::keyClick(view.input(), Qt::Key_Return);  // empty input sends nothing
    QCOMPARE(sent.count(), 1);
  }

  void streamsMarkdownAndStats() {
    ChatView view;
    QSignalSpy sent(&view, &ChatView::sendRequested);
    view.submit(QStringLiteral("Describe this image."));
    view.setBusy(true);
    view.beginAnswer();
    for (const char* piece : {"A **red", "** square", " on grey."})
      view.appendPiece(QString::fromUtf8(piece));
    QCOMPARE(view.lastAnswer(), QStringLiteral("A **red** square on grey."));
    glance::TurnStats stats;
    stats.prompt_tokens = 57;
    stats.ttft_s = 0.125;
    stats.decode_tokens_per_s = 33.3;
    stats.backend = "cpu";
    view.finishAnswer(stats, QStringLiteral("cancelled"));
    view.setBusy(false);
    const QString md = view.transcriptMarkdown();
    QVERIFY(md.contains(QStringLiteral("prompt 57 tok")));
    QVERIFY(md.contains(QStringLiteral("TTFT 0.13 s")) || md.contains(QStringLiteral("TTFT 0.12 s")));
    QVERIFY(md.contains(QStringLiteral("stopped")));
    auto* browser = view.findChild<QTextBrowser*>();
    QTRY_VERIFY(browser->toPlainText().contains(QStringLiteral("A red square on grey.")));  // bold rendered
  }

  // An answer of only line breaks reads as such, not as a blank where an answer should be.
  void blankAnswerSaysSo() {
    ChatView view;
    view.submit(QStringLiteral("Describe this image."));
    view.setBusy(true);
    view.appendPiece(QStringLiteral("\n\n  \n"));
    QVERIFY(!view.transcriptMarkdown().contains(QStringLiteral("no visible text")));  // still streaming
    view.finishAnswer(glance::TurnStats{}, QStringLiteral("max_tokens"));
    view.setBusy(false);
    QVERIFY(view.transcriptMarkdown().contains(QStringLiteral("no visible text")));
    QCOMPARE(view.lastAnswer(), QStringLiteral("\n\n  \n"));  // the answer itself is kept as it was
  }

  void actionsFollowBusyState() {
    ChatView view;
    QSignalSpy stop(&view, &ChatView::stopRequested);
    QVERIFY(!view.stopAction()->isEnabled());
    QVERIFY(!view.regenerateAction()->isEnabled());  // nothing to regenerate yet
    view.submit(QStringLiteral("hi"));
    view.setBusy(true);
    QVERIFY(view.stopAction()->isEnabled());
    QVERIFY(!view.sendAction()->isEnabled());
    view.stopAction()->trigger();
    QCOMPARE(stop.count(), 1);
    view.setBusy(false);
    QVERIFY(view.regenerateAction()->isEnabled());
    QCOMPARE(view.stopAction()->shortcut(), QKeySequence(Qt::Key_Escape));
    QCOMPARE(view.regenerateAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_R));
    QCOMPARE(view.editAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_E));
    QCOMPARE(view.newChatAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_N));
    QCOMPARE(view.sendAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Return));
  }

  void regenerateAndEditResend() {
    ChatView view;
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(QTest::qWaitForWindowActive(&view));  // shortcuts need the active window
    QSignalSpy regen(&view, &ChatView::regenerateRequested);
    QSignalSpy edited(&view, &ChatView::editResendRequested);
    view.submit(QStringLiteral("What colour?"));
    view.appendPiece(QStringLiteral("Red."));
    view.finishAnswer({}, QStringLiteral("eos"));
    QCOMPARE(view.messageCount(), 2);

    QTest::keyClick(&view, Qt::Key_R, Qt::ControlModifier);
    QCOMPARE(regen.count(), 1);
    QCOMPARE(view.messageCount(), 1);  // the old answer is gone
    view.appendPiece(QStringLiteral("Crimson."));
    view.finishAnswer({}, QStringLiteral("eos"));

    QTest::keyClick(&view, Qt::Key_E, Qt::ControlModifier);
    QCOMPARE(view.input()->toPlainText(), QStringLiteral("What colour?"));
    view.input()->selectAll();
    QTest::keyClicks(view.input(), QStringLiteral("What shape?"));
    QTest::keyClick(view.input(), Qt::Key_Return);
    QCOMPARE(edited.count(), 1);
    QCOMPARE(edited.at(0).at(0).toString(), QStringLiteral("What shape?"));
    QCOMPARE(view.messageCount(), 1);
    QCOMPARE(view.lastUserMessage(), QStringLiteral("What shape?"));
    QVERIFY(view.lastAnswer().isEmpty());
  }

  void readOnlyDisablesActionsAndKeepsTyping() {
    ChatView view;
    view.show();
    QVERIFY(QTest::qWaitForWindowActive(&view));
    view.addExchange(QStringLiteral("Saved question"), QStringLiteral("Saved answer"), {},
                     QStringLiteral("eos"));
    QVERIFY(view.regenerateAction()->isEnabled());  // negative control: enabled when live
    QSignalSpy sent(&view, &ChatView::sendRequested);
    QSignalSpy regen(&view, &ChatView::regenerateRequested);
    view.setReadOnly(true, QStringLiteral("Read-only: the images are gone."));
    QVERIFY(!view.sendAction()->isEnabled());
    QVERIFY(!view.regenerateAction()->isEnabled());
    QVERIFY(!view.editAction()->isEnabled());
    QVERIFY(view.newChatAction()->isEnabled());
    QVERIFY(view.input()->isEnabled());
    view.input()->setFocus();
    QTest::keyClicks(view.input(), QStringLiteral("typed text"));
    QTest::keyClick(view.input(), Qt::Key_Return);
    QTest::keyClick(&view, Qt::Key_R, Qt::ControlModifier);
    QCOMPARE(sent.count(), 0);
    QCOMPARE(regen.count(), 0);
    QCOMPARE(view.input()->toPlainText(), QStringLiteral("typed text"));  // not dropped
    view.setReadOnly(false);
    QTest::keyClick(view.input(), Qt::Key_Return);
    QCOMPARE(sent.count(), 1);
    QCOMPARE(sent.at(0).at(0).toString(), QStringLiteral("typed text"));
  }

  void ctrlVInTheMessageBoxAttachesAnImage() {
    ChatView view;
    view.show();
    QVERIFY(QTest::qWaitForWindowActive(&view));
    QSignalSpy pasted(&view, &ChatView::imagePasteRequested);
    view.input()->setFocus();
    QImage image(8, 8, QImage::Format_RGB32);
    image.fill(Qt::red);
    QApplication::clipboard()->setImage(image);
    QTest::keyClick(view.input(), Qt::Key_V, Qt::ControlModifier);
    QCOMPARE(pasted.count(), 1);
    QVERIFY(view.input()->toPlainText().isEmpty());
    // Text on the clipboard is still pasted as text (negative control).
    QApplication::clipboard()->setText(QStringLiteral("plain words"));
    QTest::keyClick(view.input(), Qt::Key_V, Qt::ControlModifier);
    QCOMPARE(pasted.count(), 1);
    QCOMPARE(view.input()->toPlainText(), QStringLiteral("plain words"));
  }

  void progressShowsDuringLongSteps() {
    ChatView view;
    view.setBusy(true);
    view.setProgress(QStringLiteral("Encoding the image: layer 3 of 24"), 0.125);
    auto* bar = view.findChild<QProgressBar*>();
    QVERIFY(bar != nullptr);
    QVERIFY(!bar->isHidden());
    QCOMPARE(bar->format(), QStringLiteral("Encoding the image: layer 3 of 24"));
    QCOMPARE(bar->value(), 125);
    QVERIFY(view.stopAction()->isEnabled());  // Stop works during the step
    // The bar is wide enough for its text (it was cut at a fixed 16 em).
    view.resize(1200, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QString longText = QStringLiteral("Processing the prompt: 12000 of 16000 tokens \u00B7 4 s left");
    view.setProgress(longText, 0.75);
    QTRY_VERIFY(bar->width() >= bar->fontMetrics().horizontalAdvance(longText));
    QCOMPARE(bar->toolTip(), longText);
    view.setBusy(false);
    QVERIFY(bar->isHidden());
  }
};

QTEST_MAIN(TestChatView)
#include "test_chat_view.moc"
