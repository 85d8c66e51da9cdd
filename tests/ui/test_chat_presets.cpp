// Chat presets (issue 34): the store in the settings file (saved, reread, a bad stored list set
// aside), Import/Export as JSON with one-line errors naming the file and the field, the preset box,
// and the window applying the chosen preset to the next message (its seed, length and system
// prompt), keeping it with the chat and offering it to new chats (the demo model).
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <functional>

#include "core/engine/chat_preset.h"
#include "ui/chat_preset_bar.h"
#include "ui/chat_preset_dialog.h"
#include "ui/chat_preset_store.h"
#include "ui/chat_view.h"
#include "ui/conversation_store.h"
#include "ui/main_window.h"
#include "ui/settings_file.h"

using glance::ChatPreset;
using glance::TurnResult;
using glance::ui::ChatPresetBar;
using glance::ui::ChatPresetStore;
using glance::ui::MainWindow;
using glance::ui::SettingsFile;

namespace {

constexpr int kTimeoutMs = 120000;

ChatPreset Preset(const char* name, float temperature, int max_tokens, std::optional<uint64_t> seed = {},
                  const char* system = "") {
  ChatPreset p;
  p.name = name;
  p.temperature = temperature;
  p.max_tokens = max_tokens;
  p.seed = seed;
  p.system_prompt = system;
  return p;
}

void Write(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(bytes);
}

TurnResult Answer(MainWindow& window, const std::function<void()>& ask) {
  QSignalSpy done(&window, &MainWindow::turnCompleted);
  QSignalSpy failed(&window, &MainWindow::failed);
  ask();
  [&] { QTRY_COMPARE_WITH_TIMEOUT(done.count() + failed.count(), 1, kTimeoutMs); }();
  if (!failed.isEmpty()) qWarning() << failed.first().at(0).toString();
  return done.isEmpty() ? TurnResult{} : qvariant_cast<TurnResult>(done.last().at(0));
}

}  // namespace

