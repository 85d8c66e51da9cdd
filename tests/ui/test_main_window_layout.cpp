// The window without the engine: it fits the screen and does not grow when an answer adds
// chips, maps and timings; dark mode reaches the charts; New chat clears notices, the
// timing axis and the attention caption; the View menu's labels; Ctrl+V with an image in the
// message box attaches it (kept in the app's images folder).
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QSlider>
#include <QScrollBar>
#include <QScrollArea>
#include <QPushButton>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QPlainTextEdit>
#include <QScreen>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/ui/empty_test_profile.h"
#include "ui/attention_panel.h"
#include "ui/chat_view.h"
#include "ui/context_meter.h"
#include "ui/conversation_store.h"
#include "ui/detail_estimate.h"
#include "ui/heatmap.h"
#include "ui/image_drop_area.h"
#include "ui/shortcuts_dialog.h"
#include "ui/main_window.h"
#include "ui/settings_store.h"
#include "ui/theme.h"
#include "ui/timing_panel.h"

using glance::ui::ConversationStore;
using glance::ui::MainWindow;
using glance::ui::SettingsStore;

namespace {

glance::TurnStats Stats() {
  glance::TurnStats s;
  s.generated_tokens = 40;
  s.ttft_s = 0.5;
  s.stages = {{"preprocess", 0.25, 1}, {"vision", 2.0, 1}, {"prefill", 0.5, 1}, {"decode", 1.0, 40}};
  s.token_latencies_s.assign(40, 0.025);
  return s;
}

// A finished answer as the panels see it: 40 words over a 16x16 grid.
void ShowAnAnswer(MainWindow& window) {
  std::vector<glance::AttentionMap> maps;
  std::vector<glance::AttentionWord> words;
  for (int step = 0; step < 40; ++step) {
    glance::AttentionMap m;
    m.step = step;
    m.token_text = " word" + std::to_string(step);
    m.grid_h = m.grid_w = 16;
    m.layers = {3, 7};
    m.n_heads = 4;
    m.weights.assign(size_t{2} * 4 * 256, 1.0f / 256.0f);
    m.weights[static_cast<size_t>(step)] = 0.5f;
    m.mean = m.Select(-1, -1);
    maps.push_back(m);
    words.push_back({m.token_text, step, step});
  }
  QImage image(640, 480, QImage::Format_RGB32);
  image.fill(Qt::darkGreen);
  window.attention()->setImage(image);
  window.attention()->setAttention(maps, words);
  for (int i = 0; i < 4; ++i) window.timing()->addTurn(Stats());
  window.chat()->addExchange(QStringLiteral("Describe this image."),
                             QString(QStringLiteral("A long answer. ")).repeated(60), Stats(),
                             QStringLiteral("eos"));
}

}  // namespace

