#include "ui/folder_caption_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <exception>

#include "core/engine/caption_sidecar.h"
#include "ui/folder_model.h"  // CountOf

namespace glance::ui {

FolderCaptionDialog::FolderCaptionDialog(const FolderCaptionChoice& initial, int selected, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(tr("Caption into sidecar files"));
  auto* form = new QFormLayout(this);
  which_ = new QComboBox(this);
  which_->setObjectName(QStringLiteral("which"));
  which_->addItem(tr("The images without a caption"), static_cast<int>(FolderCaptionChoice::Which::kUncaptioned));
  which_->addItem(tr("The whole folder"), static_cast<int>(FolderCaptionChoice::Which::kAll));
  which_->addItem(tr("The selected (%1)").arg(CountOf(selected, tr("image"), tr("images"))), static_cast<int>(FolderCaptionChoice::Which::kSelected));
  which_->setCurrentIndex(which_->findData(static_cast<int>(initial.which)));
  form->addRow(tr("&Caption:"), which_);
  prompt_ = new QLineEdit(initial.prompt.isEmpty() ? tr("Describe this image.") : initial.prompt, this);
  prompt_->setObjectName(QStringLiteral("prompt"));
  form->addRow(tr("&Question:"), prompt_);
  ext_ = new QComboBox(this);
  ext_->setObjectName(QStringLiteral("ext"));
  ext_->setEditable(true);
  ext_->addItems({QStringLiteral(".txt"), QStringLiteral(".caption")});
  ext_->setCurrentText(initial.ext);
  ext_->setToolTip(tr("photo.jpg \u2192 photo.txt, the layout image-model trainers read"));
  form->addRow(tr("Sidecar &extension:"), ext_);
  existing_ = new QComboBox(this);
  existing_->setObjectName(QStringLiteral("existing"));
  existing_->addItem(tr("Skip the image"), QStringLiteral("skip"));
  existing_->addItem(tr("Overwrite it"), QStringLiteral("overwrite"));
  existing_->addItem(tr("Append the new caption"), QStringLiteral("append"));
  existing_->addItem(tr("Prepend the new caption"), QStringLiteral("prepend"));
  existing_->setCurrentIndex(std::max(0, existing_->findData(initial.existing)));
  form->addRow(tr("When it has a &caption:"), existing_);
  prefix_ = new QLineEdit(initial.prefix, this);
  prefix_->setObjectName(QStringLiteral("prefix"));
  prefix_->setPlaceholderText(tr("optional trigger word, e.g. sks"));
  form->addRow(tr("&Prefix:"), prefix_);
  replaceEdited_ = new QCheckBox(tr("Also change captions edited by hand"), this);
  replaceEdited_->setObjectName(QStringLiteral("replaceEdited"));
  replaceEdited_->setChecked(initial.replaceEdited);
  form->addRow(QString(), replaceEdited_);
  problem_ = new QLabel(this);
  problem_->setObjectName(QStringLiteral("problem"));
  problem_->setWordWrap(true);
  form->addRow(problem_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("&Start"));
  connect(buttons, &QDialogButtonBox::accepted, this, &FolderCaptionDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &FolderCaptionDialog::reject);
  form->addRow(buttons);
}

FolderCaptionChoice FolderCaptionDialog::choice() const {
  FolderCaptionChoice c;
  c.which = static_cast<FolderCaptionChoice::Which>(which_->currentData().toInt());
  c.prompt = prompt_->text().trimmed().isEmpty() ? tr("Describe this image.") : prompt_->text().trimmed();
  c.ext = ext_->currentText().trimmed();
  c.existing = existing_->currentData().toString();
  c.prefix = prefix_->text();
  c.replaceEdited = replaceEdited_->isChecked();
  return c;
}

QString FolderCaptionDialog::problem() const { return problem_->text(); }

void FolderCaptionDialog::accept() {
  try {
    CheckSidecarExtension(ext_->currentText().trimmed().toStdString());
  } catch (const std::exception& e) {
    problem_->setText(tr("Sidecar extension: %1").arg(QString::fromUtf8(e.what())));
    return;
  }
  QDialog::accept();
}

}  // namespace glance::ui
