#include "ui/chat_preset_bar.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QSignalBlocker>
#include <QStandardItemModel>
#include <QToolButton>

#include "ui/chat_preset_dialog.h"
#include "ui/chat_preset_store.h"
#include "ui/preset_list.h"

namespace glance::ui {
namespace {

QString Q(const std::string& s) { return QString::fromStdString(s); }

// "t 0.7 · top-p 0.9 · 512 tok": the box's tooltip for a preset.
QString Summary(const ChatPreset& p) {
  QStringList parts;
  if (p.temperature <= 0.0f) {
    parts << QObject::tr("greedy");
  } else {
    parts << QObject::tr("temperature %1").arg(QLocale().toString(p.temperature, 'g', 3))
          << QObject::tr("top-p %1").arg(QLocale().toString(p.top_p, 'g', 3));
    if (p.top_k > 0) parts << QObject::tr("top-k %1").arg(p.top_k);
    parts << (p.seed ? QObject::tr("seed %1").arg(*p.seed) : QObject::tr("random seed"));
  }
  parts << QObject::tr("at most %1 tokens").arg(p.max_tokens);
  if (p.thinking) parts << (*p.thinking ? QObject::tr("thinking on") : QObject::tr("thinking off"));
  QString text = parts.join(QStringLiteral(" \u00b7 "));
  if (!p.system_prompt.empty()) text += QStringLiteral("\n") + QObject::tr("System prompt: %1").arg(Q(p.system_prompt));
  return text;
}

QString MissingTip(const QString& name) {
  return QObject::tr("The preset '%1' no longer exists: this chat's answers use the sampling and "
                     "system prompt of File \u25b8 Settings until another preset is chosen.")
      .arg(name);
}

}  // namespace

ChatPresetBar::ChatPresetBar(ChatPresetStore* store, QWidget* parent) : QWidget(parent), store_(store) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  // No Alt key: Send, Stop, Regenerate and Edit took its letters (the box is in the Tab order).
  auto* label = new QLabel(tr("Preset:"), this);
  box_ = new QComboBox(this);
  box_->setObjectName(QStringLiteral("chatPreset"));
  box_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  box_->setAccessibleName(tr("Chat preset"));
  label->setBuddy(box_);
  auto* button = new QToolButton(this);
  button->setObjectName(QStringLiteral("chatPresetMenu"));
  button->setText(tr("Presets"));
  button->setPopupMode(QToolButton::InstantPopup);
  button->setToolButtonStyle(Qt::ToolButtonTextOnly);
  menu_ = new QMenu(tr("C&hat presets"), this);  // every letter of "Presets" is taken in the Chat menu
  menu_->addAction(tr("&New preset\u2026"), this, &ChatPresetBar::newPreset);
  edit_ = menu_->addAction(tr("&Edit preset\u2026"), this, &ChatPresetBar::editPreset);
  menu_->addAction(tr("D&uplicate preset\u2026"), this, &ChatPresetBar::duplicatePreset);
  delete_ = menu_->addAction(tr("&Delete preset"), this, &ChatPresetBar::deletePreset);
  menu_->addSeparator();
  menu_->addAction(tr("&Import presets\u2026"), this, [this] { importFrom(); });
  export_ = menu_->addAction(tr("E&xport presets\u2026"), this, [this] { exportTo(); });
  button->setMenu(menu_);
  row->addWidget(label);
  row->addWidget(box_);
  row->addWidget(button);
  row->addStretch(1);
  reload();
  connect(store_, &ChatPresetStore::changed, this, &ChatPresetBar::reload);
  connect(box_, &QComboBox::activated, this, [this] {
    updateActions();
    Q_EMIT presetChosen(current());
  });
}

QString ChatPresetBar::current() const { return box_->currentData().toString(); }

void ChatPresetBar::setCurrent(const QString& name) {
  const QSignalBlocker block(box_);
  if (box_->count() > missingIndex_) box_->removeItem(missingIndex_);  // the last missing name shown
  int index = box_->findData(name);
  if (index < 0 && !name.isEmpty()) {
    // A chat saved with a preset deleted since: "None" would claim the chat chose Settings, and
    // the name would be lost from sight (importing the preset again brings it back).
    box_->addItem(tr("%1 (deleted)").arg(name), name);
    index = box_->count() - 1;
    box_->setItemData(index, MissingTip(name), Qt::ToolTipRole);
    if (auto* model = qobject_cast<QStandardItemModel*>(box_->model())) model->item(index)->setEnabled(false);
  }
  box_->setCurrentIndex(std::max(0, index));
  updateActions();
}

