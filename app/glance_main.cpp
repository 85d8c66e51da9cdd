// glance: the desktop app. Thin: the window and its logic live in glance_ui.
#include <QApplication>
#include <QCommandLineParser>
#include <QGuiApplication>
#include <QMessageBox>
#include <QTimer>

#include <cstdio>

#include "ui/data_folder.h"
#include "ui/main_window.h"
#include "ui/settings_file.h"
#include "ui/settings_store.h"
#include "ui/translations.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("Glance"));
  QApplication::setOrganizationName(QStringLiteral("Glance"));
  QApplication::setOrganizationDomain(QStringLiteral("glance.app"));
  QApplication::setDesktopFileName(QStringLiteral("io.github.glance.Glance"));
  QApplication::setApplicationVersion(QStringLiteral(GLANCE_VERSION));
  // German for a German desktop (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), English otherwise.
  glance::ui::InstallTranslations(QLocale::system());

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QCoreApplication::translate("main", "Private, inspectable image captioning and chat with Qwen3.5"));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption model(QStringLiteral("model"),
                                 QCoreApplication::translate("main", "Model folder to load (default: the last "
                                                             "one used, else the demo)."),
                                 QCoreApplication::translate("main", "dir"));
  const QCommandLineOption image(QStringLiteral("image"),
                                 QCoreApplication::translate("main", "Image to attach and describe at start."),
                                 QCoreApplication::translate("main", "path"));
  // For documentation and smoke tests: grab the window after the first answer and exit.
  QCommandLineOption screenshot(QStringLiteral("screenshot"), QStringLiteral("Grab to PATH."),
                                QStringLiteral("path"));
  screenshot.setFlags(QCommandLineOption::HiddenFromHelp);
  parser.addOptions({model, image, screenshot});
  parser.process(app);

  // Before anything reads the settings: a FIFO in place of the settings file would block the
  // start forever.
  if (const QString problem = glance::ui::DefaultSettingsFileProblem(); !problem.isEmpty()) {
    std::fprintf(stderr, "glance: %s\n", qPrintable(problem));
    if (QGuiApplication::platformName() != QStringLiteral("offscreen"))
      QMessageBox::critical(nullptr, QStringLiteral("Glance"), problem);
    return 1;
  }

  // Before anything reads the data folder: what earlier versions kept in the doubled
  // <data>/Glance/Glance moves up to <data>/Glance, the settings that named it with it.
  glance::ui::DataFolderMove moved = glance::ui::MoveDoubledDataFolder(glance::ui::SettingsFile::App().get());
  // The same for the folder view's thumbnails: ~/.cache/Glance/Glance/thumbnails moves to
  // Glance's cache folder, ~/.cache/glance/thumbnails.
  const glance::ui::DataFolderMove thumbnails = glance::ui::MoveDoubledThumbnailCache();
  moved.moved += thumbnails.moved;
  moved.problems += thumbnails.problems;
  for (const QString& line : moved.problems) std::fprintf(stderr, "glance: %s\n", qPrintable(line));

  glance::ui::MainWindow window;
  if (!moved.problems.isEmpty())
    window.showStartProblem(moved.problems.size() == 1
                                ? moved.problems.first()
                                : QObject::tr("%1 (and %2 more: see the terminal)")
                                      .arg(moved.problems.first())
                                      .arg(moved.problems.size() - 1));
  if (parser.isSet(screenshot)) window.setScreenshotPath(parser.value(screenshot));
  window.show();
  if (parser.isSet(model))
    window.loadModel(parser.value(model));
  else if (parser.isSet(screenshot))
    window.loadDefaultModel();  // documentation shots always show the demo
  else
    window.loadLastModel();  // Settings' model folder; the demo when unset or failing
  // Queued after the load on the engine thread, so the image waits for the model.
  if (parser.isSet(image)) window.attachImageFile(parser.value(image), true);
  return QApplication::exec();
}
