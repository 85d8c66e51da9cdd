#include "ui/model_switch_menu.h"

#include <QActionGroup>
#include <QDir>
#include <QFileInfo>
#include <QMenu>

namespace glance::ui {

ModelSwitchButton::ModelSwitchButton(Lister list, QWidget* parent) : QToolButton(parent), list_(std::move(list)) {
  setObjectName(QStringLiteral("modelSwitch"));
  setText(QStringLiteral("\u25BE"));  // a small down arrow: the name beside it is the label
  setAutoRaise(true);
  setToolTip(tr("Switch model"));
  setAccessibleName(tr("Switch model"));
  menu_ = new QMenu(this);
  connect(this, &QToolButton::clicked, this, [this] {
    // Above the button: it sits in the status bar at the window's bottom edge.
    refresh();
    menu_->popup(mapToGlobal(QPoint(0, -menu_->sizeHint().height())));
  });
}

void ModelSwitchButton::refresh() {
  QMenu* m = menu_;
  m->clear();
  QString loaded;
  const std::vector<KnownModel> models = list_ ? list_(&loaded) : std::vector<KnownModel>();
  const QString loadedPath = QFileInfo(loaded).canonicalFilePath();
  auto* group = new QActionGroup(m);
  for (const KnownModel& model : models) {
    if (!model.exists) continue;
    const bool isLoaded = !loadedPath.isEmpty() && model.dir == loadedPath;
    QAction* a = m->addAction(model.name);
    a->setCheckable(true);
    a->setChecked(isLoaded);
    a->setToolTip(QDir::toNativeSeparators(model.dir));
    group->addAction(a);
    const QString dir = model.dir;
    const bool demo = model.kind == KnownModel::Kind::kDemo;
    connect(a, &QAction::triggered, this, [this, dir, demo, isLoaded] {
      // The loaded one again: nothing to do (a reload would drop the chat's cache for nothing).
      if (!isLoaded) Q_EMIT loadRequested(dir, demo);
    });
  }
  if (!models.empty()) m->addSeparator();
  m->addAction(tr("Manage models\u2026"), this, &ModelSwitchButton::manageRequested);
}

}  // namespace glance::ui
