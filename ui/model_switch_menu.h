#pragma once
// The status bar's model switcher (issue 34 'switch from the status bar'): a small button beside
// the model's name whose menu lists the models Glance knows (ui/known_models.h: the demo, the
// downloaded ones, folders opened before), the loaded one checked, then Manage models…. The list
// is read from disk each time the menu opens, so a download or delete shows at once.
// GUI thread only.
#include <QToolButton>

class QMenu;
#include <functional>

#include "ui/known_models.h"

namespace glance::ui {

class ModelSwitchButton : public QToolButton {
  Q_OBJECT
 public:
  // `list`: the models and the loaded one's folder, asked at each opening.
  using Lister = std::function<std::vector<KnownModel>(QString* loadedDir)>;
  ModelSwitchButton(Lister list, QWidget* parent = nullptr);

  // Fills the menu now (it is filled as it opens; tests call this).
  void refresh();
  QMenu* modelMenu() const { return menu_; }

 Q_SIGNALS:
  void loadRequested(const QString& dir, bool demo);
  void manageRequested();

 private:
  Lister list_;
  // Not QToolButton::setMenu: that draws a second arrow beside the button's own.
  QMenu* menu_ = nullptr;
};

}  // namespace glance::ui
