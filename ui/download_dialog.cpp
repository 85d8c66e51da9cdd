#include "ui/download_dialog.h"

#include <QDialogButtonBox>
#include <algorithm>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QStorageInfo>
#include <QVBoxLayout>

#include "ui/model_download.h"

namespace glance::ui {

QString CatalogueSizeText(const CatalogueModel& model) {
  qint64 total = 0;
  for (const CatalogueFile& f : model.files)
    if (f.size > 0) total += f.size;
  return total > 0 ? QLocale().formattedDataSize(total, 1, QLocale::DataSizeSIFormat) : QString();
}

DownloadDialog::DownloadDialog(QWidget* parent, ModelDownloader* downloader)
    : QDialog(parent),
      downloader_(downloader ? downloader : new ModelDownloader(this)),
      catalogue_(ModelCatalogue()) {
  setWindowTitle(tr("Download a model"));
  auto* layout = new QVBoxLayout(this);
  auto* intro = intro_ = new QLabel(this);
  intro->setWordWrap(true);
  freeSpace_ = [](const QString& dir) {
    QString existing = dir;  // the folder may not exist yet: ask the nearest one that does
    while (!existing.isEmpty() && !QFileInfo::exists(existing)) existing = QFileInfo(existing).path();
    return QStorageInfo(existing).bytesAvailable();
  };
  list_ = new QListWidget(this);
  list_->setWordWrap(true);  // the descriptions are sentences: wrap, never cut
  list_->setTextElideMode(Qt::ElideNone);
  setMinimumWidth(fontMetrics().averageCharWidth() * 70);
  for (const CatalogueModel& m : catalogue_) {
    const QString size = CatalogueSizeText(m);
    auto* item = new QListWidgetItem(
        QStringLiteral("%1%2\n%3").arg(m.title, size.isEmpty() ? QString() : QStringLiteral(" \u00B7 ") + size,
                                       m.description), list_);
    item->setToolTip(m.repo);
  }
  bar_ = new QProgressBar(this);
  bar_->setRange(0, 1000);
  bar_->setValue(0);
  bar_->setTextVisible(true);
  bar_->setFormat(QString());
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* box = new QDialogButtonBox(this);
  download_ = box->addButton(tr("Download"), QDialogButtonBox::ActionRole);
  cancel_ = box->addButton(tr("Cancel download"), QDialogButtonBox::ActionRole);
  load_ = box->addButton(tr("Load it now"), QDialogButtonBox::AcceptRole);
  folder_ = box->addButton(tr("&Folder\u2026"), QDialogButtonBox::ResetRole);
  folder_->setToolTip(tr("Choose the folder models are downloaded into"));
  connect(folder_, &QPushButton::clicked, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Download models into"), downloader_->modelsRoot());
    if (!dir.isEmpty()) setModelsFolder(dir);
  });
  box->addButton(QDialogButtonBox::Close);
  layout->addWidget(intro);
  layout->addWidget(list_, 1);
  layout->addWidget(bar_);
  layout->addWidget(status_);
  layout->addWidget(box);

  connect(list_, &QListWidget::currentRowChanged, this, [this] { updateButtons(); });
  connect(download_, &QPushButton::clicked, this, &DownloadDialog::startSelected);
  connect(cancel_, &QPushButton::clicked, downloader_, &ModelDownloader::cancel);
  connect(load_, &QPushButton::clicked, this, [this] {
    if (finishedDir_.isEmpty()) return;
    Q_EMIT loadRequested(finishedDir_);
    accept();
  });
  connect(box, &QDialogButtonBox::rejected, this, &DownloadDialog::reject);

  connect(downloader_, &ModelDownloader::fileStarted, this,
          [this](const QString& file, int index, int count) {
            setStatus(tr("File %1 of %2: %3").arg(index + 1).arg(count).arg(file));
          });
  connect(downloader_, &ModelDownloader::progress, this,
          [this](const QString& file, qint64 bytes, qint64 total) {
            const QLocale locale;
            if (total > 0) {
              bar_->setValue(static_cast<int>(1000.0 * static_cast<double>(bytes) /
                                              static_cast<double>(total)));
              bar_->setFormat(QStringLiteral("%1: %2 / %3").arg(file, locale.formattedDataSize(bytes, 1, QLocale::DataSizeSIFormat),
                                                                locale.formattedDataSize(total, 1, QLocale::DataSizeSIFormat)));
            } else {
              bar_->setFormat(QStringLiteral("%1: %2").arg(file, locale.formattedDataSize(bytes, 1, QLocale::DataSizeSIFormat)));
            }
          });
  connect(downloader_, &ModelDownloader::finished, this, [this](const QString& dir) {
    finishedDir_ = dir;
    bar_->setValue(1000);
    setStatus(tr("Downloaded to %1. Load it now?").arg(QDir::toNativeSeparators(dir)));
    updateButtons();
  });
  connect(downloader_, &ModelDownloader::failed, this, [this](const QString& message) {
    setStatus(tr("Download failed: %1").arg(message));
    updateButtons();
  });
  connect(downloader_, &ModelDownloader::cancelled, this, [this] {
    setStatus(tr("Cancelled. Press Resume to continue where it stopped."));
    updateButtons();
  });
  list_->setCurrentRow(0);
  setModelsFolder(downloader_->modelsRoot());
}

