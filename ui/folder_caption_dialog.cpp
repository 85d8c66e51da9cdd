#include "ui/folder_caption_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <exception>
#include <map>

#include "core/engine/caption_preset.h"
#include "core/engine/caption_sidecar.h"
#include "ui/caption_preset_dialog.h"
#include "ui/caption_preset_store.h"
#include "ui/remote_endpoint_fields.h"

namespace glance::ui {

FolderCaptionDialog::FolderCaptionDialog(const FolderCaptionChoice& initial, int selected,
                                         CaptionPresetStore* presets, QWidget* parent)
    : QDialog(parent), presets_(presets), vars_(initial.vars) {
  setWindowTitle(tr("Caption into sidecar files"));
  auto* form = form_ = new QFormLayout(this);
  which_ = new QComboBox(this);
  which_->setObjectName(QStringLiteral("which"));
  which_->addItem(tr("The images without a caption"), static_cast<int>(FolderCaptionChoice::Which::kUncaptioned));
  which_->addItem(tr("The whole folder"), static_cast<int>(FolderCaptionChoice::Which::kAll));
  which_->addItem(tr("The selected (%n image(s))", nullptr, selected), static_cast<int>(FolderCaptionChoice::Which::kSelected));
  which_->setCurrentIndex(which_->findData(static_cast<int>(initial.which)));
  form->addRow(tr("&Caption:"), which_);

  preset_ = new QComboBox(this);
  preset_->setObjectName(QStringLiteral("preset"));
  preset_->setToolTip(tr("A caption preset: the question, the caption's length and the sampling "
                         "(glance-cli caption --preset NAME uses the same ones)"));
  form->addRow(tr("Prese&t:"), preset_);
  auto* actions = new QHBoxLayout;
  auto button = [&](const QString& text, const char* name) {
    auto* b = new QPushButton(text, this);
    b->setObjectName(QString::fromLatin1(name));
    b->setAutoDefault(false);
    actions->addWidget(b);
    return b;
  };
  QPushButton* add = button(tr("&New\u2026"), "newPreset");
  edit_ = button(tr("E&dit\u2026"), "editPreset");
  delete_ = button(tr("De&lete"), "deletePreset");
  QPushButton* import = button(tr("&Import\u2026"), "importPresets");
  export_ = button(tr("E&xport\u2026"), "exportPresets");
  actions->addStretch();
  form->addRow(QString(), actions);
  connect(add, &QPushButton::clicked, this, &FolderCaptionDialog::newPreset);
  connect(edit_, &QPushButton::clicked, this, &FolderCaptionDialog::editPreset);
  connect(delete_, &QPushButton::clicked, this, &FolderCaptionDialog::deletePreset);
  connect(import, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getOpenFileName(this, tr("Import caption presets"), QString(),
                                                      tr("Caption presets (*.json);;All files (*)"));
    if (!file.isEmpty()) importFrom(file);
  });
  connect(export_, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getSaveFileName(this, tr("Export caption presets"),
                                                      QStringLiteral("caption-presets.json"),
                                                      tr("Caption presets (*.json)"));
    if (!file.isEmpty()) exportTo(file);
  });

  ownPrompt_ = initial.prompt.isEmpty() ? tr("Describe this image.") : initial.prompt;
  auto* question = new QWidget(this);
  question->setFocusPolicy(Qt::StrongFocus);  // QLabel focuses a buddy only if it takes focus
  auto* questionLayout = new QVBoxLayout(question);
  questionLayout->setContentsMargins(0, 0, 0, 0);
  prompt_ = new QLineEdit(ownPrompt_, question);
  prompt_->setObjectName(QStringLiteral("prompt"));
  connect(prompt_, &QLineEdit::textEdited, this, [this](const QString& text) { ownPrompt_ = text; });
  questionLayout->addWidget(prompt_);
  // Read-only, three lines high: a detailed style's question with instructions is long.
  asked_ = new QPlainTextEdit(question);
  asked_->setObjectName(QStringLiteral("presetQuestion"));
  asked_->setReadOnly(true);
  asked_->setFixedHeight(asked_->fontMetrics().lineSpacing() * 3 + 2 * asked_->frameWidth() +
                         2 * static_cast<int>(asked_->document()->documentMargin()) + 6);
  questionLayout->addWidget(asked_);
  form->addRow(tr("&Question:"), question);

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
  form->addRow(tr("When it &has a caption:"), existing_);
  prefix_ = new QLineEdit(initial.prefix, this);
  prefix_->setObjectName(QStringLiteral("prefix"));
  prefix_->setPlaceholderText(tr("optional trigger word, e.g. sks"));
  form->addRow(tr("&Prefix:"), prefix_);
  replaceEdited_ = new QCheckBox(tr("Also change captions edited by hand"), this);
  replaceEdited_->setObjectName(QStringLiteral("replaceEdited"));
  replaceEdited_->setChecked(initial.replaceEdited);
  form->addRow(QString(), replaceEdited_);
  remote_ = new RemoteEndpointFields(initial.remote, form, this);
  connect(remote_, &RemoteEndpointFields::runOnChanged, this, [this] { adjustSize(); });
  problem_ = new QLabel(this);
  problem_->setObjectName(QStringLiteral("problem"));
  problem_->setWordWrap(true);
  form->addRow(problem_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  start_ = buttons->button(QDialogButtonBox::Ok);
  start_->setText(tr("&Start"));
  connect(buttons, &QDialogButtonBox::accepted, this, &FolderCaptionDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &FolderCaptionDialog::reject);
  form->addRow(buttons);

  connect(preset_, &QComboBox::currentIndexChanged, this, &FolderCaptionDialog::presetChanged);
  fillPresets(initial.preset);
  presetChanged();
  if (presets_ && !presets_->loadNotice().isEmpty()) problem_->setText(presets_->loadNotice());
  setMinimumWidth(560);
}

