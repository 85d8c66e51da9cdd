#include "ui/folder_replace_dialog.h"

#include <QCheckBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>


namespace glance::ui {

FolderReplaceDialog::FolderReplaceDialog(const QString& dir, const QString& ext, bool recursive, QWidget* parent)
    : QDialog(parent), dir_(dir), ext_(ext), recursive_(recursive) {
  setWindowTitle(tr("Find and replace in captions"));
  resize(760, 480);
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  find_ = new QLineEdit(this);
  find_->setObjectName(QStringLiteral("find"));
  with_ = new QLineEdit(this);
  with_->setObjectName(QStringLiteral("with"));
  form->addRow(tr("&Find:"), find_);
  form->addRow(tr("Replace &with:"), with_);
  auto* options = new QHBoxLayout;
  regex_ = new QCheckBox(tr("&Regular expression ($1 names a group)"), this);
  ignoreCase_ = new QCheckBox(tr("&Ignore case"), this);
  options->addWidget(regex_);
  options->addWidget(ignoreCase_);
  options->addStretch();
  form->addRow(options);
  layout->addLayout(form);
  list_ = new QTreeWidget(this);
  list_->setObjectName(QStringLiteral("preview"));
  list_->setHeaderLabels({tr("Caption file"), tr("Now"), tr("After")});
  list_->setRootIsDecorated(false);
  list_->setWordWrap(true);
  list_->header()->setSectionResizeMode(QHeaderView::Interactive);
  list_->setColumnWidth(0, 160);
  list_->setColumnWidth(1, 280);
  layout->addWidget(list_, 1);
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("status"));
  status_->setWordWrap(true);
  layout->addWidget(status_);
  auto* buttons = new QHBoxLayout;
  previewButton_ = new QPushButton(tr("&Preview"), this);
  applyButton_ = new QPushButton(tr("&Apply"), this);
  undoButton_ = new QPushButton(tr("&Undo the last replace"), this);
  auto* close = new QPushButton(tr("Close"), this);
  buttons->addWidget(previewButton_);
  buttons->addWidget(applyButton_);
  buttons->addStretch();
  buttons->addWidget(undoButton_);
  buttons->addWidget(close);
  layout->addLayout(buttons);
  previewButton_->setDefault(true);
  connect(previewButton_, &QPushButton::clicked, this, [this] { preview(); });
  connect(applyButton_, &QPushButton::clicked, this, [this] { apply(); });
  connect(undoButton_, &QPushButton::clicked, this, [this] { undo(); });
  connect(close, &QPushButton::clicked, this, &QDialog::reject);
  // A preview is of one query: changing it asks for a new one before Apply.
  for (QLineEdit* e : {find_, with_})
    connect(e, &QLineEdit::textEdited, this, [this] {
      edits_.clear();
      list_->clear();
      updateButtons();
    });
  for (QCheckBox* c : {regex_, ignoreCase_})
    connect(c, &QCheckBox::toggled, this, [this] {
      edits_.clear();
      list_->clear();
      updateButtons();
    });
  updateButtons();
}

void FolderReplaceDialog::setQuery(const QString& find, const QString& with, bool regex, bool ignoreCase) {
  find_->setText(find);
  with_->setText(with);
  regex_->setChecked(regex);
  ignoreCase_->setChecked(ignoreCase);
  edits_.clear();
  list_->clear();
  updateButtons();
}

ReplaceQuery FolderReplaceDialog::query() const {
  ReplaceQuery q;
  q.find = find_->text().toStdString();
  q.with = with_->text().toStdString();
  q.regex = regex_->isChecked();
  q.ignore_case = ignoreCase_->isChecked();
  return q;
}

