#pragma once
// File ▸ Download model…: the model catalogue (model_download_catalogue.h) with sizes, one
// progress bar, Download / Cancel / Resume, and, once a model is complete, "Load it now".
// Failures are shown inline in the dialog (never a message-box chain).
//
// Thread contract: GUI thread only.
#include <QDialog>
#include <functional>
#include <QList>

#include "ui/model_download_catalogue.h"

class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;

namespace glance::ui {

class ModelDownloader;

class DownloadDialog : public QDialog {
  Q_OBJECT
 public:
  // downloader: used as is (tests point it at a loopback server); nullptr = an own one.
  explicit DownloadDialog(QWidget* parent = nullptr, ModelDownloader* downloader = nullptr);

  ModelDownloader* downloader() const { return downloader_; }
  void selectModel(int row);
  // Starts (or resumes) the selected model.
  void startSelected();
  QString statusText() const;
  QPushButton* downloadButton() const { return download_; }
  QPushButton* cancelButton() const { return cancel_; }
  QPushButton* loadButton() const { return load_; }
  QProgressBar* progressBar() const { return bar_; }
  QPushButton* folderButton() const { return folder_; }
  // Where models go (the "Folder…" button): the downloader's models root, said in the intro.
  void setModelsFolder(const QString& dir);
  // Free bytes at a folder (default QStorageInfo); tests give their own.
  void setFreeSpaceProbe(std::function<qint64(const QString&)> probe) { freeSpace_ = std::move(probe); }
  // Bytes the selected model still needs on disk: its catalogue size less what is already
  // there (finished files and .part pieces); -1 when its size is unknown.
  qint64 bytesStillNeeded(const CatalogueModel& model) const;

 Q_SIGNALS:
  // The user chose to load a finished download.
  void loadRequested(const QString& dir);

 protected:
  void reject() override;  // closing cancels a running download (its .part stays for Resume)

 private:
  void updateButtons();
  void setStatus(const QString& text);
  bool hasPartialFiles(const CatalogueModel& model) const;

  ModelDownloader* downloader_;
  QList<CatalogueModel> catalogue_;
  QListWidget* list_ = nullptr;
  QProgressBar* bar_ = nullptr;
  QLabel* status_ = nullptr;
  QPushButton* download_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QPushButton* load_ = nullptr;
  QPushButton* folder_ = nullptr;
  QLabel* intro_ = nullptr;
  std::function<qint64(const QString&)> freeSpace_;
  QString finishedDir_;
};

// "1.8 GB" style size for the catalogue; empty when no file size is known.
QString CatalogueSizeText(const CatalogueModel& model);

}  // namespace glance::ui