class TestChatPresets : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  // Saved in the settings file, read back by a new store; refused names and fields; the default.
  void storeKeepsPresetsInTheSettingsFile() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("settings.json"));
    {
      ChatPresetStore store(SettingsFile::Open(path));
      QString error;
      QVERIFY2(store.put(Preset("Short", 0.5f, 40, 7, "Be brief."), QString(), &error), qPrintable(error));
      QVERIFY(store.put(Preset("Long", 0.0f, 2000), QString(), &error));
      QVERIFY(!store.put(Preset("Short", 0.1f, 10), QString(), &error));
      QVERIFY2(error.contains(QStringLiteral("exists already")), qPrintable(error));
      QVERIFY(!store.put(Preset("Precise", 0.1f, 10), QString(), &error));  // a built-in's name
      QVERIFY(!store.put(Preset("Hot", 3.0f, 10), QString(), &error));
      QVERIFY2(error.contains(QStringLiteral("field 'temperature'")), qPrintable(error));
      QVERIFY(store.put(Preset("Longer", 0.0f, 3000), QStringLiteral("Long"), &error));  // edited, renamed
      store.setDefaultPreset(QStringLiteral("Short"));
      QVERIFY(SettingsFile::Open(path)->save(&error));
    }
    ChatPresetStore reread(SettingsFile::Open(path));
    QCOMPARE(reread.saved().size(), size_t{2});
    QCOMPARE(reread.saved()[0], Preset("Short", 0.5f, 40, 7, "Be brief."));
    QCOMPARE(reread.saved()[1].name, std::string("Longer"));
    QCOMPARE(reread.defaultPreset(), QStringLiteral("Short"));
    QCOMPARE(reread.all().size(), glance::BuiltInChatPresets().size() + 2);
    QString error;
    QVERIFY(reread.remove(QStringLiteral("Short"), &error));
    QCOMPARE(reread.defaultPreset(), QString());  // a deleted default is no longer offered
  }

  // A hand edit gone wrong: the list is set aside (not overwritten by the next save), one line.
  void unreadableStoredListIsSetAsideWithOneLine() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("settings.json"));
    {
      auto file = SettingsFile::Open(path);
      file->setValue(QString::fromLatin1(ChatPresetStore::kSavedKey),
                     QStringLiteral(R"({"glance_chat_presets": 1, "presets": [{"name": "x", "top_p": "high"}]})"));
      QVERIFY(file->save());
    }
    auto file = SettingsFile::Open(path);
    ChatPresetStore store(file);
    QVERIFY(store.saved().empty());
    QVERIFY2(!store.loadNotice().contains(QLatin1Char('\n')), qPrintable(store.loadNotice()));
    QVERIFY2(store.loadNotice().contains(QStringLiteral("field 'top_p' must be a number")) &&
                 store.loadNotice().contains(path),
             qPrintable(store.loadNotice()));
    QVERIFY(file->value(QString::fromLatin1(ChatPresetStore::kSavedKey) + QStringLiteral(".unreadable"))
                .toString()
                .contains(QStringLiteral("high")));
  }

  // Export writes JSON another store imports; a malformed file is one line naming it and the field.
  void importAndExportAsJson() {
    QTemporaryDir dir;
    ChatPresetStore a(SettingsFile::Open(dir.filePath(QStringLiteral("a.json"))));
    QString error;
    ChatPreset thinking = Preset("Thinker", 0.8f, 900, {}, "Think first.");
    thinking.top_k = 20;
    thinking.thinking = true;
    thinking.stop = {"\n\nUser:", "END"};  // stop sequences travel with the preset
    thinking.image_mode = glance::ImageMode::kDetail;  // and the image mode
    QVERIFY(a.put(thinking, QString(), &error));
    QVERIFY(a.put(Preset("Greedy", 0.0f, 64), QString(), &error));
    const QString out = dir.filePath(QStringLiteral("export.json"));
    QVERIFY2(a.exportFile(out, &error), qPrintable(error));

    ChatPresetStore b(SettingsFile::Open(dir.filePath(QStringLiteral("b.json"))));
    ChatPresetBar bar(&b);
    bar.setConfirmDelete(false);
    QSignalSpy problems(&bar, &ChatPresetBar::problem);
    QVERIFY(bar.importFrom(out));
    QCOMPARE(b.saved(), a.saved());
    QVERIFY(b.find(QStringLiteral("Thinker")));
    QCOMPARE(b.find(QStringLiteral("Thinker"))->stop, thinking.stop);
    QVERIFY(b.find(QStringLiteral("Thinker"))->image_mode == glance::ImageMode::kDetail);
    QVERIFY(!b.find(QStringLiteral("Greedy"))->image_mode);  // none: the Settings' mode
    QCOMPARE(bar.box()->count(), 1 + static_cast<int>(glance::BuiltInChatPresets().size()) + 2);  // none, built-ins, 2

    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    Write(bad, R"({"glance_chat_presets": 1, "presets": [{"name": "ok"}, {"name": "y", "max_tokens": 0}]})");
    QVERIFY(!bar.importFrom(bad));
    QCOMPARE(problems.count(), 1);
    const QString line = problems.last().at(0).toString();
    QVERIFY2(line.contains(bad) && line.contains(QStringLiteral("preset 2 ('y')")) &&
                 line.contains(QStringLiteral("field 'max_tokens'")) && !line.contains(QLatin1Char('\n')),
             qPrintable(line));
    // A stop list that is not a list of strings, or has an empty one: one line naming the field.
    for (const QByteArray& stop : {QByteArray(R"("stop": "END")"), QByteArray(R"("stop": ["ok", 3])"),
                                   QByteArray(R"("stop": ["ok", ""])")}) {
      Write(bad, R"({"glance_chat_presets": 1, "presets": [{"name": "s", )" + stop + "}]}");
      QVERIFY(!bar.importFrom(bad));
      const QString why = problems.last().at(0).toString();
      QVERIFY2(why.contains(QStringLiteral("field 'stop'")) && !why.contains(QLatin1Char('\n')), qPrintable(why));
    }
    for (const QByteArray& mode : {QByteArray(R"("image_mode": "huge")"), QByteArray(R"("image_mode": 1)")}) {
      Write(bad, R"({"glance_chat_presets": 1, "presets": [{"name": "m", )" + mode + "}]}");
      QVERIFY(!bar.importFrom(bad));
      const QString why = problems.last().at(0).toString();
      QVERIFY2(why.contains(QStringLiteral("field 'image_mode'")) && why.contains(QStringLiteral("fast, detail")) &&
                   !why.contains(QLatin1Char('\n')),
               qPrintable(why));
    }
    Write(bad, "{not json");
    QVERIFY(!bar.importFrom(bad));
    QVERIFY(problems.last().at(0).toString().startsWith(bad));
    Write(bad, R"({"glance_caption_presets": 1, "presets": []})");  // the other kind of preset
    QVERIFY(!bar.importFrom(bad));
    QVERIFY2(problems.last().at(0).toString().contains(QStringLiteral("not a chat presets file")),
             qPrintable(problems.last().at(0).toString()));
    QCOMPARE(b.saved().size(), size_t{2});  // nothing changed

    bar.setCurrent(QStringLiteral("Greedy"));
    QVERIFY(bar.deletePreset());
    QCOMPARE(b.saved().size(), size_t{1});
    QCOMPARE(bar.current(), QString());
    bar.setCurrent(QStringLiteral("Precise"));
    QVERIFY(!bar.deletePreset());  // a built-in stays
  }

  // A chat's preset deleted since is named as deleted, not shown as "None (Settings)", and is
  // not offered; choosing another or none drops the entry.
  void aDeletedPresetIsNamedNotNone() {
    QTemporaryDir dir;
    ChatPresetStore store(SettingsFile::Open(dir.filePath(QStringLiteral("s.json"))));
    QString error;
    QVERIFY(store.put(Preset("Sailor", 0.7f, 50), QString(), &error));
    ChatPresetBar bar(&store);
    const int listed = bar.box()->count();
    bar.setCurrent(QStringLiteral("Sailor"));
    QVERIFY(store.remove(QStringLiteral("Sailor"), &error));  // as from another window or a file edit
    QCOMPARE(bar.current(), QStringLiteral("Sailor"));
    QCOMPARE(bar.box()->currentText(), QStringLiteral("Sailor (deleted)"));
    QVERIFY(bar.box()->toolTip().contains(QStringLiteral("no longer exists")));
    const auto* model = qobject_cast<QStandardItemModel*>(bar.box()->model());
    QVERIFY(model && !model->item(bar.box()->currentIndex())->isEnabled());
    QVERIFY(!bar.menu()->actions().at(1)->isEnabled());  // Edit: nothing to edit
    QCOMPARE(bar.box()->count(), listed);  // the deleted entry replaces Sailor's
    bar.setCurrent(QStringLiteral("Gone too"));
    QCOMPARE(bar.box()->count(), listed);  // one missing entry at a time
    bar.setCurrent(QStringLiteral("Precise"));
    QCOMPARE(bar.box()->count(), listed - 1);
    QCOMPARE(bar.box()->findText(QStringLiteral("Gone too (deleted)")), -1);
    bar.setCurrent(QString());
    QCOMPARE(bar.box()->currentText(), QStringLiteral("None (Settings)"));
  }

  // The dialog's stop sequences: one a line with escapes, saved with the preset; a bad line is
  // refused in one line naming the field and the line.
  void dialogEditsStopSequences() {
    ChatPreset initial = Preset("S", 0.7f, 100);
    initial.stop = {"\n\n", "END"};
    glance::ui::ChatPresetDialog dialog(initial, QStringLiteral("Edit"));
    auto* stop = dialog.findChild<QPlainTextEdit*>(QStringLiteral("presetStop"));
    QVERIFY(stop);
    QCOMPARE(stop->toPlainText(), QStringLiteral("\\n\\n\nEND"));
    stop->setPlainText(QStringLiteral("User:\nbad \\q"));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    QCOMPARE(dialog.problem(), QStringLiteral("Stop sequences: line 2: unknown escape \\q; use \\n, \\t or \\\\"));
    stop->setPlainText(QStringLiteral("User:\n\\n---"));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(dialog.preset().stop, (std::vector<std::string>{"User:", "\n---"}));
    // Applied: a preset's own stop sequences replace the Settings' ones; none keeps them.
    glance::GenerateOptions options;
    options.stop = {"from settings"};
    glance::ApplyChatPreset(Preset("none", 0.7f, 10), options);
    QCOMPARE(options.stop, std::vector<std::string>{"from settings"});
    glance::ApplyChatPreset(dialog.preset(), options);
    QCOMPARE(options.stop, dialog.preset().stop);
  }

  void dialogSetsTheImageMode() {
    ChatPreset initial = Preset("I", 0.7f, 100);
    initial.image_mode = glance::ImageMode::kDetail;
    glance::ui::ChatPresetDialog dialog(initial, QStringLiteral("Edit"));
    auto* mode = dialog.findChild<QComboBox*>(QStringLiteral("presetImageMode"));
    QVERIFY(mode);
    QCOMPARE(mode->currentIndex(), 2);
    QVERIFY(dialog.preset().image_mode == glance::ImageMode::kDetail);
    mode->setCurrentIndex(1);
    QVERIFY(dialog.preset().image_mode == glance::ImageMode::kFast);
    mode->setCurrentIndex(0);
    QVERIFY(!dialog.preset().image_mode);
    glance::ui::ChatPresetDialog none(Preset("J", 0.7f, 100), QStringLiteral("New"));
    QCOMPARE(none.findChild<QComboBox*>(QStringLiteral("presetImageMode"))->currentIndex(), 0);
  }

  void dialogRefusesABadSeedInOneLine() {
    glance::ui::ChatPresetDialog dialog(Preset("A", 0.7f, 100), QStringLiteral("Edit"));
    dialog.findChild<QLineEdit*>(QStringLiteral("presetSeed"))->setText(QStringLiteral("-3"));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    QVERIFY2(dialog.problem().startsWith(QStringLiteral("Seed:")), qPrintable(dialog.problem()));
    dialog.findChild<QLineEdit*>(QStringLiteral("presetSeed"))->setText(QStringLiteral("12"));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(dialog.preset().seed, std::optional<uint64_t>(12));
  }

  // A preset's image mode reads the next image so (the Settings' mode, fast, otherwise).
  void presetImageModeReadsTheNextImage() {
    QTemporaryDir dir;
    glance::ui::ConversationStore conversations(dir.filePath(QStringLiteral("chats")));
    MainWindow window(nullptr, nullptr, &conversations);
    window.setConfirmDetail(false);
    QString error;
    ChatPreset sharp = Preset("Sharp", 0.0f, 4);
    sharp.image_mode = glance::ImageMode::kDetail;
    QVERIFY(window.chatPresets()->put(sharp, QString(), &error));
    QSignalSpy ready(&window, &MainWindow::modelReady);
    window.loadDefaultModel();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, kTimeoutMs);
    window.newChat();
    window.chooseChatPreset(QString());
    QVERIFY(window.imageMode() == glance::ImageMode::kFast);  // Settings' default
    Answer(window, [&] { QVERIFY(!window.tryDemoScene().isEmpty()); });
    QVERIFY(window.currentConversation().turns.at(0).images.at(0).mode == glance::ImageMode::kFast);
    window.newChat();
    window.chooseChatPreset(QStringLiteral("Sharp"));
    QVERIFY(window.imageMode() == glance::ImageMode::kDetail);
    Answer(window, [&] { QVERIFY(!window.tryDemoScene().isEmpty()); });
    QVERIFY(window.currentConversation().turns.at(0).images.at(0).mode == glance::ImageMode::kDetail);
    window.chooseChatPreset(QString());
    QVERIFY(window.imageMode() == glance::ImageMode::kFast);
  }

  // The window: the chosen preset's seed and length are what the next answer used, its system
  // prompt is the chat's, the chat keeps it when reopened, and new chats start with it.
  void windowAppliesThePresetAndKeepsItWithTheChat() {
    QTemporaryDir dir;
    glance::ui::ConversationStore conversations(dir.filePath(QStringLiteral("chats")));
    QString id;
    {
      MainWindow window(nullptr, nullptr, &conversations);
      window.setConfirmDetail(false);
      QString error;
      QVERIFY(window.chatPresets()->put(Preset("Tiny", 0.6f, 3, 4242, "Answer like a sailor."), QString(), &error));
      QSignalSpy ready(&window, &MainWindow::modelReady);
      window.loadDefaultModel();
      QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, kTimeoutMs);
      window.newChat();
      // Chosen in the box as a user would.
      QComboBox* box = window.presetBar()->box();
      const int tiny = box->findData(QStringLiteral("Tiny"));
      QVERIFY(tiny > 0);
      box->setCurrentIndex(tiny);
      Q_EMIT box->activated(tiny);
      QCOMPARE(window.currentConversation().preset, QStringLiteral("Tiny"));
      QCOMPARE(window.currentConversation().system_prompt, QStringLiteral("Answer like a sailor."));
      const TurnResult first = Answer(window, [&] { QVERIFY(!window.tryDemoScene().isEmpty()); });
      QCOMPARE(first.stats.seed, std::optional<uint64_t>(4242));
      QVERIFY2(first.stats.generated_tokens <= 3, qPrintable(QString::number(first.stats.generated_tokens)));
      QVERIFY(window.currentConversation().turns[0].images[0].mode == glance::ImageMode::kFast);  // Settings'
      QVERIFY(window.imageMode() == glance::ImageMode::kFast);
      id = window.currentConversation().id;
      QVERIFY(!id.isEmpty());
      // None: the Settings' sampling again (greedy here), from the next message.
      window.generateOptions().sampling = glance::SamplingParams::Greedy();
      window.generateOptions().max_new_tokens = 5;
      window.chooseChatPreset(QString());
      QCOMPARE(window.turnOptions().max_new_tokens, 5);
      QVERIFY(!window.turnOptions().seed);
      window.chooseChatPreset(QStringLiteral("Tiny"));
      const TurnResult second = Answer(window, [&] { window.chat()->submit(QStringLiteral("And the colour?")); });
      QCOMPARE(second.stats.seed, std::optional<uint64_t>(4242));
    }
    // Saved with the conversation.
    const std::optional<glance::ui::Conversation> saved = conversations.load(id);
    QVERIFY(saved);
    QCOMPARE(saved->preset, QStringLiteral("Tiny"));
    QCOMPARE(saved->system_prompt, QStringLiteral("Answer like a sailor."));
    // A new window (same settings file): the newest chat reopens with its preset; New chat starts
    // with the last one chosen.
    MainWindow restarted(nullptr, nullptr, &conversations);
    QTRY_COMPARE(restarted.currentConversation().id, id);
    QCOMPARE(restarted.presetBar()->current(), QStringLiteral("Tiny"));
    QCOMPARE(restarted.turnOptions().seed, std::optional<uint64_t>(4242));
    restarted.chooseChatPreset(QStringLiteral("Precise"));
    restarted.newChat();
    QCOMPARE(restarted.presetBar()->current(), QStringLiteral("Precise"));
    QCOMPARE(restarted.currentConversation().preset, QStringLiteral("Precise"));
    QCOMPARE(restarted.turnOptions().max_new_tokens, 512);
    QVERIFY(restarted.openConversation(id));
    QCOMPARE(restarted.presetBar()->current(), QStringLiteral("Tiny"));
    // Its preset deleted: the chat says so and answers with the Settings' sampling.
    restarted.newChat();
    QString error;
    QVERIFY(restarted.chatPresets()->remove(QStringLiteral("Tiny"), &error));
    QVERIFY(restarted.openConversation(id));
    QCOMPARE(restarted.presetBar()->box()->currentText(), QStringLiteral("Tiny (deleted)"));
    QVERIFY(restarted.turnOptions().seed != std::optional<uint64_t>(4242));
  }
};

QTEST_MAIN(TestChatPresets)
#include "test_chat_presets.moc"
