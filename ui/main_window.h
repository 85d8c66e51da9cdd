#pragma once
// The main window: chat, image and attention, timing (see docs/design.md "The window").
#include <QMainWindow>

namespace glance::ui {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
};

}  // namespace glance::ui
