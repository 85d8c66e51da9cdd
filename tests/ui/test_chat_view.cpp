// The chat view without an engine: Enter sends and Shift+Enter adds a line, streamed pieces
// render as Markdown, the stats line, Stop/Regenerate/Edit/New chat and their shortcuts; the
// user's text shown as typed and answers as Markdown without HTML or loads (issue 34).
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextTable>
#include <QProgressBar>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTextBrowser>

#include "ui/chat_view.h"
#include "ui/safe_text_browser.h"

using glance::ui::ChatView;

namespace {

// Every link in the document, in order.
QStringList Anchors(const QTextDocument* doc) {
  QStringList hrefs;
  for (QTextBlock block = doc->begin(); block.isValid(); block = block.next())
    for (auto it = block.begin(); !it.atEnd(); ++it)
      if (it.fragment().charFormat().isAnchor()) hrefs << it.fragment().charFormat().anchorHref();
  return hrefs;
}

int ImagesIn(const QTextDocument* doc) {
  int n = 0;
  for (QTextBlock block = doc->begin(); block.isValid(); block = block.next())
    for (auto it = block.begin(); !it.atEnd(); ++it)
      if (it.fragment().charFormat().isImageFormat()) ++n;
  return n;
}

bool HasTable(QTextFrame* frame) {
  for (QTextFrame* child : frame->childFrames())
    if (qobject_cast<QTextTable*>(child) != nullptr || HasTable(child)) return true;
  return false;
}

void Answer(ChatView& view, const QString& question, const QString& answer) {
  view.submit(question);
  view.appendPiece(answer);
  view.finishAnswer({}, QStringLiteral("eos"));
}

}  // namespace

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
    QVERIFY2(md.contains(QStringLiteral("TTFT 125 ms")), qPrintable(md));  // ui/stats_format.h
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

  // "What does the <div> tag do?" showed as "What does the" and blanked every later message
  // (the whole transcript went through setMarkdown). The user's text is shown as typed.
  void userTextIsShownAsTyped() {
    ChatView view;
    const QString first = QStringLiteral("What does the <div> tag do?");
    const QString second = QStringLiteral("**bold** <b>b</b> <img src=\"x.png\"> $x^2$ &amp; `c` # h\n  two  spaces");
    Answer(view, first, QStringLiteral("It starts a block."));
    Answer(view, second, QStringLiteral("Second **answer**."));
    const QString shown = view.transcript()->toPlainText();
    QVERIFY2(shown.contains(first), qPrintable(shown));
    QVERIFY2(shown.contains(QStringLiteral("It starts a block.")), qPrintable(shown));
    QVERIFY2(shown.contains(second), qPrintable(shown));
    QVERIFY2(shown.contains(QStringLiteral("Second answer.")), qPrintable(shown));  // answers: Markdown
    QCOMPARE(ImagesIn(view.transcript()->document()), 0);
  }

  // Answers are Markdown (tables, code blocks in monospace with Copy code, a Copy link) with raw
  // HTML shown as text; images and links load nothing.
  void answersAreMarkdownWithoutHtmlOrLoads() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("secret.png"));
    QImage pixels(4, 4, QImage::Format_RGB32);
    pixels.fill(Qt::red);
    QVERIFY(pixels.save(path));
    const QString url = QUrl::fromLocalFile(path).toString();
    const QString answer = QStringLiteral(
        "<b>raw</b> <img src=\"%1\"> ![local](%1) ![rel](secret.png)\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "```cpp\nint x = 1;\nint y = 2;\n```\n\n[doc](notes.md) [web](https://example.com)\n").arg(url);
    ChatView view;
    view.resize(800, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.transcript()->document()->setBaseUrl(QUrl::fromLocalFile(dir.path() + QLatin1Char('/')));
    Answer(view, QStringLiteral("Show me"), answer);
    auto* browser = qobject_cast<glance::ui::SafeTextBrowser*>(view.transcript());
    QVERIFY(browser != nullptr);
    const QTextDocument* doc = browser->document();
    const QString shown = doc->toPlainText();
    QVERIFY2(shown.contains(QStringLiteral("<b>raw</b>")), qPrintable(shown));
    QVERIFY2(shown.contains(QStringLiteral("<img src=")), qPrintable(shown));
    QVERIFY2(shown.contains(QStringLiteral("[image: local]")), qPrintable(shown));
    QVERIFY2(shown.contains(QStringLiteral("[image: rel]")), qPrintable(shown));
    QCOMPARE(ImagesIn(doc), 0);
    (void)browser->grab();  // paint: an image in the document would be asked for now
    QCOMPARE(browser->refusedLoads(), 0);
    // What a plain QTextBrowser would have loaded, refused (control: the file is there).
    QVERIFY(QTextBrowser().loadResource(QTextDocument::ImageResource, QUrl(url)).isValid());
    QVERIFY(!browser->loadResource(QTextDocument::ImageResource, QUrl(url)).isValid());
    QVERIFY(!browser->openLinks());
    QVERIFY(!browser->openExternalLinks());
    QVERIFY(HasTable(doc->rootFrame()));

    // The code block: monospace, and Copy code copies exactly its lines.
    const QTextBlock code = doc->find(QStringLiteral("int x = 1;")).block();
    QVERIFY(code.isValid());
    QCOMPARE(code.charFormat().font().family(),
             QFontDatabase::systemFont(QFontDatabase::FixedFont).family());
    // Coloured: the keyword "int" and the number "1" apart from the plain name "x".
    auto colourAt = [&](int offset) {  // of the character at `offset` in the block
      QTextCursor c(code);
      c.setPosition(code.position() + offset + 1);
      return c.charFormat().foreground().color();
    };
    QVERIFY(colourAt(0) != colourAt(4));                                      // "i"nt, "x"
    QVERIFY(colourAt(8) != colourAt(4) && colourAt(8) != colourAt(0));        // "1"
    QCOMPARE(colourAt(1), colourAt(0));                                       // the whole keyword
    const QStringList links = Anchors(doc);
    QStringList copyCode, copyAnswer;
    for (const QString& href : links) {
      if (href.startsWith(QStringLiteral("glance:copy-code"))) copyCode << href;
      if (href.startsWith(QStringLiteral("glance:copy-answer"))) copyAnswer << href;
    }
    QCOMPARE(copyCode.size(), 1);
    QCOMPARE(copyAnswer.size(), 1);
    view.activateLink(QUrl(copyCode.front()));
    QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("int x = 1;\nint y = 2;"));
    view.activateLink(QUrl(copyAnswer.front()));
    QCOMPARE(QApplication::clipboard()->text(), answer);
    // A link to a file is not followed: the transcript stays as it was.
    QVERIFY(links.contains(QStringLiteral("notes.md")));
    view.activateLink(QUrl(QStringLiteral("notes.md")));
    QVERIFY(browser->source().isEmpty());
    QCOMPARE(doc->toPlainText(), shown);
  }

  // A streamed answer redraws only itself: earlier messages keep their place and text.
  void streamingKeepsEarlierMessages() {
    ChatView view;
    Answer(view, QStringLiteral("one"), QStringLiteral("First."));
    view.submit(QStringLiteral("two <i>"));
    view.beginAnswer();
    for (const char* piece : {"Sec", "ond ", "`x`", " done."}) {
      view.appendPiece(QString::fromUtf8(piece));
      QTest::qWait(40);  // let the coalescing timer render
    }
    view.finishAnswer({}, QStringLiteral("eos"));
    const QString shown = view.transcript()->toPlainText();
    QVERIFY2(shown.contains(QStringLiteral("First.")), qPrintable(shown));
    QVERIFY2(shown.contains(QStringLiteral("two <i>")), qPrintable(shown));
    QVERIFY2(shown.contains(QStringLiteral("Second x done.")), qPrintable(shown));
    QCOMPARE(shown.count(QStringLiteral("Second")), 1);
    QCOMPARE(shown.count(QStringLiteral("First.")), 1);
    // Regenerate drops the last answer from the screen too.
    view.regenerateAction()->trigger();
    QTRY_VERIFY(!view.transcript()->toPlainText().contains(QStringLiteral("Second")));
    QVERIFY(view.transcript()->toPlainText().contains(QStringLiteral("two <i>")));
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

  // ◀ k/n ▶ under the last answer only, Alt+Left/Right and the links ask for an alternative;
  // Edit on an earlier message asks the window (nothing dropped here); Fork names the turn.
  void alternativesEditAndForkLinks() {
    ChatView view;
    view.show();
    QVERIFY(QTest::qWaitForWindowActive(&view));  // shortcuts need the active window
    QSignalSpy alt(&view, &ChatView::alternativeRequested);
    QSignalSpy editEarlier(&view, &ChatView::editMessageRequested);
    QSignalSpy editLast(&view, &ChatView::editResendRequested);
    QSignalSpy fork(&view, &ChatView::forkRequested);
    Answer(view, QStringLiteral("One?"), QStringLiteral("First."));
    const auto hasLink = [&](const QString& href) {
      return Anchors(view.transcript()->document()).contains(href);
    };
    QVERIFY(hasLink(QStringLiteral("glance:edit/0")));
    QVERIFY(hasLink(QStringLiteral("glance:fork/1")));
    QVERIFY(hasLink(QStringLiteral("glance:maps/1")));   // the answer's maps (issue 34)
    QVERIFY(!hasLink(QStringLiteral("glance:maps/0")));  // not under a question
    QSignalSpy maps(&view, &ChatView::answerMapsRequested);
    Q_EMIT view.transcript()->anchorClicked(QUrl(QStringLiteral("glance:maps/1")));
    QCOMPARE(maps.count(), 1);
    QCOMPARE(maps.last().at(0).toInt(), 0);
    QVERIFY(!hasLink(QStringLiteral("glance:alt/1/0")));  // one answer: no arrows
    QVERIFY(!view.previousAnswerAction()->isEnabled());
    view.setLastAnswerAlternatives(2, 3);  // Regenerate twice
    QVERIFY(hasLink(QStringLiteral("glance:alt/1/1")));   // ◀
    QVERIFY(!hasLink(QStringLiteral("glance:alt/1/3")));  // no ▶ past the last
    QVERIFY(view.transcript()->toPlainText().contains(QStringLiteral(" 3/3 ")));
    QVERIFY(view.previousAnswerAction()->isEnabled());
    QVERIFY(!view.nextAnswerAction()->isEnabled());
    QTest::keyClick(&view, Qt::Key_Left, Qt::AltModifier);
    QCOMPARE(alt.count(), 1);
    QCOMPARE(alt.last().at(0).toInt(), 1);
    QTest::keyClick(&view, Qt::Key_Right, Qt::AltModifier);  // disabled: nothing after 3
    QCOMPARE(alt.count(), 1);
    view.showLastAnswer(QStringLiteral("Second."), {}, QStringLiteral("eos"), 1, 3);
    QCOMPARE(view.lastAnswer(), QStringLiteral("Second."));
    QCOMPARE(view.lastAnswerAlternative(), 1);
    QVERIFY(view.transcript()->toPlainText().contains(QStringLiteral(" 2/3 ")));
    QVERIFY(hasLink(QStringLiteral("glance:alt/1/0")) && hasLink(QStringLiteral("glance:alt/1/2")));
    view.activateLink(QUrl(QStringLiteral("glance:alt/1/2")));
    QCOMPARE(alt.last().at(0).toInt(), 2);
    view.setBusy(true);  // not while answering
    view.activateLink(QUrl(QStringLiteral("glance:alt/1/0")));
    QTest::keyClick(&view, Qt::Key_Left, Qt::AltModifier);
    QCOMPARE(alt.count(), 2);
    view.setBusy(false);

    // A second exchange: the first answer keeps "answer 2 of 3", without arrows.
    Answer(view, QStringLiteral("Two?"), QStringLiteral("Yes."));
    QVERIFY(view.transcript()->toPlainText().contains(QStringLiteral("answer 2 of 3")));
    QVERIFY(!hasLink(QStringLiteral("glance:alt/1/0")));
    view.activateLink(QUrl(QStringLiteral("glance:alt/1/0")));  // an old link does nothing
    QCOMPARE(alt.count(), 2);
    QCOMPARE(view.lastAnswerAlternatives(), 0);

    // Edit message 1 of 2: the window is asked; the transcript stays until it decides.
    view.activateLink(QUrl(QStringLiteral("glance:edit/0")));
    QCOMPARE(view.editingTurn(), 0);
    QCOMPARE(view.input()->toPlainText(), QStringLiteral("One?"));
    view.input()->setPlainText(QStringLiteral("One, edited?"));
    QTest::keyClick(view.input(), Qt::Key_Return);
    QCOMPARE(editEarlier.count(), 1);
    QCOMPARE(editEarlier.at(0).at(0).toInt(), 0);
    QCOMPARE(editEarlier.at(0).at(1).toString(), QStringLiteral("One, edited?"));
    QCOMPARE(editLast.count(), 0);
    QCOMPARE(view.messageCount(), 4);
    QCOMPARE(view.editingTurn(), -1);
    // Edit on the last message is Edit last: resent here.
    view.activateLink(QUrl(QStringLiteral("glance:edit/2")));
    QCOMPARE(view.editingTurn(), 1);
    view.input()->setPlainText(QStringLiteral("Two, edited?"));
    QTest::keyClick(view.input(), Qt::Key_Return);
    QCOMPARE(editLast.count(), 1);
    QCOMPARE(view.messageCount(), 3);
    view.appendPiece(QStringLiteral("No."));
    view.finishAnswer({}, QStringLiteral("eos"));
    // Fork under an answer names its turn; under a user message nothing.
    view.activateLink(QUrl(QStringLiteral("glance:fork/1")));
    view.activateLink(QUrl(QStringLiteral("glance:fork/3")));
    QCOMPARE(fork.count(), 2);
    QCOMPARE(fork.at(0).at(0).toInt(), 0);
    QCOMPARE(fork.at(1).at(0).toInt(), 1);
    view.setReadOnly(true, QStringLiteral("gone"));  // read-only: no edit, no fork
    view.activateLink(QUrl(QStringLiteral("glance:fork/1")));
    view.activateLink(QUrl(QStringLiteral("glance:edit/0")));
    QCOMPARE(fork.count(), 2);
    QCOMPARE(view.editingTurn(), -1);
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
    // While busy, the answer's first piece ends "Reading the prompt" (it stayed up through the
    // whole answer, issue 34); Stop still works.
    view.setBusy(true);
    view.setProgress(QStringLiteral("Reading the prompt: 71 of 71 tokens"), 1.0);
    QVERIFY(!bar->isHidden());
    view.appendPiece(QStringLiteral("A"));
    QVERIFY(bar->isHidden());
    QVERIFY(view.stopAction()->isEnabled());
    view.setBusy(false);
  }
};

QTEST_MAIN(TestChatView)
#include "test_chat_view.moc"
