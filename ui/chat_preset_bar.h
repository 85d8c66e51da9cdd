#pragma once
// The preset box under the message box (issue 34): "Preset: [Precise ▾] [Presets ▾]". The box
// offers "None (Settings)" (the sampling and system prompt of File ▸ Settings), the built-ins and
// the saved presets (ui/chat_preset_store.h); choosing one emits presetChosen. The menu (also in
// Chat ▸ Chat presets) has New…, Edit…, Duplicate…, Delete, Import… and Export… (JSON); a built-in is
// duplicated rather than edited or deleted. A failed import or save is one line through problem().
// GUI thread only.
#include <QWidget>

#include "core/engine/chat_preset.h"

class QComboBox;
class QMenu;
class QAction;

namespace glance::ui {

class ChatPresetStore;

class ChatPresetBar : public QWidget {
  Q_OBJECT
 public:
  ChatPresetBar(ChatPresetStore* store, QWidget* parent = nullptr);

  // The preset shown ("" = none); setting it emits nothing. A name no longer in the store (a
  // reopened chat's deleted preset) shows as "NAME (deleted)", not choosable, and stays current().
  QString current() const;
  void setCurrent(const QString& name);
  QComboBox* box() const { return box_; }
  QMenu* menu() const { return menu_; }

  // The menu's commands, callable directly (tests). Each opens its dialog, except those given a
  // file; false when cancelled or refused (then problem() was emitted where there was one).
  bool newPreset();
  bool editPreset();
  bool duplicatePreset();
  bool deletePreset();
  bool importFrom(QString file = QString());
  bool exportTo(QString file = QString());
  // Delete asks first (tests turn it off).
  void setConfirmDelete(bool on) { confirmDelete_ = on; }

 Q_SIGNALS:
  void presetChosen(const QString& name);
  void problem(const QString& message);
  void message(const QString& message);  // "Imported 2 presets from ..."

 private:
  void reload();
  void updateActions();
  // Shows the editor for `initial` until it is saved into the store or cancelled.
  bool editInDialog(const ChatPreset& initial, const QString& replacing, const QString& title);

  ChatPresetStore* store_;
  QComboBox* box_ = nullptr;
  QMenu* menu_ = nullptr;
  QAction* edit_ = nullptr;
  QAction* delete_ = nullptr;
  QAction* export_ = nullptr;
  bool confirmDelete_ = true;
  int missingIndex_ = 0;  // where a missing name's item goes: after the store's presets
};

}  // namespace glance::ui
