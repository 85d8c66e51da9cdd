#include "ui/caption_folder_dialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>
#include <cmath>

#include "core/engine/caption_folder.h"
#include "core/text/json_grammar.h"
#include "core/util/error.h"
#include "core/util/read_file.h"

namespace glance::ui {
namespace {

// A line edit with a "Choose…" button after it.
QWidget* WithChooser(QLineEdit* edit, QPushButton* button) {
  auto* row = new QWidget;
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(edit, 1);
  layout->addWidget(button);
  // The row label's access key (its buddy is the row) reaches the field: QLabel gives its buddy
  // the focus only if the buddy itself takes focus, and the proxy passes it on to the field.
  row->setFocusPolicy(edit->focusPolicy());
  row->setFocusProxy(edit);
  return row;
}

}  // namespace

QString DescribeEta(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s < 60) return QObject::tr("about %1 s left").arg(s);
  if (s < 3600) return QObject::tr("about %1 min left").arg((s + 30) / 60);
  return QObject::tr("about %1 h %2 min left").arg(s / 3600).arg((s % 3600) / 60);
}

CaptionFolderDialog::CaptionFolderDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Caption a folder"));
  setObjectName(QStringLiteral("captionFolderDialog"));
  folder_ = new QLineEdit(this);
  folder_->setObjectName(QStringLiteral("captionFolder"));
  folder_->setPlaceholderText(tr("A folder of images"));
  output_ = new QLineEdit(this);
  output_->setObjectName(QStringLiteral("captionOutput"));
  output_->setPlaceholderText(tr("captions.jsonl or captions.csv"));
  prompt_ = new QLineEdit(tr("Describe this image."), this);
  auto* chooseFolder = new QPushButton(tr("Choose\u2026"), this);
  auto* chooseOutput = new QPushButton(tr("Choose\u2026"), this);
  schema_ = new QLineEdit(this);
  schema_->setPlaceholderText(tr("Optional: a JSON schema file, for JSON captions"));
  schema_->setToolTip(tr("Each caption becomes a JSON document this schema accepts (constrained decoding), "
                         "written into the .jsonl as JSON"));
  auto* chooseSchema = new QPushButton(tr("Choose\u2026"), this);
  connect(chooseSchema, &QPushButton::clicked, this, &CaptionFolderDialog::chooseSchema);
  connect(chooseFolder, &QPushButton::clicked, this, &CaptionFolderDialog::chooseFolder);
  connect(chooseOutput, &QPushButton::clicked, this, &CaptionFolderDialog::chooseOutput);

  auto* form = new QFormLayout;
  form->addRow(tr("&Folder:"), WithChooser(folder_, chooseFolder));
  form->addRow(tr("Sa&ve to:"), WithChooser(output_, chooseOutput));
  form->addRow(tr("&Question:"), prompt_);
  form->addRow(tr("JSON s&chema:"), WithChooser(schema_, chooseSchema));

  bar_ = new QProgressBar(this);
  bar_->setRange(0, 1);
  bar_->setValue(0);
  status_ = new QLabel(tr("Images already in the output file are skipped, so a stopped run "
                          "continues where it stopped."), this);
  status_->setWordWrap(true);
  log_ = new QPlainTextEdit(this);
  log_->setReadOnly(true);
  log_->setPlaceholderText(tr("Captions and skipped files appear here."));

  auto* buttons = new QDialogButtonBox(this);
  start_ = buttons->addButton(tr("&Start"), QDialogButtonBox::ActionRole);
  stop_ = buttons->addButton(tr("S&top"), QDialogButtonBox::ActionRole);
  QPushButton* closeButton = buttons->addButton(QDialogButtonBox::Close);
  connect(start_, &QPushButton::clicked, this, &CaptionFolderDialog::start);
  connect(stop_, &QPushButton::clicked, this, &CaptionFolderDialog::stop);
  connect(closeButton, &QPushButton::clicked, this, &CaptionFolderDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(bar_);
  layout->addWidget(status_);
  layout->addWidget(log_, 1);
  layout->addWidget(buttons);
  const int em = fontMetrics().height();
  resize(em * 36, em * 24);
  setRunning(false);
  // Top to bottom. The rows moved the fields into row widgets, which put them after the question
  // in the focus chain, so the dialog opened with the question focused instead of the folder.
  setTabOrder(folder_, chooseFolder);
  setTabOrder(chooseFolder, output_);
  setTabOrder(output_, chooseOutput);
  setTabOrder(chooseOutput, prompt_);
  setTabOrder(prompt_, schema_);
  setTabOrder(schema_, chooseSchema);
  folder_->setFocus();
}

void CaptionFolderDialog::setFolder(const QString& dir) {
  folder_->setText(dir);
  if (output_->text().isEmpty() && !dir.isEmpty())
    output_->setText(QDir(dir).filePath(QStringLiteral("captions.jsonl")));
}

void CaptionFolderDialog::setOutput(const QString& path) { output_->setText(path); }
QString CaptionFolderDialog::folder() const { return folder_->text().trimmed(); }
QString CaptionFolderDialog::output() const { return output_->text().trimmed(); }
QString CaptionFolderDialog::statusText() const { return status_->text(); }
void CaptionFolderDialog::setSchemaPath(const QString& path) { schema_->setText(path); }
QString CaptionFolderDialog::schemaPath() const { return schema_->text().trimmed(); }

