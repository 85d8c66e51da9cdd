// Parts around the chat (issue 34): the inline notice (closable, its action, clears by key,
// times out, readable in light and dark themes) and the attachment strip (tiles in order,
// remove buttons, hidden when empty).
#include <QApplication>
#include <QCheckBox>
#include <QStyle>
#include <QStyleFactory>
#include <QStyleOptionButton>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QToolButton>
#include <algorithm>
#include <cmath>
#include <functional>

#include "ui/attachment_strip.h"
#include "ui/link_label.h"
#include "ui/notice_bar.h"
#include "ui/theme.h"

using glance::ui::AttachmentStrip;
using glance::ui::NoticeBar;

namespace {

// WCAG relative luminance and contrast ratio (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio).
double Luminance(const QColor& c) {
  auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}
double Contrast(const QColor& a, const QColor& b) {
  const double la = Luminance(a), lb = Luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// The notice's background, sampled left of the text, against its text colour.
double NoticeContrast(NoticeBar& bar) {
  const QImage shot = bar.grab().toImage();
  const QColor background = shot.pixelColor(bar.fontMetrics().height() / 4 + 1, shot.height() / 2);
  const QColor text = bar.findChild<QLabel*>()->palette().color(QPalette::WindowText);
  return Contrast(background, text);
}

QImage Swatch(Qt::GlobalColor colour) {
  QImage image(40, 30, QImage::Format_RGB32);
  image.fill(colour);
  return image;
}

}  // namespace

class TestChatParts : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void noticeClosesAndRunsItsAction() {
    QWidget host;  // the notice shows and hides inside its window, as above the chat
    NoticeBar bar(&host);
    host.resize(600, 80);
    host.show();
    QVERIFY(!bar.isShown());
    int ran = 0;
    bar.showNotice(QStringLiteral("reload"), QStringLiteral("Takes effect when next loaded."),
                   NoticeBar::Kind::kInfo, QStringLiteral("Reload now"), [&ran] { ++ran; });
    QVERIFY(bar.isShown());
    QCOMPARE(bar.key(), QStringLiteral("reload"));
    QVERIFY(!bar.actionButton()->isHidden());
    QCOMPARE(bar.actionButton()->text(), QStringLiteral("Reload now"));
    QTest::mouseClick(bar.actionButton(), Qt::LeftButton);
    QCOMPARE(ran, 1);
    QVERIFY(!bar.isShown());  // done: it goes
    // Without an action: no button; Close hides it.
    bar.showNotice(QStringLiteral("export"), QStringLiteral("Exported to x.md."));
    QVERIFY(bar.actionButton()->isHidden());
    QTest::mouseClick(bar.closeButton(), Qt::LeftButton);
    QVERIFY(!bar.isShown());
    QVERIFY(bar.text().isEmpty());
    QCOMPARE(ran, 1);
  }

  void noticeClearsOnlyItsOwnKey() {
    NoticeBar bar;
    bar.showNotice(QStringLiteral("wait"), QStringLiteral("Wait for the answer."));
    bar.clear(QStringLiteral("model-changed"));  // another notice's reason ended
    QVERIFY(bar.isShown());
    bar.clear(QStringLiteral("wait"));
    QVERIFY(!bar.isShown());
    bar.showNotice(QStringLiteral("a"), QStringLiteral("text"));
    bar.showNotice(QStringLiteral("a"), QString());  // an empty text clears it
    QVERIFY(!bar.isShown());
  }

  void passingNoticeTimesOut() {
    NoticeBar bar;
    bar.showNotice(QStringLiteral("export"), QStringLiteral("Exported."), NoticeBar::Kind::kInfo, {},
                   {}, 100);
    QVERIFY(bar.isShown());
    QTRY_VERIFY_WITH_TIMEOUT(!bar.isShown(), 2000);
    bar.showNotice(QStringLiteral("stays"), QStringLiteral("Stays."));  // control: no timeout
    QTest::qWait(300);
    QVERIFY(bar.isShown());
  }

  // It was white with light text in the dark theme (a style sheet resolved the palette once).
  void noticeIsReadableInBothThemes() {
    for (auto theme : {glance::ui::Theme::kLight, glance::ui::Theme::kDark}) {
      glance::ui::ApplyTheme(theme);
      for (auto kind : {NoticeBar::Kind::kInfo, NoticeBar::Kind::kWarning, NoticeBar::Kind::kError}) {
        NoticeBar bar;
        bar.resize(600, 60);
        bar.showNotice(QStringLiteral("k"), QStringLiteral("Some notice text"), kind);
        bar.show();
        QVERIFY(QTest::qWaitForWindowExposed(&bar));
        const double contrast = NoticeContrast(bar);
        QVERIFY2(contrast >= 4.5, qPrintable(QStringLiteral("theme %1 kind %2: contrast %3")
                                                 .arg(static_cast<int>(theme))
                                                 .arg(static_cast<int>(kind))
                                                 .arg(contrast)));
      }
    }
    glance::ui::ApplyTheme(glance::ui::Theme::kSystem);
    // Control: the measure sees an unreadable pair.
    QVERIFY(Contrast(QColor(240, 240, 240), QColor(225, 227, 230)) < 4.5);
  }

