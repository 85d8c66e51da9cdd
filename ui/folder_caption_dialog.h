#pragma once
// The folder view's "Caption…" (issue 33): which images (the whole folder, the ones without a
// caption, the selected ones), what to ask — a caption preset (core/engine/caption_preset.h:
// built-in or saved, with New…, Edit…, Delete, Import… and Export… of the saved ones,
// ui/caption_preset_store.h) with a field for each {placeholder} of its instructions, or a
// question of one's own — and the sidecar options of glance-cli caption --sidecar: extension,
// what to do with an existing caption (skip, overwrite, append, prepend), a prefix (trigger word),
// and whether captions edited by hand may be changed; and where the run happens: this computer or
// an OpenAI-compatible endpoint (ui/remote_endpoint_fields.h), which Start asks first, so a wrong
// URL, a dead server or a refused key is one line here rather than a failed run.
// GUI thread only.
#include <QDialog>
#include <QMap>
#include <QString>

#include "ui/remote_endpoint.h"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QWidget;

namespace glance::ui {

class CaptionPresetStore;
class RemoteEndpointFields;

struct FolderCaptionChoice {
  enum class Which { kAll, kUncaptioned, kSelected };
  Which which = Which::kUncaptioned;
  QString prompt;  // the question of one's own (used when `preset` is empty)
  QString preset;  // a caption preset's name; its question, length and sampling are used
  QMap<QString, QString> vars;  // the preset's {placeholders}
  QString ext = QStringLiteral(".txt");
  QString existing = QStringLiteral("skip");  // as --existing
  QString prefix;
  bool replaceEdited = false;
  RemoteEndpointChoice remote;  // remote.on: through an OpenAI-compatible endpoint
};

class FolderCaptionDialog : public QDialog {
  Q_OBJECT
 public:
  // `presets`: the saved presets, changed in place by New/Edit/Delete/Import (must outlive this);
  // null: no presets offered, only a question of one's own.
  FolderCaptionDialog(const FolderCaptionChoice& initial, int selected, CaptionPresetStore* presets = nullptr,
                      QWidget* parent = nullptr);
  FolderCaptionChoice choice() const;
  QString problem() const;  // the line shown when OK is refused or a preset action failed ("" when none)
  QString question() const;  // what each image will be asked, as shown

  // Refuses a bad extension, an empty placeholder or a bad endpoint field, naming it; with an
  // endpoint, asks the server first (Start waits, off the GUI thread) and stays open with the one
  // line why when it does not answer or refuses the key.
  void accept() override;
  bool isCheckingEndpoint() const { return checking_; }

  // The buttons' work after their file dialog (tests call them directly).
  bool importFrom(const QString& file);
  bool exportTo(const QString& file);
  void choosePreset(const QString& name);  // "" = the question of one's own

 private:
  void fillPresets(const QString& select);
  void presetChanged();
  void updateQuestion();
  void newPreset();
  void editPreset();
  void deletePreset();
  QString currentPreset() const;

  CaptionPresetStore* presets_;
  QComboBox* which_ = nullptr;
  QComboBox* preset_ = nullptr;
  QPushButton* edit_ = nullptr;
  QPushButton* delete_ = nullptr;
  QPushButton* export_ = nullptr;
  QFormLayout* form_ = nullptr;
  QLineEdit* prompt_ = nullptr;  // the question of one's own
  QPlainTextEdit* asked_ = nullptr;  // or, in its place, the question a preset asks (whole, wrapped)
  QString ownPrompt_;            // the question of one's own, kept while a preset is shown
  QMap<QString, QLineEdit*> varEdits_;
  QMap<QString, QString> vars_;  // values typed, kept across preset changes
  QComboBox* ext_ = nullptr;
  QComboBox* existing_ = nullptr;
  QLineEdit* prefix_ = nullptr;
  QCheckBox* replaceEdited_ = nullptr;
  RemoteEndpointFields* remote_ = nullptr;
  QLabel* problem_ = nullptr;
  QPushButton* start_ = nullptr;
  bool checking_ = false;
};

}  // namespace glance::ui
