// The German translation in the real windows (issue 34): the embedded glance_de.qm turns the
// main window's menus, the Settings dialog (its own strings and the settings registry's) and a
// plural into German; without it, the same windows are English (the negative control).
#include <QAction>
#include <QApplication>
#include <QCoreApplication>
#include <QFile>
#include <QLabel>
#include <QLibraryInfo>
#include <QMenu>
#include <QMenuBar>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/chat_preset_bar.h"
#include "ui/conversation_store.h"
#include "ui/main_window.h"
#include "ui/settings_dialog.h"
#include "ui/settings_file.h"
#include "ui/settings_store.h"
#include "ui/timing_panel.h"
#include "ui/translations.h"

using glance::ui::ConversationStore;
using glance::ui::MainWindow;
using glance::ui::SettingsDialog;
using glance::ui::SettingsStore;

namespace {

QStringList MenuTitles(const MainWindow& window) {
  QStringList titles;
  for (const QAction* a : window.menuBar()->actions()) titles << a->text();
  return titles;
}

QStringList FirstMenuItems(const MainWindow& window) {
  QStringList items;
  const QMenu* file = window.menuBar()->actions().value(0)->menu();
  if (file)
    for (const QAction* a : file->actions())
      if (!a->isSeparator()) items << a->text();
  return items;
}

QStringList TabTitles(const SettingsDialog& dialog) {
  QStringList titles;
  if (const auto* tabs = dialog.findChild<QTabWidget*>())
    for (int i = 0; i < tabs->count(); ++i) titles << tabs->tabText(i);
  return titles;
}

bool HasLabel(const QWidget& w, const QString& text) {
  for (const QLabel* l : w.findChildren<QLabel*>())
    if (l->text() == text) return true;
  return false;
}

}  // namespace

