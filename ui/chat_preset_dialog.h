#pragma once
// New… / Edit… of a chat preset (issue 34; core/engine/chat_preset.h): name, system prompt,
// temperature (0 = greedy), top-p, top-k, seed (empty: a new one each answer), the answer's
// length, thinking (the model's default, on, off), stop sequences (one a line; empty: the
// Settings' ones) and the image mode (the Settings', fast, detail). OK checks every field and is refused with
// one line naming the field; saving is the caller's (ui/chat_preset_store.h).
// GUI thread only.
#include <QDialog>

#include "core/engine/chat_preset.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace glance::ui {

class ChatPresetDialog : public QDialog {
  Q_OBJECT
 public:
  ChatPresetDialog(const ChatPreset& initial, const QString& title, QWidget* parent = nullptr);
  ChatPreset preset() const;
  QString problem() const;  // the line shown when OK is refused ("" when none)

  void accept() override;

 private:
  void updateEnabled();

  QLineEdit* name_ = nullptr;
  QPlainTextEdit* system_ = nullptr;
  QDoubleSpinBox* temperature_ = nullptr;
  QDoubleSpinBox* topP_ = nullptr;
  QSpinBox* topK_ = nullptr;
  QLineEdit* seed_ = nullptr;
  QSpinBox* maxTokens_ = nullptr;
  QComboBox* thinking_ = nullptr;
  QComboBox* imageMode_ = nullptr;  // "" (Settings'), "fast", "detail"
  QPlainTextEdit* stop_ = nullptr;  // one a line (ParseStopLines)
  QLabel* problem_ = nullptr;
};

}  // namespace glance::ui