bool FolderReplaceDialog::preview() {
  edits_.clear();
  list_->clear();
  try {
    std::vector<std::string> unreadable;
    const std::vector<std::string> sidecars = FindSidecars(dir_.toStdString(), ext_.toStdString(), recursive_);
    edits_ = PlanReplace(sidecars, query(), &unreadable);
    int matches = 0;
    const QDir dir(dir_);
    for (const CaptionEdit& e : edits_) {
      auto* row = new QTreeWidgetItem(list_);
      row->setText(0, dir.relativeFilePath(QString::fromStdString(e.path)));
      const QString before = QString::fromStdString(e.before), after = QString::fromStdString(e.after);
      // From a little before the first change, so the change shows in a narrow column.
      qsizetype same = 0;
      while (same < before.size() && same < after.size() && before[same] == after[same]) ++same;
      qsizetype from = std::max<qsizetype>(0, same - 24);
      while (from > 0 && !before[from - 1].isSpace()) --from;  // at a word's start
      const QString lead = from > 0 ? QStringLiteral("\u2026") : QString();
      row->setText(1, lead + before.mid(from));
      row->setText(2, lead + after.mid(from));
      row->setToolTip(1, before);
      row->setToolTip(2, after);
      matches += e.matches;
    }
    QString line = edits_.empty()
                       ? tr("None of the %n caption file(s) matches.", nullptr, static_cast<int>(sidecars.size()))
                       : tr("%1 in %2; Apply writes them all.")
                             .arg(tr("%n change(s)", nullptr, matches),
                                  tr("%n caption file(s)", nullptr, static_cast<int>(edits_.size())));
    if (!unreadable.empty())
      line += QLatin1Char(' ') + tr("Not read: %1").arg(QString::fromStdString(unreadable.front()));
    setStatus(line);
  } catch (const std::exception& e) {
    setStatus(QString::fromUtf8(e.what()).replace(QStringLiteral("--find"), tr("Find"))
                  .replace(QStringLiteral("--with"), tr("Replace with")));
  }
  updateButtons();
  return !edits_.empty();
}

bool FolderReplaceDialog::apply() {
  if (edits_.empty()) return false;
  bool ok = false;
  try {
    const ReplaceOutcome out = ApplyReplace(dir_.toStdString(), edits_);
    QString line = tr("Changed %n caption file(s).", nullptr, out.changed);
    if (!out.skipped.empty())
      line += QLatin1Char(' ') + tr("Left %n file(s) changed since the preview", nullptr, static_cast<int>(out.skipped.size())) +
              QStringLiteral(": ") + QString::fromStdString(out.skipped.front());
    setStatus(line);
    ok = out.changed > 0;
  } catch (const std::exception& e) {
    setStatus(QString::fromUtf8(e.what()));
  }
  edits_.clear();
  list_->clear();
  updateButtons();
  Q_EMIT changed();
  return ok;
}

bool FolderReplaceDialog::undo() {
  bool ok = false;
  try {
    const ReplaceOutcome out = UndoReplace(dir_.toStdString());
    QString line = tr("Undone: %n caption file(s) put back.", nullptr, out.changed);
    if (!out.skipped.empty())
      line += QLatin1Char(' ') + tr("Left %n file(s) edited since", nullptr, static_cast<int>(out.skipped.size())) +
              QStringLiteral(": ") + QString::fromStdString(out.skipped.front());
    setStatus(line);
    ok = true;
  } catch (const std::exception& e) {
    setStatus(QString::fromUtf8(e.what()));
  }
  edits_.clear();
  list_->clear();
  updateButtons();
  Q_EMIT changed();
  return ok;
}

QString FolderReplaceDialog::status() const { return status_->text(); }
int FolderReplaceDialog::previewCount() const { return list_->topLevelItemCount(); }

bool FolderReplaceDialog::canUndo() const {
  return QFileInfo::exists(QString::fromStdString(UndoJournalPath(dir_.toStdString())));
}

void FolderReplaceDialog::setStatus(const QString& line) { status_->setText(line); }

void FolderReplaceDialog::updateButtons() {
  applyButton_->setEnabled(!edits_.empty());
  undoButton_->setEnabled(canUndo());
}

}  // namespace glance::ui