QString FolderCaptionDialog::currentPreset() const { return preset_->currentData().toString(); }

void FolderCaptionDialog::fillPresets(const QString& select) {
  const QSignalBlocker quiet(preset_);
  preset_->clear();
  preset_->addItem(tr("None: my own question"), QString());
  if (presets_) {
    for (const CaptionPreset& p : BuiltInCaptionPresets())
      preset_->addItem(tr("%1 (built-in)").arg(QString::fromStdString(p.name)), QString::fromStdString(p.name));
    for (const CaptionPreset& p : presets_->saved())
      preset_->addItem(QString::fromStdString(p.name), QString::fromStdString(p.name));
  }
  preset_->setCurrentIndex(std::max(0, preset_->findData(select)));
}

void FolderCaptionDialog::choosePreset(const QString& name) {
  preset_->setCurrentIndex(std::max(0, preset_->findData(name)));
}

void FolderCaptionDialog::presetChanged() {
  const QString name = currentPreset();
  const CaptionPreset* p = presets_ && !name.isEmpty() ? presets_->find(name) : nullptr;
  const bool saved = p && !IsBuiltInCaptionPresetName(p->name);
  edit_->setEnabled(saved);
  delete_->setEnabled(saved);
  export_->setEnabled(presets_ && !presets_->saved().empty());
  prompt_->setVisible(p == nullptr);
  asked_->setVisible(p != nullptr);
  // The Question label's access key goes to whichever of the two is shown.
  prompt_->parentWidget()->setFocusProxy(p == nullptr ? static_cast<QWidget*>(prompt_) : asked_);
  asked_->setToolTip(p ? tr("Asked by the preset (at most %1 tokens, %2); Edit\u2026 changes it")
                              .arg(p->max_tokens)
                              .arg(p->temperature > 0 ? tr("temperature %1").arg(p->temperature) : tr("greedy"))
                        : QString());
  // A field for each {placeholder}, the values typed kept when the preset changes.
  // In the dialog's own form (its label column), right below the question.
  for (auto it = varEdits_.begin(); it != varEdits_.end(); ++it) {
    vars_[it.key()] = it.value()->text();
    form_->removeRow(it.value());
  }
  varEdits_.clear();
  if (p) {
    int row = -1;
    QFormLayout::ItemRole role;
    form_->getWidgetPosition(asked_->parentWidget(), &row, &role);
    for (const std::string& placeholder : CaptionPresetPlaceholders(*p)) {
      const QString key = QString::fromStdString(placeholder);
      auto* edit = new QLineEdit(vars_.value(key), this);
      edit->setObjectName(QStringLiteral("var_") + key);
      edit->setPlaceholderText(tr("fills {%1} in the preset's instructions").arg(key));
      connect(edit, &QLineEdit::textChanged, this, &FolderCaptionDialog::updateQuestion);
      form_->insertRow(++row, QStringLiteral("{%1}:").arg(key), edit);
      varEdits_.insert(key, edit);
    }
    // Tab goes from the preset's question through its fields, then on to the extension.
    QWidget* previous = preset_;
    for (const std::string& placeholder : CaptionPresetPlaceholders(*p)) {
      QWidget* edit = varEdits_.value(QString::fromStdString(placeholder));
      setTabOrder(previous, edit);
      previous = edit;
    }
    setTabOrder(previous, ext_);
  }
  updateQuestion();
  adjustSize();
}

