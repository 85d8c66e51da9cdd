// Caption presets in the folder view (issue 33): the caption dialog offers the built-ins and the
// saved presets and shows the question a preset asks, with a field for each {placeholder}; a preset
// made with New… is saved and offered by a new window (the file glance-cli reads too); Import of a
// bad file is one line naming the field and changes nothing; a damaged saved file is set aside, not
// overwritten; and on the demo model, choosing a preset changes what the run asks (the question,
// length and sampling reaching the engine thread) and so the captions written.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "core/engine/caption_preset.h"
#include "ui/caption_preset_dialog.h"
#include "ui/caption_preset_store.h"
#include "ui/folder_caption_dialog.h"
#include "ui/folder_model.h"
#include "ui/folder_view.h"
#include "ui/main_window.h"

using glance::CaptionPreset;
using glance::CaptionStyle;
using glance::CaptionStyleQuestion;
using glance::ui::CaptionPresetDialog;
using glance::ui::CaptionPresetStore;
using glance::ui::FolderCaptionChoice;
using glance::ui::FolderCaptionDialog;
using glance::ui::FolderWindow;
using glance::ui::MainWindow;

namespace {

constexpr int kTimeoutMs = 120000;
const QString kScenes = QStringLiteral(GLANCE_SOURCE_RESOURCES "/demo-scenes");

QByteArray ReadText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
}

void WriteText(const QString& path, const QByteArray& text) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(text);
}

// A preset of one token with a placeholder, saved in the window's store.
CaptionPreset OneWord() {
  CaptionPreset p;
  p.name = "one-word";
  p.style = CaptionStyle::kShort;
  p.max_tokens = 1;
  p.instructions = "Refer to the place as {place}.";
  return p;
}