class TestMainWindowLayout : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  std::unique_ptr<SettingsStore> Settings() const {
    return std::make_unique<SettingsStore>(dir_.filePath(QStringLiteral("glance.json")));
  }
  QString Folder() const { return dir_.filePath(QStringLiteral("conversations")); }

 private Q_SLOTS:
  void initTestCase() {
    StartWithAnEmptyTestProfile();
    glance::ui::SettingsFile::App()->clear();  // no remembered geometry from another test
  }

  void fitsTheScreenBeforeAndAfterAnAnswer() {
    ConversationStore store(Folder());
    auto settings = Settings();
    MainWindow window(nullptr, settings.get(), &store);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QRect screen = window.screen()->availableGeometry();
    QVERIFY2(window.frameGeometry().width() <= screen.width() &&
                 window.frameGeometry().height() <= screen.height(),
             qPrintable(QStringLiteral("%1x%2 on %3x%4").arg(window.frameGeometry().width())
                            .arg(window.frameGeometry().height()).arg(screen.width()).arg(screen.height())));
    ShowAnAnswer(window);
    QApplication::processEvents();
    // The smallest the window can be: well under a 1000-px screen, also at scale factor 2
    // (a 1600x1000 screen is 800x500 logical pixels then).
    const QSize least = window.minimumSizeHint().expandedTo(window.minimumSize());
    QVERIFY2(least.width() <= 800 && least.height() <= 500,
             qPrintable(QStringLiteral("minimum %1x%2").arg(least.width()).arg(least.height())));
    QVERIFY(window.frameGeometry().height() <= screen.height());  // did not grow
  }

  void detailModeEstimateWarnsBeforeThousandsOfTokens() {
    const QString demo = QStringLiteral(GLANCE_SOURCE_RESOURCES "/demo-model");
    const auto big = glance::ui::EstimateDetail(demo, QSize(11500, 8600), 0.02, 400.0);
    QVERIFY2(big.tokens >= glance::ui::kDetailWarnTokens, qPrintable(QString::number(big.tokens)));
    QCOMPARE(big.tokens, (big.resized.width() / 32) * (big.resized.height() / 32));
    QVERIFY(std::abs(big.seconds - (big.tokens * 0.02 + big.tokens / 400.0)) < 1e-6);
    QVERIFY(glance::ui::DetailWarningText(big).contains(QStringLiteral("take about")));
    const auto small = glance::ui::EstimateDetail(demo, QSize(320, 240), 0.0, 0.0);
    QVERIFY(small.tokens > 0 && small.tokens < glance::ui::kDetailWarnTokens);  // no warning
    QVERIFY(small.seconds < 0);  // nothing measured yet
    QCOMPARE(glance::ui::EstimateDetail(QStringLiteral("/no/such/model"), QSize(800, 600), 0, 0).tokens, 0);
  }

  void darkModeReachesTheCharts() {
    glance::ui::TimingPanel panel;
    panel.addTurn(Stats());
    glance::ui::ApplyTheme(glance::ui::Theme::kLight);
    QApplication::processEvents();
    QVERIFY(panel.chartBackground().lightness() > 150);  // negative control
    glance::ui::ApplyTheme(glance::ui::Theme::kDark);
    QApplication::processEvents();
    QVERIFY2(panel.chartBackground().lightness() < 100, qPrintable(panel.chartBackground().name()));
    glance::ui::ApplyTheme(glance::ui::Theme::kSystem);
  }

  void timingHeaderCountsTheImageStage() {
    glance::ui::TimingPanel panel;
    panel.addTurn(Stats());
    // TTFT as the user waits it: 0.25 s preprocess + 2 s vision + 0.5 s to the first token.
    QVERIFY2(panel.summaryText().contains(QStringLiteral("TTFT 2.75 s (image 2.25 s)")),
             qPrintable(panel.summaryText()));
  }

  void newChatClearsNoticesAxisAndCaption() {
    ConversationStore store(Folder());
    auto settings = Settings();
    MainWindow window(nullptr, settings.get(), &store);
    ShowAnAnswer(window);
    QCOMPARE(window.timing()->turnAxisCategories().size(), 4);
    QVERIFY(window.exportConversation(dir_.filePath(QStringLiteral("no/such/folder/x.md")), true) == false);
    QVERIFY(!window.noticeText().isEmpty());
    window.chat()->newChatAction()->trigger();
    QVERIFY(window.noticeText().isEmpty());
    QVERIFY(window.timing()->turnAxisCategories().isEmpty());
    QVERIFY(!window.timing()->turnAxisVisible());  // its old labels are not drawn
    const auto* caption = window.attention()->findChildren<QLabel*>().first();
    QVERIFY2(!caption->text().contains(QStringLiteral("word")), qPrintable(caption->text()));
  }

  // Issue 34 item 3: after an answer the map, its legend and every control are in view in the
  // Image and attention dock without scrolling, at 1280x720 and at 800x500 (1600x1000 at scale
  // 2), the image's aspect kept; a wider dock does not crop it (it sized by width).
  // View > Reset layout brings back a floated and a closed dock.
  void heatmapFitsItsDockWithItsControls() {
    ConversationStore store(Folder());
    auto settings = Settings();
    MainWindow window(nullptr, settings.get(), &store);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    ShowAnAnswer(window);
    auto* dock = window.findChild<QDockWidget*>(QStringLiteral("attention"));
    auto* timing = window.findChild<QDockWidget*>(QStringLiteral("timing"));
    QVERIFY(dock != nullptr && timing != nullptr);
    auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
    QVERIFY(scroll != nullptr);
    auto inView = [&](const QString& when, int minEm) {
      QApplication::processEvents();
      QVERIFY2(scroll->verticalScrollBar()->maximum() == 0,
               qPrintable(when + QStringLiteral(": the dock scrolls by %1 px").arg(scroll->verticalScrollBar()->maximum())));
      const QRect view = scroll->viewport()->rect();
      QList<QWidget*> controls;
      for (QWidget* w : window.attention()->findChildren<QComboBox*>()) controls << w;
      for (QWidget* w : window.attention()->findChildren<QPushButton*>(Qt::FindDirectChildrenOnly)) controls << w;
      controls << window.attention()->findChildren<QSlider*>().first();
      for (QWidget* w : controls) {
        const QRect r(w->mapTo(scroll->viewport(), QPoint(0, 0)), w->size());
        QVERIFY2(view.contains(r), qPrintable(when + QStringLiteral(": %1 at %2,%3 %4x%5 is cut from %6x%7")
                                                      .arg(w->accessibleName() + w->objectName())
                                                      .arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height())
                                                      .arg(view.width()).arg(view.height())));
      }
      auto* map = window.attention()->heatmap();
      const QRectF image = map->imageRect();
      QVERIFY2(image.height() >= map->fontMetrics().height() * minEm, qPrintable(when + QStringLiteral(": map %1 px tall").arg(image.height())));
      QVERIFY(std::abs(image.width() / image.height() - 640.0 / 480.0) < 0.02);  // aspect kept
      QVERIFY(image.bottom() <= map->height() - map->fontMetrics().height());  // the legend below it
    };
    // The offscreen screen is 800x600: the window as a first run makes it, then 800x500.
    for (const QSize size : {window.size(), QSize(800, 500)}) {
      window.resize(size);
      window.resetLayout();
      // At 800x500 (1600x1000 at scale 2) the map gets at least 5 lines of text in height.
      inView(QStringLiteral("%1x%2").arg(size.width()).arg(size.height()), size.height() > 500 ? 6 : 5);
    }
    // A first run's window on a 1600x1000 screen: Timing is a tab, so the map gets the height.
    window.resize(1400, 890);
    window.resetLayout();
    inView(QStringLiteral("1400x890"), 16);
    QVERIFY(window.tabifiedDockWidgets(dock).contains(timing));
    // A tall window: Timing below the image, and the map still big.
    window.resize(1400, 1200);
    window.resetLayout();
    inView(QStringLiteral("1400x1200"), 16);
    QVERIFY(!window.tabifiedDockWidgets(dock).contains(timing));
    window.resize(1280, 720);
    window.resetLayout();
    QApplication::processEvents();
    window.resize(800, 552);
    window.resetLayout();
    window.resizeDocks({dock}, {560}, Qt::Horizontal);  // wider: still whole
    inView(QStringLiteral("a wide dock"), 6);

    dock->setFloating(true);
    timing->close();
    window.resetLayout();
    QVERIFY(!dock->isFloating());
    QVERIFY(timing->toggleViewAction()->isChecked());
    QVERIFY(dock->toggleViewAction()->isChecked());
  }

  // Issue 34: at 800x500 (1600x1000 at scale 2) no dock scrolls sideways and every control is
  // in view: the docks are one column of tabs (Conversations beside the image), the chat's
  // buttons fit beside a long context meter (cut, not widening the chat), and each tab shows
  // its buttons whole — the sidebar's New chat, Rename and Delete, the image's Open, Paste and
  // Try a demo scene, the map's exports and selectors, Timing's Clear and Export CSV. The
  // three columns stay on a wide window.
  void everyControlInViewAt800x500() {
    ConversationStore store(Folder());
    auto settings = Settings();
    MainWindow window(nullptr, settings.get(), &store);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.resize(800, 500);
    window.resetLayout();
    ShowAnAnswer(window);
    glance::ui::ContextUsage usage;  // a long meter: "12,345 + ≈6,789 / 65,536 tokens"
    usage.used = 12345;
    usage.limit = 65536;
    usage.image_tokens = 6700;
    usage.text_bytes = 260;
    window.chat()->contextMeter()->setUsage(usage);
    auto* conv = window.findChild<QDockWidget*>(QStringLiteral("conversations"));
    auto* image = window.findChild<QDockWidget*>(QStringLiteral("attention"));
    auto* timing = window.findChild<QDockWidget*>(QStringLiteral("timing"));
    QVERIFY(conv && image && timing);
    auto whole = [](QWidget* w, QWidget* within) {
      return QRect(QPoint(0, 0), within->size()).contains(QRect(w->mapTo(within, QPoint(0, 0)), w->size()));
    };
    auto inDock = [&](QDockWidget* dock, const QList<QWidget*>& controls) {
      dock->raise();
      QApplication::processEvents();
      auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
      QVERIFY(scroll != nullptr);
      QVERIFY2(scroll->horizontalScrollBar()->maximum() == 0,
               qPrintable(dock->objectName() + QStringLiteral(" scrolls sideways by %1 px").arg(scroll->horizontalScrollBar()->maximum())));
      QVERIFY(!controls.isEmpty());
      for (QWidget* w : controls) {
        QVERIFY2(w->isVisibleTo(&window), qPrintable(dock->objectName() + QLatin1Char(' ') + w->objectName()));
        // Sideways: whole within the visible width; up and down the dock may scroll to it.
        const QRect r(w->mapTo(scroll->viewport(), QPoint(0, 0)), w->size());
        QVERIFY2(r.left() >= 0 && r.right() < scroll->viewport()->width(),
                 qPrintable(dock->objectName() + QStringLiteral(": '%1' at x %2, %3 wide, is cut at %4")
                                                     .arg(w->property("text").toString() + w->accessibleName())
                                                     .arg(r.x()).arg(r.width()).arg(scroll->viewport()->width())));
      }
    };
    QList<QWidget*> sidebar;
    for (QWidget* w : conv->findChildren<QToolButton*>()) if (!w->isHidden()) sidebar << w;
    sidebar << conv->findChild<QLineEdit*>(QStringLiteral("conversationSearch"));
    QCOMPARE(sidebar.size(), 4);  // New chat, Rename, Delete and the search
    inDock(conv, sidebar);
    QList<QWidget*> imageControls;
    for (QWidget* w : window.dropArea()->findChildren<QPushButton*>()) imageControls << w;
    for (QWidget* w : window.attention()->findChildren<QComboBox*>()) imageControls << w;
    for (QWidget* w : window.attention()->findChildren<QPushButton*>(Qt::FindDirectChildrenOnly)) imageControls << w;
    QVERIFY(window.findChild<QPushButton*>(QStringLiteral("demoSceneButton")) != nullptr);
    inDock(image, imageControls);
    QList<QWidget*> timingButtons;
    for (QWidget* w : window.timing()->findChildren<QPushButton*>()) timingButtons << w;
    inDock(timing, timingButtons);
    // The chat: its buttons whole, the meter beside them.
    QApplication::processEvents();
    const QList<QAction*> chatActions{window.chat()->editAction(), window.chat()->regenerateAction(),
                                      window.chat()->stopAction(), window.chat()->sendAction()};
    int chatButtons = 0;
    for (QToolButton* b : window.chat()->findChildren<QToolButton*>())
      if (chatActions.contains(b->defaultAction())) {
        ++chatButtons;
        QVERIFY2(whole(b, window.chat()), qPrintable(b->text() + QStringLiteral(" is cut")));
      }
    QCOMPARE(chatButtons, 4);
    QVERIFY(whole(window.chat()->contextMeter(), window.chat()));
    QVERIFY(window.tabifiedDockWidgets(image).contains(conv));  // one column of tabs

    // A wide window keeps three columns.
    window.resize(1280, 720);
    window.resetLayout();
    QApplication::processEvents();
    QVERIFY(!window.tabifiedDockWidgets(image).contains(conv));
    QCOMPARE(window.dockWidgetArea(conv), Qt::LeftDockWidgetArea);
    inDock(conv, sidebar);  // the sidebar scrolled sideways there too, Delete cut
    inDock(image, imageControls);
  }

  // Issue 34 "also found": no two items of a menu share a mnemonic (three File items used D);
  // Help > Keyboard shortcuts lists the menus' shortcuts; an empty conversation cannot be
  // exported; the status bar has no stray "·" without a model.
  void menusShortcutsExportAndStatusBar() {
    // A folder of its own: the other tests' windows open the newest chat of Folder().
    ConversationStore store(dir_.filePath(QStringLiteral("conversations-menus")));
    auto settings = Settings();
    MainWindow window(nullptr, settings.get(), &store);
    for (QAction* top : window.menuBar()->actions()) {
      QMenu* menu = top->menu();
      QVERIFY(menu != nullptr);
      QStringList seen;
      for (QAction* a : menu->actions()) {
        const QString text = QString(a->text()).replace(QStringLiteral("&&"), QString());
        const int at = text.indexOf(QLatin1Char('&'));
        if (a->isSeparator() || at < 0 || at + 1 >= text.size()) continue;
        const QString key = text.mid(at + 1, 1).toLower();
        QVERIFY2(!seen.contains(key), qPrintable(top->text() + QStringLiteral(": '") + key +
                                                 QStringLiteral("' twice, at ") + a->text()));
        seen << key;
      }
    }
    const auto rows = glance::ui::CollectShortcuts(window.menuBar());
    auto has = [&](const QString& what, const QKeySequence& key) {
      for (const auto& row : rows)
        if (row.what == what && row.keys.contains(key.toString(QKeySequence::NativeText))) return true;
      return false;
    };
    QVERIFY(has(QStringLiteral("Send"), QKeySequence(Qt::CTRL | Qt::Key_Return)));
    QVERIFY(has(QStringLiteral("Copy last answer"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C)));
    QVERIFY(has(QStringLiteral("Keyboard shortcuts"), QKeySequence(QKeySequence::HelpContents)));
    QVERIFY(!has(QStringLiteral("Send"), QKeySequence(Qt::Key_F9)));  // control

    QMenu* file = window.menuBar()->actions().first()->menu();
    QList<QAction*> exports;
    for (QAction* a : file->actions())
      if (a->text().contains(QStringLiteral("xport conversation"))) exports << a;
    QCOMPARE(exports.size(), 2);
    Q_EMIT file->aboutToShow();
    for (QAction* a : exports) QVERIFY(!a->isEnabled());
    glance::ui::Conversation saved;
    saved.title = QStringLiteral("One turn");
    saved.turns.push_back({});
    saved.turns.back().user_text = QStringLiteral("Hello");
    saved.turns.back().answer = QStringLiteral("Hi.");
    QVERIFY(store.save(saved));
    QVERIFY(window.openConversation(saved.id));
    Q_EMIT file->aboutToShow();
    for (QAction* a : exports) QVERIFY(a->isEnabled());  // control: something to export

    for (QLabel* label : window.statusBar()->findChildren<QLabel*>())
      QVERIFY2(!label->text().startsWith(QStringLiteral("\u00B7")) || label->text().contains(QStringLiteral("weights")),
               qPrintable(label->text()));
  }

  // A long progress line ("Loading …", "Reading the prompt …", a server start's) does not take
  // the Conversations dock's width, during or after it (issue 34: it narrowed the dock for good).
  void longProgressKeepsTheDocksWidths() {
    ConversationStore store(Folder());
    auto settings = Settings();
    MainWindow window(nullptr, settings.get(), &store);
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.resetLayout();
    QApplication::processEvents();
    auto* conv = window.findChild<QDockWidget*>(QStringLiteral("conversations"));
    QVERIFY(conv);
    const int before = conv->width();
    window.chat()->setBusy(true);
    window.chat()->setProgress(QStringLiteral("Loading Qwen3.5-2B: reading model.safetensors, 1,234 of 4,567 MB "
                                              "\u00B7 about 40 s left \u00B7 Esc stops"),
                               0.3);
    QApplication::processEvents();
    QCOMPARE(conv->width(), before);
    window.chat()->setProgress(QString(), 0.0);
    window.chat()->setBusy(false);
    QApplication::processEvents();
    QCOMPARE(conv->width(), before);
  }

  void viewMenuShowsAmpersands() {
    ConversationStore store(Folder());
    auto settings = Settings();
    MainWindow window(nullptr, settings.get(), &store);
    QStringList texts;
    for (QDockWidget* dock : window.findChildren<QDockWidget*>()) texts << dock->toggleViewAction()->text();
    QVERIFY2(texts.contains(QStringLiteral("Image and attention")), qPrintable(texts.join(QLatin1Char('|'))));
    for (const QString& text : texts)  // a "&" in a title is doubled, never a mnemonic
      QVERIFY2(!text.contains(QLatin1Char('&')) || text.contains(QStringLiteral("&&")), qPrintable(text));
  }

  void ctrlVInTheMessageBoxAttachesTheImage() {
    ConversationStore store(Folder());
    auto settings = Settings();
    MainWindow window(nullptr, settings.get(), &store);
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QSignalSpy failed(&window, &MainWindow::failed);
    QImage image(32, 24, QImage::Format_RGB32);
    image.fill(Qt::yellow);
    QApplication::clipboard()->setImage(image);
    window.chat()->input()->setFocus();
    QTest::keyClick(window.chat()->input(), Qt::Key_V, Qt::ControlModifier);
    // No model is loaded, so the engine says so — but the image went to it, and was kept.
    QTRY_COMPARE(failed.count(), 1);
    QVERIFY(window.dropArea()->message().contains(QStringLiteral("No model")));
    QCOMPARE(QDir(store.imagesFolder()).entryList(QDir::Files).size(), 1);
    QVERIFY(window.chat()->input()->toPlainText().isEmpty());
  }
};

QTEST_MAIN(TestMainWindowLayout)
#include "test_main_window_layout.moc"
