// Conversations in the window: a saved conversation reopens identically (sidebar, transcript,
// timings, attention), the sidebar filters, renames and deletes, a live turn is saved with its
// image (path + sha256), stats and attention, and no conversation is lost when a model fails
// to load. The live-turn cases need the engine and the bundled demo model.
#include <QAction>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QDir>
#include <QFileInfo>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QInputDialog>
#include <QTimer>
#include <QApplication>
#include <QToolButton>
#include <QtTest>

#include "ui/attention_panel.h"
#include "ui/chat_view.h"
#include "ui/conversation_sidebar.h"
#include "ui/conversation_store.h"
#include "ui/engine_worker.h"
#include "ui/image_drop_area.h"
#include "ui/main_window.h"
#include "ui/settings_store.h"
#include "ui/timing_panel.h"

using glance::TurnResult;
using glance::ui::Conversation;
using glance::ui::ConversationStore;
using glance::ui::ConversationTurn;
using glance::ui::MainWindow;
using glance::ui::SettingsStore;

namespace {
constexpr int kTimeoutMs = 120000;
const QString kDemoImage = QStringLiteral(GLANCE_SOURCE_RESOURCES "/demo-image.png");

// A conversation as the window would have saved it: two turns, an image, maps and words.
Conversation Sample(const QString& title) {
  Conversation c;
  c.title = title;
  c.system_prompt = QStringLiteral("Be brief.");
  ConversationTurn first;
  first.user_text = QStringLiteral("Describe this image.");
  glance::ImageInfo image;
  image.path = kDemoImage.toStdString();
  image.sha256 = std::string(64, 'a');
  image.source_w = image.resized_w = 224;
  image.source_h = image.resized_h = 224;
  image.grid_w = image.grid_h = 7;
  image.mode = glance::ImageMode::kFast;
  first.images.push_back(image);
  first.answer = QStringLiteral("A red square on a **blue** field.");
  first.stats.generated_tokens = 2;
  first.stats.prompt_tokens = 60;
  first.stats.decode_tokens_per_s = 12.5;
  first.stats.stages = {{"prefill", 0.25, 1}, {"decode", 0.5, 2}};
  for (int step = 0; step < 2; ++step) {
    glance::AttentionMap m;
    m.step = step;
    m.token_text = step == 0 ? "A" : " red";
    m.grid_h = m.grid_w = 7;
    m.layers = {3};
    m.n_heads = 1;
    m.weights.assign(49, 1.0f / 49.0f);
    m.mean = m.weights;
    first.attention.push_back(m);
  }
  first.words = {{"A", 0, 0}, {"red", 1, 1}};
  ConversationTurn second;
  second.user_text = QStringLiteral("And the colours?");
  second.answer = QStringLiteral("Red and blue.");
  second.stats.generated_tokens = 4;
  second.stats.stages = {{"decode", 0.75, 4}};
  second.attention = first.attention;
  second.words = {{"A red", 0, 1}};
  c.turns = {first, second};
  return c;
}
}  // namespace