void DownloadDialog::setModelsFolder(const QString& dir) {
  downloader_->setModelsRoot(dir);
  const qint64 free = freeSpace_ ? freeSpace_(dir) : -1;
  intro_->setText(tr("Models are downloaded from Hugging Face into %1%2. An interrupted download "
                     "resumes where it stopped.")
                      .arg(QDir::toNativeSeparators(dir),
                           free >= 0 ? tr(" (%1 free)").arg(QLocale().formattedDataSize(free, 1, QLocale::DataSizeSIFormat))
                                     : QString()));
  updateButtons();
}

qint64 DownloadDialog::bytesStillNeeded(const CatalogueModel& model) const {
  const QDir dir(downloader_->targetDir(model.repo));
  qint64 needed = 0, have_all = 0;
  bool exact = true;
  for (const CatalogueFile& f : model.files) {
    const qint64 have = std::max(QFileInfo(dir.filePath(f.name)).size(),
                                 QFileInfo(dir.filePath(f.name + QStringLiteral(".part"))).size());
    have_all += have;
    if (f.size < 0)
      exact = exact && f.optional;
    else
      needed += std::max<qint64>(0, f.size - have);
  }
  if (exact) return needed;
  // File sizes unknown (the catalogue names files, not sizes): the folder's approximate size
  // less what is already there.
  return model.approx_bytes > 0 ? std::max<qint64>(0, model.approx_bytes - have_all) : -1;
}

void DownloadDialog::selectModel(int row) { list_->setCurrentRow(row); }

void DownloadDialog::startSelected() {
  const int row = list_->currentRow();
  if (row < 0 || row >= catalogue_.size()) return;
  finishedDir_.clear();
  bar_->setValue(0);
  // Room for it first: a full disk found gigabytes in is a worse way to learn it (issue 34).
  const qint64 needed = bytesStillNeeded(catalogue_[row]);
  const qint64 free = freeSpace_ ? freeSpace_(downloader_->modelsRoot()) : -1;
  if (needed > 0 && free >= 0 && free < needed) {
    const QLocale locale;
    setStatus(tr("Not enough free space in %1: %2 needs %3 more, %4 free. Free some space or "
                 "choose another folder (Folder\u2026).")
                  .arg(QDir::toNativeSeparators(downloader_->modelsRoot()), catalogue_[row].title,
                       locale.formattedDataSize(needed, 1, QLocale::DataSizeSIFormat),
                       locale.formattedDataSize(free, 1, QLocale::DataSizeSIFormat)));
    return;
  }
  if (downloader_->start(catalogue_[row])) setStatus(tr("Starting %1\u2026").arg(catalogue_[row].repo));
  updateButtons();
}

bool DownloadDialog::hasPartialFiles(const CatalogueModel& model) const {
  // Only bytes make a Resume: an offline try leaves an empty .part, and "Resume" after 0.0 MB
  // promised what was not there (issue 34).
  const QDir dir(downloader_->targetDir(model.repo));
  for (const QFileInfo& part : dir.entryInfoList({QStringLiteral("*.part")}, QDir::Files))
    if (part.size() > 0) return true;
  return false;
}

void DownloadDialog::updateButtons() {
  const bool running = downloader_->isRunning();
  const int row = list_->currentRow();
  const bool valid = row >= 0 && row < catalogue_.size();
  download_->setEnabled(valid && !running);
  folder_->setEnabled(!running);
  download_->setText(valid && hasPartialFiles(catalogue_[row]) ? tr("Resume") : tr("Download"));
  cancel_->setEnabled(running);
  load_->setEnabled(!running && !finishedDir_.isEmpty());
  list_->setEnabled(!running);
}

void DownloadDialog::setStatus(const QString& text) { status_->setText(text); }
QString DownloadDialog::statusText() const { return status_->text(); }

void DownloadDialog::reject() {
  if (downloader_->isRunning()) downloader_->cancel();
  QDialog::reject();
}

}  // namespace glance::ui
