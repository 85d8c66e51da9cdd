#include "ui/main_window.h"

namespace glance::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(QStringLiteral("Glance"));
  resize(1200, 800);
}

}  // namespace glance::ui
