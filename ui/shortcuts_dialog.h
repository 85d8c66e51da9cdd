#pragma once
// Help ▸ Keyboard shortcuts: every menu action that has a shortcut, read from the menus
// themselves (so the list cannot go stale), plus the keys that belong to one widget (Enter in
// the message box, Left/Right on the word chips, …). GUI thread only.
#include <QDialog>
#include <QString>
#include <QStringList>
#include <vector>

class QMenuBar;

namespace glance::ui {

struct ShortcutRow {
  QString where;  // "Chat", "File", or the widget
  QString what;   // the action's text, mnemonics removed
  QString keys;   // as the platform writes them
};

// The menus' actions with shortcuts (submenus included), then the widget keys.
std::vector<ShortcutRow> CollectShortcuts(const QMenuBar* menus);

class ShortcutsDialog : public QDialog {
  Q_OBJECT
 public:
  ShortcutsDialog(const QMenuBar* menus, QWidget* parent = nullptr);
};

}  // namespace glance::ui