  // A link label takes the new palette's link colour (a plain rich-text QLabel kept the old
  // one: the status bar's server URL stayed dark blue on the dark theme).
  void linkLabelFollowsThePalette() {
    // The application's palette, as a theme switch sets it: the text's links take its colour.
    const QPalette before = QApplication::palette();
    QPalette red = before;
    red.setColor(QPalette::Link, QColor(255, 0, 0));
    QApplication::setPalette(red);
    glance::ui::LinkLabel label;
    label.setText(QStringLiteral("\u00B7 Serving at <a href=\"http://127.0.0.1:8080\">http://127.0.0.1:8080</a>"));
    label.resize(label.sizeHint());
    const auto reddish = [](QRgb p) { return qRed(p) > 200 && qGreen(p) < 80 && qBlue(p) < 80; };
    const auto greenish = [](QRgb p) { return qGreen(p) > 140 && qRed(p) < 80 && qBlue(p) < 80; };
    const auto count = [&label](const std::function<bool(QRgb)>& match) {
      const QImage image = label.grab().toImage();
      int n = 0;
      for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) n += match(image.pixel(x, y)) ? 1 : 0;
      return n;
    };
    const int redBefore = count(reddish);
    QPalette green = red;
    green.setColor(QPalette::Link, QColor(0, 180, 0));
    QApplication::setPalette(green);
    QCoreApplication::processEvents();  // the widgets hear of it through a posted event
    const int redAfter = count(reddish), greenAfter = count(greenish);
    QApplication::setPalette(before);
    QVERIFY2(redBefore > 20, qPrintable(QString::number(redBefore)));  // the check sees the link's colour
    QCOMPARE(redAfter, 0);
    QVERIFY2(greenAfter > 20, qPrintable(QString::number(greenAfter)));
    QVERIFY(label.text().contains(QStringLiteral("Serving at")));
  }

  // An unchecked check box can be seen in the dark theme as well as in the light one: its box
  // stands out from the window at least as much (Fusion's dark box was near-black on near-black).
  void uncheckedBoxIsVisibleInBothThemes() {
    const auto boxContrast = [] {
      QCheckBox box(QStringLiteral("Hide sinks"));
      box.resize(box.sizeHint());
      const QImage image = box.grab().toImage();
      QStyleOptionButton option;
      option.initFrom(&box);
      const QRect indicator = box.style()->subElementRect(QStyle::SE_CheckBoxIndicator, &option, &box);
      const QColor window = box.palette().color(QPalette::Window);
      double best = 1.0;
      for (int y = indicator.top(); y <= indicator.bottom(); ++y)
        for (int x = indicator.left(); x <= indicator.right(); ++x)
          if (image.rect().contains(x, y)) best = std::max(best, Contrast(image.pixelColor(x, y), window));
      return best;
    };
    glance::ui::ApplyTheme(glance::ui::Theme::kLight);
    const double light = boxContrast();
    glance::ui::ApplyTheme(glance::ui::Theme::kDark);
    const double dark = boxContrast();
    // Control: plain Fusion on the dark palette, as before, fails the same measure.
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    const double plain = boxContrast();
    glance::ui::ApplyTheme(glance::ui::Theme::kSystem);
    const QString figures = QStringLiteral("light %1, dark %2, plain dark %3").arg(light).arg(dark).arg(plain);
    qInfo("%s", qPrintable(figures));
    QVERIFY2(dark >= light && light > 1.3, qPrintable(figures));
    QVERIFY2(plain < light, qPrintable(figures));
  }

  void stripShowsImagesInOrderWithRemoveButtons() {
    AttachmentStrip strip;
    QVERIFY(strip.isHidden());
    strip.addImage(Swatch(Qt::red), QStringLiteral("red.png"));
    strip.addImage(Swatch(Qt::green), QStringLiteral("green.png"));
    strip.addImage(Swatch(Qt::blue), QStringLiteral("blue.png"));
    QVERIFY(!strip.isHidden());
    QCOMPARE(strip.count(), 3);
    QCOMPARE(strip.nameAt(1), QStringLiteral("green.png"));
    QCOMPARE(strip.images()[2].pixelColor(0, 0), QColor(Qt::blue));
    QSignalSpy remove(&strip, &AttachmentStrip::removeRequested);
    QTest::mouseClick(strip.removeButton(1), Qt::LeftButton);
    QCOMPARE(remove.count(), 1);
    QCOMPARE(remove.at(0).at(0).toInt(), 1);
    QCOMPARE(strip.count(), 3);  // the owner removes it once the engine has
    strip.removeAt(1);
    QCOMPARE(strip.count(), 2);
    QCOMPARE(strip.nameAt(1), QStringLiteral("blue.png"));
    QTest::mouseClick(strip.removeButton(1), Qt::LeftButton);
    QCOMPARE(remove.at(1).at(0).toInt(), 1);  // indices follow the removal
    strip.setRemovable(false);
    QVERIFY(!strip.removeButton(0)->isEnabled());
    strip.clear();
    QCOMPARE(strip.count(), 0);
    QVERIFY(strip.isHidden());
  }
};

QTEST_MAIN(TestChatParts)
#include "test_chat_parts.moc"
