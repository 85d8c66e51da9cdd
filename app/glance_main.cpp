// glance: the desktop app. Thin: the window and its logic live in glance_ui.
#include <QApplication>

#include "ui/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("Glance"));
  QApplication::setOrganizationName(QStringLiteral("Glance"));
  QApplication::setOrganizationDomain(QStringLiteral("glance.app"));
  QApplication::setDesktopFileName(QStringLiteral("io.github.glance.Glance"));
  QApplication::setApplicationVersion(QStringLiteral(GLANCE_VERSION));
  glance::ui::MainWindow window;
  window.show();
  return QApplication::exec();
}
