#pragma once
// New… / Edit… of a caption preset (issue 33; core/engine/caption_preset.h), from the folder
// view's caption dialog: name, style, length, extra instructions with {placeholders}, a JSON schema
// (json style only) and the sampling (temperature 0 = greedy; top-p and seed when sampling). OK
// checks every field and is refused with one line naming the field; saving is the caller's
// (ui/caption_preset_store.h).
// GUI thread only.
#include <QDialog>

#include "core/engine/caption_preset.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace glance::ui {

class CaptionPresetDialog : public QDialog {
  Q_OBJECT
 public:
  CaptionPresetDialog(const CaptionPreset& initial, QWidget* parent = nullptr);
  CaptionPreset preset() const;
  QString problem() const;  // the line shown when OK is refused ("" when none)

  void accept() override;

 private:
  void updateEnabled();

  QLineEdit* name_ = nullptr;
  QComboBox* style_ = nullptr;
  QSpinBox* maxTokens_ = nullptr;
  QPlainTextEdit* instructions_ = nullptr;
  QPlainTextEdit* schema_ = nullptr;
  QDoubleSpinBox* temperature_ = nullptr;
  QDoubleSpinBox* topP_ = nullptr;
  QLineEdit* seed_ = nullptr;
  QLabel* problem_ = nullptr;
};

}  // namespace glance::ui
