// Issue 34, every window and dialog as it opens and with each page of its tabs:
//  * no two controls shown at once share an access key: with two, Alt+key only moves the focus
//    between them and never presses the button ("Caption a folder" had "&Save to:" and "&Start",
//    so Alt+S never started a run, seen under Xvfb); the menus have their own check
//    (test_main_window_layout);
//  * every labelled field is reached by its label's key;
//  * no icon-only button or drawn widget is nameless to a screen reader.
#include <QAbstractButton>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenuBar>
#include <QPushButton>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QVBoxLayout>
#include <QtTest>

#include "core/engine/caption_preset.h"
#include "core/engine/chat_preset.h"
#include "core/engine/engine.h"
#include "tests/ui/empty_test_profile.h"
#include "ui/caption_folder_dialog.h"
#include "ui/caption_preset_dialog.h"
#include "ui/chat_preset_dialog.h"
#include "ui/conversation_store.h"
#include "ui/download_dialog.h"
#include "ui/folder_caption_dialog.h"
#include "ui/folder_replace_dialog.h"
#include "ui/main_window.h"
#include "ui/model_info_dialog.h"
#include "ui/model_manager_dialog.h"
#include "ui/server_panel.h"
#include "ui/server_request_log.h"
#include "ui/settings_dialog.h"
#include "ui/settings_store.h"
#include "ui/shortcuts_dialog.h"
#include "ui/translations.h"

namespace {

// The access key of a text: the letter after a single '&' ("&&" is a literal ampersand), lower case.
QString AccessKey(const QString& text) {
  for (int i = 0; i + 1 < text.size(); ++i) {
    if (text[i] != QLatin1Char('&')) continue;
    if (text[i + 1] == QLatin1Char('&')) {
      ++i;
      continue;
    }
    return text.mid(i + 1, 1).toLower();
  }
  return {};
}

// "key: owner, owner" for each key that more than one control shown now answers to.
// A window's menu bar titles count too: Alt+F opens File wherever the focus is.
QStringList Clashes(QWidget* root) {
  QMap<QString, QStringList> owners;
  auto add = [&](const QString& text, const QString& what) {
    const QString key = AccessKey(text);
    if (!key.isEmpty()) owners[key] << what;
  };
  if (auto* window = qobject_cast<QMainWindow*>(root))
    for (QAction* menu : window->menuBar()->actions()) add(menu->text(), menu->text());
  for (QWidget* w : root->findChildren<QWidget*>()) {
    if (!w->isVisibleTo(root)) continue;
    if (auto* label = qobject_cast<QLabel*>(w); label && label->buddy()) add(label->text(), label->text());
    if (auto* button = qobject_cast<QAbstractButton*>(w)) add(button->text(), button->text());
    if (auto* group = qobject_cast<QGroupBox*>(w)) add(group->title(), group->title());
    if (auto* tabs = qobject_cast<QTabBar*>(w))
      for (int i = 0; i < tabs->count(); ++i) add(tabs->tabText(i), tabs->tabText(i));
  }
  QStringList clashes;
  for (auto it = owners.cbegin(); it != owners.cend(); ++it)
    if (it.value().size() > 1) clashes << it.key() + QStringLiteral(": ") + it.value().join(QStringLiteral(", "));
  return clashes;
}

// Labels whose access key leads nowhere. QLabel focuses its buddy only if the buddy itself takes
// focus (QLabel::event), and the focus then goes to the end of the buddy's focus proxies: a row
// widget holding a field and its "Choose…" button needs both a focus policy and the field as proxy.
QStringList DeadEnds(QWidget* root) {
  QStringList dead;
  for (QLabel* label : root->findChildren<QLabel*>()) {
    if (!label->isVisibleTo(root) || !label->buddy() || AccessKey(label->text()).isEmpty()) continue;
    QWidget* target = label->buddy();
    while (target->focusProxy()) target = target->focusProxy();
    if (label->buddy()->focusPolicy() == Qt::NoFocus || target->focusPolicy() == Qt::NoFocus)
      dead << label->text();
  }
  return dead;
}

// Controls a screen reader could only call "button" or "graphic": icon-only buttons without an
// accessible name or tool tip, and the app's own drawn widgets (a class of glance::ui with no
// child widgets: the heatmap, the charts, the context meter) without an accessible name.
QStringList Unnamed(QWidget* root) {
  QStringList unnamed;
  for (QWidget* w : root->findChildren<QWidget*>()) {
    if (!w->isVisibleTo(root) || !w->accessibleName().isEmpty()) continue;
    if (auto* b = qobject_cast<QAbstractButton*>(w)) {
      if (b->text().isEmpty() && b->toolTip().isEmpty())
        unnamed << QString::fromLatin1(w->metaObject()->className()) + QLatin1Char(' ') + w->objectName();
    } else if (QByteArray(w->metaObject()->className()).startsWith("glance::ui::") &&
               w->findChildren<QWidget*>().isEmpty()) {
      unnamed << QString::fromLatin1(w->metaObject()->className()) + QLatin1Char(' ') + w->objectName();
    }
  }
  return unnamed;
}

// Shows the dialog and checks it as it opens, then with each page of each of its tab widgets.
void CheckDialog(QWidget* dialog, const char* name) {
  dialog->show();
  QVERIFY2(DeadEnds(dialog).isEmpty(), qPrintable(QString::fromLatin1(name) + QStringLiteral(": ") +
                                                   DeadEnds(dialog).join(QStringLiteral("; "))));
  QVERIFY2(Unnamed(dialog).isEmpty(), qPrintable(QString::fromLatin1(name) + QStringLiteral(": ") +
                                                  Unnamed(dialog).join(QStringLiteral("; "))));
  QVERIFY2(Clashes(dialog).isEmpty(), qPrintable(QString::fromLatin1(name) + QStringLiteral(": ") +
                                                 Clashes(dialog).join(QStringLiteral("; "))));
  for (QTabWidget* tabs : dialog->findChildren<QTabWidget*>()) {
    for (int i = 0; i < tabs->count(); ++i) {
      tabs->setCurrentIndex(i);
      const QStringList clashes = Clashes(dialog);
      QVERIFY2(clashes.isEmpty(), qPrintable(QStringLiteral("%1, tab %2: %3")
                                                 .arg(QString::fromLatin1(name), tabs->tabText(i),
                                                      clashes.join(QStringLiteral("; ")))));
    }
  }
  dialog->hide();
}

}  // namespace

