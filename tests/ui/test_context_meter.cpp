// The context meter (issue 36 item 8): the next message's tokens count its images (grid + two
// markers each) and its text; the levels change where Session would refuse the message or cut the
// answer; the text and tooltip say so.
#include <QApplication>
#include <QtTest>

#include "ui/context_meter.h"

using glance::ui::ContextMeter;
using glance::ui::ContextUsage;

class TestContextMeter : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void imagesAndTextAreCounted() {
    ContextUsage u;
    u.limit = 1000;
    u.used = 100;
    const int empty = u.next_message_tokens();
    QVERIFY(empty > 0 && empty < 32);  // the turn's framing alone
    u.image_tokens = glance::ui::ImageContextTokens(49);
    QCOMPARE(u.image_tokens, 51);
    QCOMPARE(u.next_message_tokens(), empty + 51);
    u.text_bytes = 30;  // estimated at one token per 3 bytes: never fewer than BPE would use
    QCOMPARE(u.next_message_tokens(), empty + 51 + 10);
    QCOMPARE(u.after_next_message(), 100 + empty + 61);
  }

  void levelsFollowTheLimit() {
    ContextUsage u;
    u.limit = 1000;
    u.answer_tokens = 200;
    u.used = 500;
    QCOMPARE(u.level(), ContextUsage::Level::kFine);
    u.used = 1000 - 200 - u.next_message_tokens();  // the answer's budget just reaches the limit
    QCOMPARE(u.level(), ContextUsage::Level::kAnswerMayBeCut);
    u.used -= 1;
    QCOMPARE(u.level(), ContextUsage::Level::kFine);
    u.image_tokens = 300;  // an image that does not fit
    QCOMPARE(u.level(), ContextUsage::Level::kWillNotFit);
    u.limit = 0;  // no model: nothing to warn about
    QCOMPARE(u.level(), ContextUsage::Level::kFine);
  }

  // Issue 34, seen at 1280x720: after View > Theme > Dark the meter kept the light theme's grey
  // text, near-black on the dark background. Its text follows the application's palette.
  void textFollowsAThemeChange() {
    const QPalette before = QApplication::palette();
    ContextMeter meter;
    ContextUsage u;
    u.limit = 1000;
    u.used = 10;
    meter.setUsage(u);
    QPalette dark = before;
    dark.setColor(QPalette::Window, QColor(37, 39, 43));
    dark.setColor(QPalette::PlaceholderText, QColor(120, 122, 126));
    QApplication::setPalette(dark);
    QCoreApplication::processEvents();
    QCOMPARE(meter.palette().color(QPalette::WindowText), QColor(120, 122, 126));
    QCOMPARE(meter.palette().color(QPalette::Window), QColor(37, 39, 43));  // the rest follows too
    QApplication::setPalette(before);
    QCoreApplication::processEvents();
    QCOMPARE(meter.palette().color(QPalette::WindowText), before.color(QPalette::PlaceholderText));
  }

  void textAndTooltipSayWhatHappens() {
    ContextMeter meter;
    QVERIFY(meter.isHidden() || meter.text().isEmpty());  // no model yet
    ContextUsage u;
    u.limit = 4096;
    u.used = 1200;
    u.answer_tokens = 256;
    meter.setUsage(u);
    QVERIFY2(meter.text().contains(QLocale().toString(1200)) && meter.text().contains(QLocale().toString(4096)),
             qPrintable(meter.text()));
    QVERIFY(!meter.text().contains(QStringLiteral("+")));
    QVERIFY(!meter.explanation().contains(QStringLiteral("would not fit")));
    u.image_tokens = 3000;
    meter.setUsage(u);
    QVERIFY(meter.text().contains(QStringLiteral("+")));
    QCOMPARE(meter.level(), ContextUsage::Level::kWillNotFit);
    QVERIFY2(meter.explanation().contains(QStringLiteral("would not fit")) &&
                 meter.explanation().contains(QStringLiteral("refuse")),
             qPrintable(meter.explanation()));
    QCOMPARE(meter.toolTip(), meter.explanation());
    u.image_tokens = 2700;  // fits, leaves less than the answer's budget
    meter.setUsage(u);
    QCOMPARE(meter.level(), ContextUsage::Level::kAnswerMayBeCut);
    QVERIFY2(meter.explanation().contains(QStringLiteral("context full")), qPrintable(meter.explanation()));
  }

  // Where the chat is narrow the meter shows a short form that keeps the limit readable ("89 /
  // 64k"), not the long text cut to "89 / 65,53…" (issue 34: seen in German at 1280x720).
  void narrowMeterKeepsTheLimitReadable() {
    QLocale::setDefault(QLocale(QLocale::English));
    ContextMeter meter;
    ContextUsage u;
    u.limit = 65536;
    u.used = 89;
    meter.setUsage(u);
    QCOMPARE(meter.text(), QStringLiteral("89 / 65,536 tokens"));
    QCOMPARE(meter.shortText(), QStringLiteral("89 / 64k"));
    u.used = 12345;
    u.limit = 262144;
    u.text_bytes = 30;
    meter.setUsage(u);
    QCOMPARE(meter.shortText(), QStringLiteral("12k + \u2248" "26 / 256k"));
    u.limit = 4096;  // small counts stay whole
    u.used = 1200;
    u.text_bytes = 0;
    meter.setUsage(u);
    QCOMPARE(meter.shortText(), QStringLiteral("1,200 / 4,096"));
    // Drawn: the text where it fits, else the short form, cut only below that.
    meter.setUsage([] { ContextUsage w; w.limit = 65536; w.used = 89; return w; }());
    const QFontMetrics fm = meter.fontMetrics();
    const int margins = meter.contentsMargins().left() + meter.contentsMargins().right();
    meter.resize(fm.horizontalAdvance(meter.text()) + margins + 2, meter.sizeHint().height());
    QCOMPARE(meter.shownText(), meter.text());
    meter.resize(fm.horizontalAdvance(meter.shortText()) + margins + 2, meter.sizeHint().height());
    QCOMPARE(meter.shownText(), QStringLiteral("89 / 64k"));
    meter.resize(fm.horizontalAdvance(QStringLiteral("89 /")) + margins, meter.sizeHint().height());
    QVERIFY2(meter.shownText().endsWith(QChar(0x2026)), qPrintable(meter.shownText()));
  }
};

QTEST_MAIN(TestContextMeter)
#include "test_context_meter.moc"
