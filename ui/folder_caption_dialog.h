#pragma once
// The folder view's "Caption…" (issue 33): which images (the whole folder, the ones without a
// caption, the selected ones), the question, and the sidecar options of glance-cli caption
// --sidecar: extension, what to do with an existing caption (skip, overwrite, append, prepend),
// a prefix (trigger word), and whether captions edited by hand may be changed.
// GUI thread only.
#include <QDialog>
#include <QString>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace glance::ui {

struct FolderCaptionChoice {
  enum class Which { kAll, kUncaptioned, kSelected };
  Which which = Which::kUncaptioned;
  QString prompt;
  QString ext = QStringLiteral(".txt");
  QString existing = QStringLiteral("skip");  // as --existing
  QString prefix;
  bool replaceEdited = false;
};

class FolderCaptionDialog : public QDialog {
  Q_OBJECT
 public:
  FolderCaptionDialog(const FolderCaptionChoice& initial, int selected, QWidget* parent = nullptr);
  FolderCaptionChoice choice() const;
  QString problem() const;  // the line shown when OK is refused ("" when none)

  void accept() override;  // refuses a bad extension, naming it

 private:
  QComboBox* which_ = nullptr;
  QLineEdit* prompt_ = nullptr;
  QComboBox* ext_ = nullptr;
  QComboBox* existing_ = nullptr;
  QLineEdit* prefix_ = nullptr;
  QCheckBox* replaceEdited_ = nullptr;
  QLabel* problem_ = nullptr;
};

}  // namespace glance::ui