class TestConversationSidebar : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString Folder() const { return dir_.filePath(QStringLiteral("conversations")); }
  std::unique_ptr<SettingsStore> Settings() const {
    return std::make_unique<SettingsStore>(dir_.filePath(QStringLiteral("glance.json")));
  }

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
  }
  void cleanup() {
    QDir(Folder()).removeRecursively();
    QFile::remove(dir_.filePath(QStringLiteral("glance.json")));
  }

  void savedConversationReopensIdentically() {
    ConversationStore store(Folder());
    Conversation older = Sample(QStringLiteral("Older chat"));
    QVERIFY(store.save(older));
    QTest::qWait(20);  // distinct "updated" times: the newest is listed first
    Conversation saved = Sample(QStringLiteral("Squares and colours"));
    QVERIFY(store.save(saved));
    auto settings = Settings();
    MainWindow window(nullptr, settings.get(), &store);

    // The newest conversation is open with its transcript, timings and maps.
    QCOMPARE(window.sidebar()->visibleTitles(),
             QStringList({QStringLiteral("Squares and colours"), QStringLiteral("Older chat")}));
    QCOMPARE(window.sidebar()->currentId(), saved.id);
    QVERIFY(window.isReadOnly());
    QVERIFY(window.noticeText().startsWith(QStringLiteral("Read-only")));
    QVERIFY(window.chat()->input()->isEnabled());  // typing is kept, never dropped
    QVERIFY(!window.chat()->sendAction()->isEnabled());
    QVERIFY(!window.chat()->regenerateAction()->isEnabled());
    QVERIFY(!window.chat()->editAction()->isEnabled());
    QCOMPARE(window.chat()->messageCount(), 4);
    QCOMPARE(window.chat()->lastUserMessage(), QStringLiteral("And the colours?"));
    QCOMPARE(window.chat()->lastAnswer(), QStringLiteral("Red and blue."));
    QCOMPARE(window.timing()->turnCount(), 2);
    QCOMPARE(window.attention()->wordCount(), 1);  // the last turn's words
    QVERIFY(window.dropArea()->infoText().contains(QStringLiteral("49")));
    QCOMPARE(window.currentConversation().turns.size(), size_t{2});
    QCOMPARE(window.currentConversation().turns[0].images[0].sha256, std::string(64, 'a'));

    // Clicking the other one shows it; clicking back shows the same transcript as before.
    const QString before = window.chat()->transcriptMarkdown();
    QVERIFY(window.openConversation(older.id));
    QCOMPARE(window.sidebar()->currentId(), older.id);
    QVERIFY(window.openConversation(saved.id));
    QCOMPARE(window.chat()->transcriptMarkdown(), before);

    // Exports of what is shown.
    const QString md = dir_.filePath(QStringLiteral("export.md"));
    QVERIFY(window.exportConversation(md, true));
    QFile mdFile(md);
    QVERIFY(mdFile.open(QIODevice::ReadOnly));
    QVERIFY(mdFile.readAll().contains("Red and blue."));
    const QString json = dir_.filePath(QStringLiteral("export.json"));
    QVERIFY(window.exportConversation(json, false));
    QVERIFY(QFileInfo(json).size() > 0);

    // New chat leaves read-only and empties the view; the saved ones stay listed.
    window.chat()->newChatAction()->trigger();
    QVERIFY(!window.isReadOnly());
    QVERIFY(window.chat()->input()->isEnabled());
    QCOMPARE(window.chat()->messageCount(), 0);
    QCOMPARE(window.sidebar()->visibleTitles().size(), 2);
  }

  // A long title is shortened in the middle, so a fork ("… (fork)") does not look like the chat
  // it came from in a narrow sidebar (issue 34: both read "A small orange square in the b…").
  void aForkIsToldApartFromItsOriginalWhenShortened() {
    ConversationStore store(Folder());
    const QString title = QStringLiteral("A small orange square in the bottom right corner on a green background.");
    Conversation original = Sample(title);
    Conversation forked = Sample(title + QStringLiteral(" (fork)"));
    QVERIFY(store.save(original));
    QVERIFY(store.save(forked));
    glance::ui::ConversationSidebar sidebar(&store);
    sidebar.resize(220, 400);
    sidebar.show();
    auto* list = sidebar.findChild<QListWidget*>(QStringLiteral("conversationList"));
    QVERIFY(list);
    const int width = list->viewport()->width() - 8;
    const QFontMetrics metrics(list->font());
    QVERIFY(metrics.horizontalAdvance(title) > width);  // it is shortened at all
    const QString shown = metrics.elidedText(title, list->textElideMode(), width);
    const QString fork = metrics.elidedText(title + QStringLiteral(" (fork)"), list->textElideMode(), width);
    QVERIFY2(shown != fork, qPrintable(shown + QStringLiteral(" | ") + fork));
    QVERIFY2(fork.endsWith(QStringLiteral("(fork)")), qPrintable(fork));
  }

  void sidebarFiltersRenamesDeletes() {
    ConversationStore store(Folder());
    Conversation a = Sample(QStringLiteral("Cats on a mat"));
    Conversation b = Sample(QStringLiteral("Dogs in a park"));
    QVERIFY(store.save(a));
    QTest::qSleep(5);  // b is the newer one, listed first
    QVERIFY(store.save(b));
    glance::ui::ConversationSidebar sidebar(&store);
    QCOMPARE(sidebar.visibleTitles().size(), 2);
    sidebar.setFilter(QStringLiteral("dog"));
    QCOMPARE(sidebar.visibleTitles(), QStringList({QStringLiteral("Dogs in a park")}));
    sidebar.setFilter(QString());
    // Renaming the older chat keeps its date and its place below the newer one, and every byte
    // of the document but the title (the attention maps are not re-encoded).
    const QString path = Folder() + QLatin1Char('/') + a.id + QStringLiteral(".json");
    QFile before(path);
    QVERIFY(before.open(QIODevice::ReadOnly));
    const QByteArray oldBytes = before.readAll();
    before.close();
    const QStringList order = sidebar.visibleTitles();
    QCOMPARE(order.last(), QStringLiteral("Cats on a mat"));
    // Rename… opens a dialog wide enough for the whole title (it opened ~200 px wide).
    const QString longTitle = QStringLiteral("A large blue star in the bottom left corner on a green and yellow background.");
    QVERIFY(sidebar.rename(a.id, longTitle));
    sidebar.show();
    int fieldWidth = 0, needed = 0;
    QTimer::singleShot(0, &sidebar, [&] {
      auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
      auto* field = dialog ? dialog->findChild<QLineEdit*>() : nullptr;
      if (field) {
        fieldWidth = field->width();
        needed = field->fontMetrics().horizontalAdvance(longTitle);
        QCOMPARE(field->text(), longTitle);
      }
      if (dialog) dialog->reject();
    });
    sidebar.setCurrentId(a.id);
    QToolButton* renameButton = nullptr;
    for (QToolButton* button : sidebar.findChildren<QToolButton*>())
      if (QString(button->text()).remove(QLatin1Char('&')) == QStringLiteral("Rename")) renameButton = button;
    QVERIFY(renameButton);
    renameButton->click();
    QVERIFY2(needed > 0 && fieldWidth >= needed, qPrintable(QStringLiteral("%1 < %2").arg(fieldWidth).arg(needed)));
    QVERIFY(sidebar.rename(a.id, QStringLiteral("  Cats, renamed ")));
    QCOMPARE(sidebar.visibleTitles(), QStringList({order.first(), QStringLiteral("Cats, renamed")}));
    QCOMPARE(store.load(a.id)->updated, a.updated);
    QCOMPARE(store.load(a.id)->turns.size(), size_t{2});  // renaming keeps the turns
    QFile after(path);
    QVERIFY(after.open(QIODevice::ReadOnly));
    QByteArray renamedBytes = after.readAll();
    QVERIFY(renamedBytes != oldBytes);
    renamedBytes.replace("Cats, renamed", "Cats on a mat");
    QCOMPARE(renamedBytes, oldBytes);
    // A file that is not a conversation is not renamed: one line naming it.
    QFile other(Folder() + QStringLiteral("/not-a-chat.json"));
    QVERIFY(other.open(QIODevice::WriteOnly));
    other.write("{\"format\": \"something else\"}");
    other.close();
    QString error;
    QVERIFY(!store.retitle(QStringLiteral("not-a-chat"), QStringLiteral("x"), &error));
    QVERIFY2(error.contains(QStringLiteral("not-a-chat.json")), qPrintable(error));
    QVERIFY(QFile::remove(Folder() + QStringLiteral("/not-a-chat.json")));
    QSignalSpy removed(&sidebar, &glance::ui::ConversationSidebar::removed);
    QVERIFY(sidebar.remove(b.id));
    QCOMPARE(removed.count(), 1);
    QCOMPARE(sidebar.visibleTitles(), QStringList({QStringLiteral("Cats, renamed")}));
    QCOMPARE(store.list().size(), 1);
    // Undo brings it back.
    QSignalSpy restored(&sidebar, &glance::ui::ConversationSidebar::restored);
    QVERIFY(sidebar.undoRemove());
    QCOMPARE(restored.count(), 1);
    QCOMPARE(sidebar.visibleTitles().size(), 2);
    QVERIFY(!sidebar.undoRemove());  // once
  }

  void deletingTheOpenConversationClearsIt() {
    ConversationStore store(Folder());
    Conversation saved = Sample(QStringLiteral("Going away"));
    QVERIFY(store.save(saved));
    auto settings = Settings();
    MainWindow window(nullptr, settings.get(), &store);
    QCOMPARE(window.currentConversation().id, saved.id);
    QCOMPARE(window.chat()->messageCount(), 4);
    QVERIFY(window.sidebar()->remove(saved.id));
    QCOMPARE(window.chat()->messageCount(), 0);  // not left on screen
    QVERIFY(window.currentConversation().id.isEmpty());
    QVERIFY(window.sidebar()->message().contains(QStringLiteral("Going away")));
    QVERIFY(window.sidebar()->undoRemove());
    QCOMPARE(window.currentConversation().id, saved.id);  // undo shows it again
  }

  void startsFastWithAThousandSavedChats() {
    ConversationStore store(Folder());
    Conversation c = Sample(QString());
    for (int i = 0; i < 1000; ++i) {
      c.id.clear();
      c.created = QDateTime();
      c.title = QStringLiteral("Chat number %1").arg(i);
      QVERIFY(store.save(c));
    }
    QElapsedTimer timer;
    timer.start();
    auto settings = Settings();
    MainWindow window(nullptr, settings.get(), &store);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const qint64 ms = timer.elapsed();
    qInfo("window with 1000 saved chats up in %lld ms", static_cast<long long>(ms));
    QCOMPARE(window.sidebar()->visibleIds().size(), 1000);
    QVERIFY(window.sidebar()->visibleTitles().contains(QStringLiteral("Chat number 999")));
    QCOMPARE(window.chat()->messageCount(), 4);  // the newest is open
    // One second on a release build; sanitized builds run several times slower.
    QVERIFY2(ms < 1000 * GLANCE_TEST_TIME_FACTOR, qPrintable(QStringLiteral("%1 ms").arg(ms)));
  }

  void liveTurnIsSavedAndReopens() {
    ConversationStore store(Folder());
    auto settings = Settings();
    QVERIFY(settings->setValue(QStringLiteral("max_new_tokens"), QStringLiteral("6")));
    MainWindow window(nullptr, settings.get(), &store);
    QSignalSpy ready(&window, &MainWindow::modelReady);
    QSignalSpy failed(&window, &MainWindow::failed);
    QSignalSpy done(&window, &MainWindow::turnCompleted);
    // The image is queued right behind the load (as `glance --image` does): finishing the
    // load must not drop it.
    window.loadDefaultModel();
    window.attachImageFile(kDemoImage, true);
    QTRY_COMPARE_WITH_TIMEOUT(done.count() + failed.count(), 1, kTimeoutMs);
    QCOMPARE(failed.count(), 0);
    QCOMPARE(ready.count(), 1);
    const TurnResult result = qvariant_cast<TurnResult>(done.last().at(0));
    QCOMPARE(result.stats.image_tokens, 49);

    const auto entries = store.list();
    QCOMPARE(entries.size(), 1);
    const auto saved = store.load(entries[0].id);
    QVERIFY(saved.has_value());
    QCOMPARE(saved->turns.size(), size_t{1});
    const ConversationTurn& turn = saved->turns[0];
    QCOMPARE(turn.user_text, QStringLiteral("Describe this image."));
    QCOMPARE(turn.answer, QString::fromStdString(result.text));
    QCOMPARE(turn.images.size(), size_t{1});
    // An image from the temp folder (a checkout under /tmp) is kept as a copy under its own name
    // in a folder named by its sha256 (ConversationStore::keepImageFile).
    const QString saved_path = QString::fromStdString(turn.images[0].path);
    if (kDemoImage.startsWith(QDir::tempPath() + QLatin1Char('/')))
      QVERIFY2(saved_path.endsWith(QString::fromStdString(turn.images[0].sha256) + QLatin1Char('/') +
                                   QFileInfo(kDemoImage).fileName()),
               qPrintable(saved_path));
    else
      QCOMPARE(saved_path, kDemoImage);
    QCOMPARE(turn.images[0].sha256.size(), size_t{64});
    QCOMPARE(turn.stats.generated_tokens, result.stats.generated_tokens);
    QCOMPARE(turn.attention.size(), result.attention.size());
    QVERIFY(!turn.attention.empty());
    QCOMPARE(turn.words.size(), result.words.size());
    QCOMPARE(window.sidebar()->currentId(), entries[0].id);

    // A follow-up goes into the same file.
    window.chat()->submit(QStringLiteral("More?"));
    QTRY_COMPARE_WITH_TIMEOUT(done.count() + failed.count(), 2, kTimeoutMs);
    QCOMPARE(store.list().size(), 1);
    QCOMPARE(store.load(entries[0].id)->turns.size(), size_t{2});

    // New chat, then reopen: the same transcript, and it continues — the engine re-reads
    // the history (its image found by path and sha256) before the new message.
    const QString live = window.chat()->transcriptMarkdown();
    window.chat()->newChatAction()->trigger();
    QVERIFY(window.openConversation(entries[0].id));
    QCOMPARE(window.chat()->transcriptMarkdown(), live);
    QVERIFY(!window.isReadOnly());
    QVERIFY(window.chat()->sendAction()->isEnabled());
    QSignalSpy progress(window.worker(), &glance::ui::EngineWorker::progress);
    window.chat()->submit(QStringLiteral("And now?"));
    QTRY_COMPARE_WITH_TIMEOUT(done.count() + failed.count(), 3, kTimeoutMs);
    QCOMPARE(failed.count(), 0);
    QVERIFY(progress.count() > 0);  // the history was processed with progress
    QCOMPARE(store.load(entries[0].id)->turns.size(), size_t{3});
    QCOMPARE(qvariant_cast<TurnResult>(done.last().at(0)).stats.prompt_tokens > 0, true);

    // A model switch keeps the conversation going too.
    window.loadDefaultModel();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 2, kTimeoutMs);
    QVERIFY(!window.isReadOnly());
    window.chat()->submit(QStringLiteral("Once more."));
    QTRY_COMPARE_WITH_TIMEOUT(done.count() + failed.count(), 4, kTimeoutMs);
    QCOMPARE(failed.count(), 0);
    QCOMPARE(store.load(entries[0].id)->turns.size(), size_t{4});
  }

  void noConversationLostWhenTheModelFailsToLoad() {
    ConversationStore store(Folder());
    Conversation saved = Sample(QStringLiteral("Keep me"));
    QVERIFY(store.save(saved));
    auto settings = Settings();
    MainWindow window(nullptr, settings.get(), &store);
    QSignalSpy failed(&window, &MainWindow::failed);
    const QString shown = window.chat()->transcriptMarkdown();
    QTemporaryDir empty;
    window.loadModel(empty.path());
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kTimeoutMs);
    QVERIFY(!window.isModelLoaded());
    QVERIFY(window.noticeText().contains(QStringLiteral("Could not load")));
    QCOMPARE(window.sidebar()->visibleTitles(), QStringList({QStringLiteral("Keep me")}));
    QCOMPARE(window.chat()->transcriptMarkdown(), shown);
    QCOMPARE(window.currentConversation().id, saved.id);
    QCOMPARE(store.load(saved.id)->turns.size(), size_t{2});
  }
};

QTEST_MAIN(TestConversationSidebar)
#include "test_conversation_sidebar.moc"