class TestWindowAccess : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void theCheckSeesAClash() {  // negative control: two buttons on S
    QDialog dialog;
    auto* layout = new QVBoxLayout(&dialog);
    auto* label = new QLabel(QStringLiteral("&Save to:"), &dialog);
    auto* edit = new QLineEdit(&dialog);
    label->setBuddy(edit);
    layout->addWidget(label);
    layout->addWidget(edit);
    layout->addWidget(new QPushButton(QStringLiteral("&Start"), &dialog));
    layout->addWidget(new QPushButton(QStringLiteral("Fish && &Chips"), &dialog));
    auto* row = new QWidget(&dialog);  // a field with a button beside it, labelled as a whole
    auto* rowLabel = new QLabel(QStringLiteral("&Folder:"), &dialog);
    rowLabel->setBuddy(row);
    layout->addWidget(rowLabel);
    layout->addWidget(row);
    dialog.show();
    QCOMPARE(DeadEnds(&dialog), QStringList{QStringLiteral("&Folder:")});
    row->setFocusProxy(edit);
    QCOMPARE(DeadEnds(&dialog), QStringList{QStringLiteral("&Folder:")});  // the row takes no focus
    row->setFocusPolicy(Qt::StrongFocus);
    QVERIFY(DeadEnds(&dialog).isEmpty());
    QCOMPARE(Clashes(&dialog), QStringList{QStringLiteral("s: &Save to:, &Start")});
    QCOMPARE(AccessKey(QStringLiteral("Fish && &Chips")), QStringLiteral("c"));
  }

  // Every window and dialog, in English and in German (their own access keys).
  void everyWindow_data() {
    QTest::addColumn<QString>("language");
    QTest::newRow("English") << QString();
    QTest::newRow("German") << QStringLiteral("de_DE");
  }

  void everyWindow() {
    QFETCH(QString, language);
    if (!language.isEmpty()) QVERIFY(!glance::ui::InstallTranslations(QLocale(language)).isEmpty());
    QTemporaryDir dir;
    glance::ui::SettingsStore store(dir.filePath(QStringLiteral("settings.json")));
    {  // the main window's own buttons and dock tabs beside its menu bar
      StartWithAnEmptyTestProfile();
      glance::ui::ConversationStore conversations(dir.filePath(QStringLiteral("conversations")));
      glance::ui::MainWindow window(nullptr, &store, &conversations);
      CheckDialog(&window, "Main window");
    }
    glance::ui::SettingsDialog settings(&store);
    CheckDialog(&settings, "Settings");

    glance::ui::CaptionFolderDialog captionFolder;
    CheckDialog(&captionFolder, "Caption a folder");
    captionFolder.show();  // it opens on its first field, the folder (it opened on the question)
    QVERIFY(QTest::qWaitForWindowActive(&captionFolder));
    QCOMPARE(captionFolder.focusWidget()->objectName(), QStringLiteral("captionFolder"));
    // Its access key reaches the field beside "Choose…": Sa&ve to, Speichern &in.
    QTest::keyClick(captionFolder.focusWidget(), language.isEmpty() ? Qt::Key_V : Qt::Key_I, Qt::AltModifier);
    QCOMPARE(captionFolder.focusWidget()->objectName(), QStringLiteral("captionOutput"));
    captionFolder.hide();

    glance::ui::FolderCaptionDialog sidecars(glance::ui::FolderCaptionChoice{}, 2);
    CheckDialog(&sidecars, "Caption into sidecar files");

    glance::ui::FolderReplaceDialog replace(dir.path(), QStringLiteral("txt"), false);
    CheckDialog(&replace, "Find and replace");

    glance::ui::CaptionPresetDialog captionPreset(glance::CaptionPreset{});
    CheckDialog(&captionPreset, "Caption preset");

    glance::ui::ChatPresetDialog chatPreset(glance::ChatPreset{}, QStringLiteral("New preset"));
    CheckDialog(&chatPreset, "Chat preset");

    glance::ui::DownloadDialog download;
    CheckDialog(&download, "Download a model");

    glance::ui::ModelManagerDialog manager({dir.path(), {dir.path()}, {}, dir.filePath(QStringLiteral("cache")), {}});
    CheckDialog(&manager, "Manage models");

    glance::ModelInfo info;
    glance::ui::ModelInfoDialog modelInfo(info, true);
    CheckDialog(&modelInfo, "Model info");

    glance::ui::ServerRequestLog log;
    glance::ui::ServerPanel server(&log);
    CheckDialog(&server, "Local server");

    QMenuBar menus;
    menus.addMenu(QStringLiteral("&File"))->addAction(QStringLiteral("&Open"));
    glance::ui::ShortcutsDialog shortcuts(&menus);
    CheckDialog(&shortcuts, "Keyboard shortcuts");
  }
};

QTEST_MAIN(TestWindowAccess)
#include "test_window_access.moc"