void ChatPresetBar::reload() {
  const QString keep = current();
  {
    const QSignalBlocker block(box_);
    box_->clear();
    box_->addItem(tr("None (Settings)"), QString());
    box_->setItemData(0, tr("The sampling and system prompt of File \u25b8 Settings"), Qt::ToolTipRole);
    for (const ChatPreset& p : store_->all()) {
      box_->addItem(Q(p.name), Q(p.name));
      box_->setItemData(box_->count() - 1, Summary(p), Qt::ToolTipRole);
    }
    missingIndex_ = box_->count();
  }
  setCurrent(keep);
}

void ChatPresetBar::updateActions() {
  const QString name = current();
  const bool saved = store_->find(name) && !ChatPresetStore::isBuiltIn(name);  // not a deleted one
  edit_->setEnabled(saved);
  delete_->setEnabled(saved);
  export_->setEnabled(!store_->saved().empty());
  const ChatPreset* p = store_->find(name);
  box_->setToolTip(p                ? Summary(*p)
                   : name.isEmpty() ? tr("The sampling and system prompt of File \u25b8 Settings")
                                    : MissingTip(name));
}

bool ChatPresetBar::editInDialog(const ChatPreset& initial, const QString& replacing, const QString& title) {
  ChatPresetDialog dialog(initial, title, this);
  while (dialog.exec() == QDialog::Accepted) {
    QString error;
    const ChatPreset p = dialog.preset();
    if (store_->put(p, replacing, &error)) {
      setCurrent(Q(p.name));
      Q_EMIT presetChosen(current());
      return true;
    }
    QMessageBox::warning(this, title, error);
  }
  return false;
}

bool ChatPresetBar::newPreset() {
  ChatPreset p;
  if (const ChatPreset* shown = store_->find(current())) p = *shown;  // a start from what is chosen
  p.name = CopyName(tr("My preset"), store_->all()).toStdString();
  if (!store_->find(tr("My preset"))) p.name = tr("My preset").toStdString();
  return editInDialog(p, QString(), tr("New chat preset"));
}

bool ChatPresetBar::editPreset() {
  const ChatPreset* p = store_->find(current());
  if (!p || ChatPresetStore::isBuiltIn(current())) return false;
  return editInDialog(*p, current(), tr("Edit chat preset"));
}

bool ChatPresetBar::duplicatePreset() {
  const ChatPreset* shown = store_->find(current());
  ChatPreset p = shown ? *shown : ChatPreset();
  p.name = CopyName(shown ? current() : tr("My preset"), store_->all()).toStdString();
  return editInDialog(p, QString(), tr("Duplicate chat preset"));
}

bool ChatPresetBar::deletePreset() {
  const QString name = current();
  if (name.isEmpty() || ChatPresetStore::isBuiltIn(name)) return false;
  if (confirmDelete_ &&
      QMessageBox::question(this, tr("Delete preset"), tr("Delete the chat preset '%1'?").arg(name),
                            QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) != QMessageBox::Yes)
    return false;
  QString error;
  if (!store_->remove(name, &error)) {
    Q_EMIT problem(error);
    return false;
  }
  setCurrent(QString());
  Q_EMIT presetChosen(QString());
  return true;
}

bool ChatPresetBar::importFrom(QString file) {
  if (file.isEmpty())
    file = QFileDialog::getOpenFileName(this, tr("Import chat presets"), QString(), tr("Chat presets (*.json)"));
  if (file.isEmpty()) return false;
  int count = 0;
  QString error;
  if (!store_->importFile(file, &count, &error)) {
    Q_EMIT problem(error);
    return false;
  }
  Q_EMIT message(tr("Imported %n chat preset(s) from %1.", nullptr, count).arg(file));
  return true;
}

bool ChatPresetBar::exportTo(QString file) {
  if (file.isEmpty())
    file = QFileDialog::getSaveFileName(this, tr("Export chat presets"), tr("chat-presets.json"),
                                        tr("Chat presets (*.json)"));
  if (file.isEmpty()) return false;
  QString error;
  if (!store_->exportFile(file, &error)) {
    Q_EMIT problem(error);
    return false;
  }
  Q_EMIT message(tr("Exported %n chat preset(s) to %1.", nullptr, static_cast<int>(store_->saved().size())).arg(file));
  return true;
}

}  // namespace glance::ui