void FolderCaptionDialog::updateQuestion() {
  const QString name = currentPreset();
  const CaptionPreset* p = presets_ && !name.isEmpty() ? presets_->find(name) : nullptr;
  if (!p) {
    prompt_->setText(ownPrompt_);
    asked_->clear();
    return;
  }
  std::map<std::string, std::string> vars;
  for (auto it = varEdits_.begin(); it != varEdits_.end(); ++it) {
    const QString value = it.value()->text();
    vars[it.key().toStdString()] = (value.isEmpty() ? QStringLiteral("{%1}").arg(it.key()) : value).toStdString();
  }
  asked_->setPlainText(QString::fromStdString(CaptionPresetPrompt(*p, vars)));
}

QString FolderCaptionDialog::question() const {
  const QString name = currentPreset();
  return presets_ && !name.isEmpty() && presets_->find(name) ? asked_->toPlainText() : prompt_->text();
}

void FolderCaptionDialog::newPreset() {
  if (!presets_) return;
  CaptionPresetDialog dialog(CaptionPreset(), this);
  if (dialog.exec() != QDialog::Accepted) return;
  QString error;
  const CaptionPreset p = dialog.preset();
  if (!presets_->put(p, QString(), &error)) {
    problem_->setText(error);
    return;
  }
  problem_->clear();
  fillPresets(QString::fromStdString(p.name));
  presetChanged();
}

void FolderCaptionDialog::editPreset() {
  const CaptionPreset* current = presets_ ? presets_->find(currentPreset()) : nullptr;
  if (!current) return;
  const QString old = currentPreset();
  CaptionPresetDialog dialog(*current, this);
  if (dialog.exec() != QDialog::Accepted) return;
  QString error;
  const CaptionPreset p = dialog.preset();
  if (!presets_->put(p, old, &error)) {
    problem_->setText(error);
    return;
  }
  problem_->clear();
  fillPresets(QString::fromStdString(p.name));
  presetChanged();
}

void FolderCaptionDialog::deletePreset() {
  const QString name = currentPreset();
  if (!presets_ || name.isEmpty() || IsBuiltInCaptionPresetName(name.toStdString())) return;
  if (QMessageBox::question(this, tr("Delete caption preset"), tr("Delete the preset '%1'?").arg(name)) !=
      QMessageBox::Yes)
    return;
  QString error;
  if (!presets_->remove(name, &error)) {
    problem_->setText(error);
    return;
  }
  problem_->clear();
  fillPresets(QString());
  presetChanged();
}

bool FolderCaptionDialog::importFrom(const QString& file) {
  if (!presets_) return false;
  QString error;
  int count = 0;
  if (!presets_->importFile(file, &count, &error)) {
    problem_->setText(tr("Import: %1").arg(error));
    return false;
  }
  problem_->setText(tr("Imported %n preset(s) from %1.", nullptr, count).arg(file));
  fillPresets(currentPreset());
  presetChanged();
  return true;
}

bool FolderCaptionDialog::exportTo(const QString& file) {
  if (!presets_) return false;
  QString error;
  if (!presets_->exportFile(file, &error)) {
    problem_->setText(tr("Export: %1").arg(error));
    return false;
  }
  problem_->setText(tr("Exported %n preset(s) to %1.", nullptr, static_cast<int>(presets_->saved().size())).arg(file));
  return true;
}

FolderCaptionChoice FolderCaptionDialog::choice() const {
  FolderCaptionChoice c;
  c.which = static_cast<FolderCaptionChoice::Which>(which_->currentData().toInt());
  c.prompt = ownPrompt_.trimmed().isEmpty() ? tr("Describe this image.") : ownPrompt_.trimmed();
  c.preset = currentPreset();
  for (auto it = varEdits_.begin(); it != varEdits_.end(); ++it) c.vars.insert(it.key(), it.value()->text());
  c.ext = ext_->currentText().trimmed();
  c.existing = existing_->currentData().toString();
  c.prefix = prefix_->text();
  c.replaceEdited = replaceEdited_->isChecked();
  c.remote = remote_->choice();
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
  for (auto it = varEdits_.begin(); it != varEdits_.end(); ++it)
    if (it.value()->text().trimmed().isEmpty()) {
      problem_->setText(tr("{%1}: give the value the preset's instructions use").arg(it.key()));
      it.value()->setFocus();
      return;
    }
  if (checking_) return;
  if (const QString bad = remote_->problem(); !bad.isEmpty()) {
    problem_->setText(bad);
    return;
  }
  if (!remote_->choice().on) {
    QDialog::accept();
    return;
  }
  checking_ = true;
  start_->setEnabled(false);
  problem_->setText(tr("Asking %1…").arg(remote_->choice().url));
  remote_->check([this](const QString& problem) {
    checking_ = false;
    start_->setEnabled(true);
    if (!problem.isEmpty()) {
      problem_->setText(problem);
      return;
    }
    problem_->clear();
    QDialog::accept();
  });
}

}  // namespace glance::ui