class TestFolderViewPresets : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
  void init() {
    QFile::remove(CaptionPresetStore::DefaultPath());
    QFile::remove(CaptionPresetStore::DefaultPath() + QStringLiteral(".unreadable"));
  }

  void dialogShowsTheQuestionAPresetAsks() {
    FolderWindow view(nullptr, {}, {});
    FolderCaptionDialog dialog(FolderCaptionChoice{}, 0, &view.presets());
    auto* prompt = dialog.findChild<QLineEdit*>(QStringLiteral("prompt"));
    QVERIFY(prompt);
    QCOMPARE(dialog.question(), QStringLiteral("Describe this image."));
    auto* asked = dialog.findChild<QPlainTextEdit*>(QStringLiteral("presetQuestion"));
    QVERIFY(asked);
    QVERIFY(!prompt->isHidden() && asked->isHidden());
    dialog.choosePreset(QStringLiteral("tags"));
    QCOMPARE(dialog.question().toStdString(), CaptionStyleQuestion(CaptionStyle::kTags));
    QCOMPARE(asked->toPlainText(), dialog.question());
    QVERIFY(prompt->isHidden() && !asked->isHidden());  // the whole question, not one's own box
    QCOMPARE(dialog.choice().preset, QStringLiteral("tags"));
    // Back to one's own question: what was typed is still there.
    dialog.choosePreset(QString());
    QCOMPARE(dialog.question(), QStringLiteral("Describe this image."));
    QCOMPARE(dialog.choice().preset, QString());
    // Built-ins cannot be edited or deleted.
    dialog.choosePreset(QStringLiteral("short"));
    QVERIFY(!dialog.findChild<QPushButton*>(QStringLiteral("editPreset"))->isEnabled());
    QVERIFY(!dialog.findChild<QPushButton*>(QStringLiteral("deletePreset"))->isEnabled());
  }

  void aPresetMadeWithNewSurvivesANewWindow() {
    {
      FolderWindow view(nullptr, {}, {});
      FolderCaptionDialog dialog(FolderCaptionChoice{}, 0, &view.presets());
      // The editor: a built-in's name is refused in one line naming the field, then a new name is saved.
      QString refused;
      QTimer::singleShot(0, this, [&] {
        auto* editor = qobject_cast<CaptionPresetDialog*>(QApplication::activeModalWidget());
        QVERIFY(editor);
        editor->findChild<QLineEdit*>(QStringLiteral("presetName"))->setText(QStringLiteral("short"));
        editor->accept();
        refused = editor->problem();
        editor->findChild<QLineEdit*>(QStringLiteral("presetName"))->setText(QStringLiteral("portrait"));
        editor->findChild<QPlainTextEdit*>(QStringLiteral("presetInstructions"))
            ->setPlainText(QStringLiteral("Refer to the person as {name}."));
        editor->accept();
      });
      dialog.findChild<QPushButton*>(QStringLiteral("newPreset"))->click();
      QVERIFY2(refused.contains(QStringLiteral("Name: 'short' is a built-in")), qPrintable(refused));
      QCOMPARE(dialog.choice().preset, QStringLiteral("portrait"));
    }
    // On disk where glance-cli looks (the same format), and offered by a new window.
    const auto onDisk = glance::ReadCaptionPresetsFile(CaptionPresetStore::DefaultPath().toStdString());
    QCOMPARE(onDisk.size(), size_t{1});
    QCOMPARE(onDisk[0].instructions, std::string("Refer to the person as {name}."));
    FolderWindow again(nullptr, {}, {});
    FolderCaptionDialog dialog(FolderCaptionChoice{}, 0, &again.presets());
    dialog.choosePreset(QStringLiteral("portrait"));
    QCOMPARE(dialog.choice().preset, QStringLiteral("portrait"));
    auto* name = dialog.findChild<QLineEdit*>(QStringLiteral("var_name"));
    QVERIFY2(name, "no field for {name}");
    name->setText(QStringLiteral("Ada"));
    QCOMPARE(dialog.question().toStdString(), CaptionStyleQuestion(CaptionStyle::kShort) + " Refer to the person as Ada.");
    QCOMPARE(dialog.choice().vars.value(QStringLiteral("name")), QStringLiteral("Ada"));
    QVERIFY(dialog.findChild<QPushButton*>(QStringLiteral("editPreset"))->isEnabled());

    // Edit… renames it and changes its length; Delete (asked first) removes it, from the file too.
    QTimer::singleShot(0, this, [&] {
      auto* editor = qobject_cast<CaptionPresetDialog*>(QApplication::activeModalWidget());
      QVERIFY(editor);
      editor->findChild<QLineEdit*>(QStringLiteral("presetName"))->setText(QStringLiteral("headshot"));
      editor->findChild<QSpinBox*>(QStringLiteral("presetMaxTokens"))->setValue(33);
      editor->accept();
    });
    dialog.findChild<QPushButton*>(QStringLiteral("editPreset"))->click();
    QCOMPARE(dialog.choice().preset, QStringLiteral("headshot"));
    auto edited = glance::ReadCaptionPresetsFile(CaptionPresetStore::DefaultPath().toStdString());
    QCOMPARE(edited.size(), size_t{1});
    QCOMPARE(edited[0].name, std::string("headshot"));
    QCOMPARE(edited[0].max_tokens, 33);
    QTimer::singleShot(0, this, [&] {
      auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
      QVERIFY(box);
      box->button(QMessageBox::Yes)->click();
    });
    dialog.findChild<QPushButton*>(QStringLiteral("deletePreset"))->click();
    QCOMPARE(dialog.choice().preset, QString());
    QVERIFY(again.presets().saved().empty());
    QVERIFY(glance::ReadCaptionPresetsFile(CaptionPresetStore::DefaultPath().toStdString()).empty());
  }

  void importOfABadFileIsOneLineNamingTheField() {
    QTemporaryDir dir;
    FolderWindow view(nullptr, {}, {});
    QString error;
    QVERIFY(view.presets().put(OneWord(), QString(), &error));
    FolderCaptionDialog dialog(FolderCaptionChoice{}, 0, &view.presets());
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    WriteText(bad, R"({"glance_caption_presets": 1, "presets": [{"name": "ok", "style": "tags"},
                     {"name": "x", "style": "short", "max_tokens": -5}]})");
    QVERIFY(!dialog.importFrom(bad));
    QVERIFY2(dialog.problem().contains(QStringLiteral("preset 2 ('x'): field 'max_tokens' must be a whole number")),
             qPrintable(dialog.problem()));
    QVERIFY(!dialog.problem().contains(QLatin1Char('\n')));
    QCOMPARE(view.presets().saved().size(), size_t{1});  // nothing of the bad file was taken

    // A good file: imported, offered, and exported again with the saved ones.
    const QString good = dir.filePath(QStringLiteral("good.json"));
    WriteText(good, R"({"glance_caption_presets": 1, "presets": [{"name": "kw", "style": "tags", "max_tokens": 20}]})");
    QVERIFY(dialog.importFrom(good));
    QVERIFY2(dialog.problem().startsWith(QStringLiteral("Imported 1 preset")), qPrintable(dialog.problem()));
    dialog.choosePreset(QStringLiteral("kw"));
    QCOMPARE(dialog.choice().preset, QStringLiteral("kw"));
    const QString out = dir.filePath(QStringLiteral("out.json"));
    QVERIFY(dialog.exportTo(out));
    const auto exported = glance::ReadCaptionPresetsFile(out.toStdString());
    QCOMPARE(exported.size(), size_t{2});
    QCOMPARE(exported[1].name, std::string("kw"));

    // A saved file damaged by hand is set aside, not overwritten by the next save.
    WriteText(CaptionPresetStore::DefaultPath(), "{ broken");
    CaptionPresetStore store;
    QVERIFY2(store.loadNotice().contains(QStringLiteral("not valid JSON")), qPrintable(store.loadNotice()));
    QCOMPARE(ReadText(CaptionPresetStore::DefaultPath() + QStringLiteral(".unreadable")), QByteArray("{ broken"));
  }

  void choosingAPresetChangesWhatTheRunAsks() {
    QTemporaryDir dir, cache;
    QVERIFY(QFile::copy(kScenes + QStringLiteral("/scene-000.png"), dir.filePath(QStringLiteral("scene-000.png"))));
    MainWindow window;
    QSignalSpy ready(&window, &MainWindow::modelReady);
    window.generateOptions().max_new_tokens = 24;
    window.loadDefaultModel();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, kTimeoutMs);
    FolderWindow view(window.worker(), [&] { return window.generateOptions(); },
                      [&] { return window.isModelLoaded(); }, nullptr, cache.path());
    QVERIFY(view.openFolder(dir.path(), false));
    QString error;
    QVERIFY(view.presets().put(OneWord(), QString(), &error));
    QSignalSpy done(&view, &FolderWindow::captionFinished);
    const QString sidecar = dir.filePath(QStringLiteral("scene-000.txt"));

    // One's own question, the settings' length: a caption of several words.
    FolderCaptionDialog own(FolderCaptionChoice{}, 0, &view.presets());
    FolderCaptionChoice plain = own.choice();
    plain.which = FolderCaptionChoice::Which::kAll;
    plain.existing = QStringLiteral("overwrite");
    QVERIFY(view.startCaption(plain));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, kTimeoutMs);
    QCOMPARE(view.lastRequest().prompt, QStringLiteral("Describe this image."));
    QCOMPARE(view.lastRequest().options.max_new_tokens, 24);
    const QByteArray sentence = ReadText(sidecar);

    // The preset chosen in the dialog, its placeholder left empty: refused, naming it.
    FolderCaptionDialog dialog(plain, 0, &view.presets());
    dialog.choosePreset(QStringLiteral("one-word"));
    FolderCaptionChoice preset = dialog.choice();
    QVERIFY(!view.startCaption(preset));
    QVERIFY2(view.statusText().contains(QStringLiteral("{place}")), qPrintable(view.statusText()));
    dialog.findChild<QLineEdit*>(QStringLiteral("var_place"))->setText(QStringLiteral("the studio"));
    preset = dialog.choice();
    QVERIFY(view.startCaption(preset));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, kTimeoutMs);
    QCOMPARE(view.lastRequest().prompt.toStdString(),
             CaptionStyleQuestion(CaptionStyle::kShort) + " Refer to the place as the studio.");
    QCOMPARE(view.lastRequest().options.max_new_tokens, 1);
    QVERIFY(view.lastRequest().options.sampling && view.lastRequest().options.sampling->greedy);
    const QByteArray word = ReadText(sidecar);
    {  // The preset chosen and its value are what a new window's caption dialog starts with.
      FolderWindow next(nullptr, {}, {});
      QCOMPARE(next.lastChoice().preset, QStringLiteral("one-word"));
      QCOMPARE(next.lastChoice().vars.value(QStringLiteral("place")), QStringLiteral("the studio"));
    }
    QVERIFY2(!word.isEmpty() && word.size() < sentence.size(),
             qPrintable(QStringLiteral("one token: '%1', the sentence: '%2'").arg(QString::fromUtf8(word), QString::fromUtf8(sentence))));

    // A json-style preset: the caption is a JSON object of its schema.
    CaptionPreset colour;
    colour.name = "colour";
    colour.style = CaptionStyle::kJson;
    colour.max_tokens = 40;
    colour.schema = R"({"type":"object","properties":{"colour":{"enum":["red","green","blue","yellow"]}},"required":["colour"],"additionalProperties":false})";
    QVERIFY2(view.presets().put(colour, QString(), &error), qPrintable(error));
    FolderCaptionDialog again(plain, 0, &view.presets());
    again.choosePreset(QStringLiteral("colour"));
    QVERIFY(view.startCaption(again.choice()));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 3, kTimeoutMs);
    QVERIFY(view.lastRequest().json);
    QCOMPARE(done.at(2).at(0).toInt(), 1);  // captioned
    const QByteArray json = ReadText(sidecar);
    const QJsonDocument doc = QJsonDocument::fromJson(json);
    QVERIFY2(doc.isObject() && doc.object().keys() == QStringList{QStringLiteral("colour")}, json.constData());
  }
};

}  // namespace

QTEST_MAIN(TestFolderViewPresets)
#include "test_folder_view_presets.moc"
