#pragma once
// The folder view's Find and replace in captions (issue 33 item 4), over the folder's caption
// sidecars through core/engine/caption_replace.h, as glance-cli replace: Preview lists every
// change (file, text before, text after); Apply writes them all (the undo journal first); Undo
// puts back the last replace of the folder as one step. changed() tells the view to read the
// captions again.
// GUI thread only.
#include <QDialog>
#include <string>
#include <vector>

#include "core/engine/caption_replace.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTreeWidget;

namespace glance::ui {

class FolderReplaceDialog : public QDialog {
  Q_OBJECT
 public:
  FolderReplaceDialog(const QString& dir, const QString& ext, bool recursive, QWidget* parent = nullptr);

  void setQuery(const QString& find, const QString& with, bool regex = false, bool ignoreCase = false);
  // Each makes a line of status(); false when refused or nothing happened.
  bool preview();
  bool apply();  // applies the previewed changes
  bool undo();
  QString status() const;
  int previewCount() const;  // rows in the preview list
  bool canUndo() const;

 Q_SIGNALS:
  void changed();

 private:
  ReplaceQuery query() const;
  void setStatus(const QString& line);
  void updateButtons();

  QString dir_, ext_;
  bool recursive_;
  QLineEdit* find_ = nullptr;
  QLineEdit* with_ = nullptr;
  QCheckBox* regex_ = nullptr;
  QCheckBox* ignoreCase_ = nullptr;
  QTreeWidget* list_ = nullptr;
  QLabel* status_ = nullptr;
  QPushButton* previewButton_ = nullptr;
  QPushButton* applyButton_ = nullptr;
  QPushButton* undoButton_ = nullptr;
  std::vector<CaptionEdit> edits_;
};

}  // namespace glance::ui