void CaptionFolderDialog::chooseSchema() {
  const QString path = QFileDialog::getOpenFileName(this, tr("JSON schema"), schemaPath().isEmpty() ? folder() : schemaPath(),
                                                    tr("JSON schemas (*.json);;All files (*)"));
  if (!path.isEmpty()) schema_->setText(path);
}
QString CaptionFolderDialog::logText() const { return log_->toPlainText(); }

void CaptionFolderDialog::chooseFolder() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder of images"), folder());
  if (!dir.isEmpty()) setFolder(dir);
}

void CaptionFolderDialog::chooseOutput() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Save captions to"), output().isEmpty() ? folder() : output(),
      tr("JSON Lines (*.jsonl);;CSV (*.csv)"), nullptr, QFileDialog::DontConfirmOverwrite);
  if (!path.isEmpty()) output_->setText(path);  // an existing file is resumed, not replaced
}

void CaptionFolderDialog::start() {
  if (running_) return;
  if (folder().isEmpty() || !QFileInfo(folder()).isDir()) {
    status_->setText(tr("Choose a folder of images first."));
    return;
  }
  try {
    CaptionFormatForPath(output().toStdString());
  } catch (const Error&) {
    status_->setText(tr("Save to a file ending in .jsonl or .csv."));
    return;
  }
  // The schema is read and compiled here, so a bad one says why before anything starts.
  QString schemaText;
  if (!schemaPath().isEmpty()) {
    try {
      const std::string path = schemaPath().toStdString();
      const std::string text = ReadWholeFile(path, "cannot read the JSON schema " + path);
      text::CompileJsonSchemaText(text, path);
      schemaText = QString::fromStdString(text);
    } catch (const std::exception& e) {
      status_->setText(tr("JSON schema %1: %2").arg(schemaPath(), QString::fromStdString(e.what())));
      return;
    }
    if (!output().endsWith(QStringLiteral(".jsonl"), Qt::CaseInsensitive)) {
      status_->setText(tr("JSON captions go to a .jsonl file (one JSON object per image)."));
      return;
    }
  }
  log_->clear();
  bar_->setRange(0, 0);  // busy until the first progress (hashing the folder)
  status_->setText(tr("Reading the folder\u2026"));
  setRunning(true);
  Q_EMIT startRequested(folder(), output(),
                        prompt_->text().trimmed().isEmpty() ? tr("Describe this image.") : prompt_->text().trimmed(),
                        schemaText);
}

void CaptionFolderDialog::stop() {
  if (!running_) return;
  status_->setText(tr("Stopping\u2026"));
  stop_->setEnabled(false);
  Q_EMIT stopRequested();
}

void CaptionFolderDialog::onProgress(int done, int total, const QString& file, double etaSeconds) {
  if (!running_) return;
  bar_->setRange(0, std::max(1, total));
  bar_->setValue(done);
  QString text = tr("%1 of %2").arg(done).arg(total);
  if (!file.isEmpty()) text += tr(" \u00B7 %1").arg(file);
  if (etaSeconds >= 0) text += QStringLiteral(" \u00B7 ") + DescribeEta(etaSeconds);
  if (stop_->isEnabled()) status_->setText(text);
}

void CaptionFolderDialog::onItem(const QString& file, const QString& text, bool ok) {
  if (!running_) return;  // the folder view's run (ui/folder_view.h) reports through the same signals
  log_->appendPlainText(ok ? tr("%1: %2").arg(file, text) : tr("skipped %1: %2").arg(file, text));
}

void CaptionFolderDialog::onFinished(int captioned, int alreadyDone, int skipped, bool stopped) {
  if (!running_) return;  // not this dialog's run
  setRunning(false);
  bar_->setRange(0, 1);
  bar_->setValue(stopped ? 0 : 1);
  QString text = stopped ? tr("Stopped: %1 captioned, saved in %2. Start again to continue.")
                               .arg(captioned).arg(QFileInfo(output()).fileName())
                         : tr("Done: %1 captioned, saved in %2.")
                               .arg(captioned).arg(QFileInfo(output()).fileName());
  if (alreadyDone > 0) text += tr(" %1 were already there.").arg(alreadyDone);
  if (skipped > 0) text += tr(" %1 skipped (see the list).").arg(skipped);
  status_->setText(text);
}

void CaptionFolderDialog::onFailed(const QString& message) {
  if (!running_) return;  // not this dialog's run
  setRunning(false);
  bar_->setRange(0, 1);
  bar_->setValue(0);
  status_->setText(message);
}

void CaptionFolderDialog::reject() {
  stop();  // a closed dialog must not leave the engine busy
  QDialog::reject();
}

void CaptionFolderDialog::setRunning(bool on) {
  running_ = on;
  start_->setEnabled(!on);
  stop_->setEnabled(on);
  folder_->setEnabled(!on);
  output_->setEnabled(!on);
  prompt_->setEnabled(!on);
  schema_->setEnabled(!on);
}

}  // namespace glance::ui