class TestTranslationUi : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

  std::unique_ptr<SettingsStore> Settings() const {
    return std::make_unique<SettingsStore>(dir_.filePath(QStringLiteral("glance.json")));
  }

  struct Shown {
    QStringList menus, fileItems, tabs;
    QString settingsTitle;
    bool modelFolderLabel = false;
  };

  Shown Show() const {
    ConversationStore store(dir_.filePath(QStringLiteral("conversations")));
    auto settings = Settings();
    MainWindow window(nullptr, settings.get(), &store);
    SettingsDialog dialog(settings.get());
    Shown s{MenuTitles(window), FirstMenuItems(window), TabTitles(dialog), dialog.windowTitle(), false};
    s.modelFolderLabel = HasLabel(dialog, QCoreApplication::translate("SettingsRegistry", "Model folder"));
    return s;
  }

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    glance::ui::SettingsFile::App()->clear();
    QVERIFY(dir_.isValid());
  }

  void germanIsEmbedded() {
    QVERIFY2(glance::ui::AvailableTranslations().contains(QStringLiteral("de")),
             qPrintable(glance::ui::AvailableTranslations().join(QLatin1Char(','))));
  }

  // Runs first: no translator is installed yet.
  void englishWithoutTranslator() {
    const Shown s = Show();
    QCOMPARE(s.menus.value(0), QStringLiteral("&File"));
    QVERIFY2(s.menus.contains(QStringLiteral("&Help")), qPrintable(s.menus.join(QLatin1Char(','))));
    QVERIFY(s.fileItems.contains(QStringLiteral("&Settings…")));
    QCOMPARE(s.settingsTitle, QStringLiteral("Settings"));
    QVERIFY2(s.tabs.contains(QStringLiteral("Generation")), qPrintable(s.tabs.join(QLatin1Char(','))));
    QVERIFY(s.modelFolderLabel);
    // English plural forms (plurals_en.qm, installed as the application starts), not "(s)".
    QCOMPARE(QCoreApplication::translate("glance::ui::FolderWindow", "%n image(s)", nullptr, 1), QStringLiteral("1 image"));
    QCOMPARE(QCoreApplication::translate("glance::ui::FolderWindow", "%n image(s)", nullptr, 3), QStringLiteral("3 images"));
    QCOMPARE(QCoreApplication::translate("Stats", "%n thread(s)", nullptr, 1), QStringLiteral("1 thread"));
    QCOMPARE(glance::ui::ChatPresetBar::tr("Imported %n chat preset(s) from %1.", nullptr, 2),
             QStringLiteral("Imported 2 chat presets from %1."));
  }

  void otherLanguagesStayEnglish() {
    QCOMPARE(glance::ui::InstallTranslations(QLocale(QLocale::English, QLocale::UnitedStates)), QString());
    QCOMPARE(glance::ui::InstallTranslations(QLocale(QLocale::C)), QString());
    QCOMPARE(glance::ui::InstallTranslations(QLocale(QLocale::Japanese, QLocale::Japan)), QString());
    QCOMPARE(SettingsDialog::tr("Settings"), QStringLiteral("Settings"));
  }

  void germanWithTranslator() {
    QVERIFY(!glance::ui::InstallTranslations(QLocale(QLocale::German, QLocale::Germany)).isEmpty());
    const Shown s = Show();
    QCOMPARE(s.menus.value(0), QStringLiteral("&Datei"));
    QVERIFY2(s.menus.contains(QStringLiteral("&Hilfe")), qPrintable(s.menus.join(QLatin1Char(','))));
    QVERIFY2(s.fileItems.contains(QStringLiteral("Einstellu&ngen…")), qPrintable(s.fileItems.join(QLatin1Char(','))));
    QCOMPARE(s.settingsTitle, QStringLiteral("Einstellungen"));
    // The registry's groups and labels (core/settings/registry.cpp, through glance_settings_strings).
    QVERIFY2(s.tabs.contains(QStringLiteral("Generierung")), qPrintable(s.tabs.join(QLatin1Char(','))));
    QVERIFY(s.modelFolderLabel);
    QCOMPARE(QCoreApplication::translate("SettingsRegistry", "Model folder"), QStringLiteral("Modellordner"));
    // A plural, and strings outside QObject subclasses' own tr().
    QCOMPARE(glance::ui::ChatPresetBar::tr("Imported %n chat preset(s) from %1.", nullptr, 1),
             QStringLiteral("1 Chat-Vorlage aus %1 importiert."));
    QCOMPARE(glance::ui::ChatPresetBar::tr("Imported %n chat preset(s) from %1.", nullptr, 3),
             QStringLiteral("3 Chat-Vorlagen aus %1 importiert."));
    QCOMPARE(QObject::tr("Yesterday"), QStringLiteral("Gestern"));
    QCOMPARE(QCoreApplication::translate("glance::ui::FolderWindow", "%n image(s)", nullptr, 1), QStringLiteral("1 Bild"));
    QCOMPARE(QCoreApplication::translate("glance::ui::FolderWindow", "%n image(s)", nullptr, 3), QStringLiteral("3 Bilder"));
    // The Timing chart's stages (the engine's names are English words).
    {
      glance::ui::TimingPanel timing;
      glance::TurnStats turn;
      turn.stages = {{"preprocess", 0.01, 1}, {"vision", 0.02, 1}, {"prefill", 0.03, 1}, {"decode", 0.04, 9}};
      timing.addTurn(turn);
      QCOMPARE(timing.chartStages(), (QStringList{QStringLiteral("Vorbereitung"), QStringLiteral("Bild"),
                                                  QStringLiteral("Prompt"), QStringLiteral("Ausgabe")}));
    }
    QCOMPARE(QCoreApplication::translate("main", "path"), QStringLiteral("pfad"));
    // A string lupdate used to misread (a hex digit after a \u escape in the source).
    QCOMPARE(QCoreApplication::translate("glance::ui::AttentionPanel", "2\u00D7" "2 patches of each token"),
             QStringLiteral("2\u00D7" "2 Patches je Token"));
    // Qt's own buttons, where the distribution ships qtbase_de.qm.
    if (QFile::exists(QLibraryInfo::path(QLibraryInfo::TranslationsPath) + QStringLiteral("/qtbase_de.qm")))
      QCOMPARE(QCoreApplication::translate("QPlatformTheme", "Cancel"), QStringLiteral("Abbrechen"));
  }
};

QTEST_MAIN(TestTranslationUi)
#include "test_translation_ui.moc"
