#include "ui/shortcuts_dialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QTableWidget>
#include <QVBoxLayout>

namespace glance::ui {
namespace {

QString Plain(QString text) {
  text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
  text.remove(QLatin1Char('&'));
  text.replace(QStringLiteral("\x01"), QStringLiteral("&"));
  return text;
}

void CollectMenu(const QMenu* menu, const QString& where, std::vector<ShortcutRow>* rows) {
  for (const QAction* action : menu->actions()) {
    if (action->menu() != nullptr) {
      CollectMenu(action->menu(), where + QStringLiteral(" \u25B8 ") + Plain(action->text()), rows);
      continue;
    }
    QStringList keys;
    for (const QKeySequence& key : action->shortcuts())
      if (!key.isEmpty()) keys << key.toString(QKeySequence::NativeText);
    if (!keys.isEmpty()) rows->push_back({where, Plain(action->text()), keys.join(QStringLiteral(", "))});
  }
}

}  // namespace

std::vector<ShortcutRow> CollectShortcuts(const QMenuBar* menus) {
  std::vector<ShortcutRow> rows;
  if (menus != nullptr)
    for (const QAction* top : menus->actions())
      if (top->menu() != nullptr) CollectMenu(top->menu(), Plain(top->text()), &rows);
  const QString box = QObject::tr("Message box"), words = QObject::tr("Attention");
  rows.push_back({box, QObject::tr("Send"), QObject::tr("Enter")});
  rows.push_back({box, QObject::tr("New line"), QObject::tr("Shift+Enter")});
  rows.push_back({box, QObject::tr("Cancel editing"), QObject::tr("Esc")});
  rows.push_back({box, QObject::tr("Attach the image on the clipboard"),
                  QKeySequence(QKeySequence::Paste).toString(QKeySequence::NativeText)});
  rows.push_back({words, QObject::tr("Previous / next word"), QObject::tr("Left / Right")});
  rows.push_back({words, QObject::tr("Zoom the heatmap"), QObject::tr("Wheel, + / \u2212, 0 resets")});
  rows.push_back({QObject::tr("Everywhere"), QObject::tr("Next / previous control"), QObject::tr("Tab / Shift+Tab")});
  return rows;
}

ShortcutsDialog::ShortcutsDialog(const QMenuBar* menus, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Keyboard shortcuts"));
  auto* layout = new QVBoxLayout(this);
  const std::vector<ShortcutRow> rows = CollectShortcuts(menus);
  auto* table = new QTableWidget(static_cast<int>(rows.size()), 3, this);
  table->setHorizontalHeaderLabels({tr("Where"), tr("Action"), tr("Keys")});
  table->verticalHeader()->setVisible(false);
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setAccessibleName(tr("Keyboard shortcuts"));
  for (int r = 0; r < table->rowCount(); ++r) {
    const ShortcutRow& row = rows[static_cast<size_t>(r)];
    table->setItem(r, 0, new QTableWidgetItem(row.where));
    table->setItem(r, 1, new QTableWidgetItem(row.what));
    table->setItem(r, 2, new QTableWidgetItem(row.keys));
  }
  table->resizeColumnsToContents();
  table->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(table);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  const int em = fontMetrics().height();
  resize(em * 36, em * 30);
}

}  // namespace glance::ui
