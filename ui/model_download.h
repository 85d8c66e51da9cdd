#pragma once
// Downloads a model from the catalogue (model_download_catalogue.h) into
// <models root>/<repo>/, one file at a time, over HTTP(S) with QNetworkAccessManager.
//
//  * Each file streams into "<name>.part"; a dropped connection is resumed automatically with
//    an HTTP Range request (up to maxRetries() times), and a later start() resumes a .part left
//    by a cancel or a crash.
//  * Redirects are followed by hand so the Hugging Face headers of the first response
//    (X-Linked-Size, X-Linked-ETag = sha256 of an LFS file) are seen; expected size and sha256
//    come from the catalogue or else from those headers (ETag, Content-Length as fallbacks).
//  * A finished .part is checked (size, sha256) and renamed to its final name; a mismatch
//    deletes the .part and fails. Files already present under their final name are kept.
//  * Sharded weights: a 404 on model.safetensors fetches model.safetensors.index.json and then
//    every shard its weight_map names.
//
// Errors arrive as failed(message), worded to say what to do. Thread contract: GUI thread
// (or any one thread with an event loop); not re-entrant: start() while running is refused.
#include <QCryptographicHash>
#include <QFile>
#include <QList>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QUrl>

#include "ui/model_download_catalogue.h"

class QNetworkReply;

namespace glance::ui {

class ModelDownloader : public QObject {
  Q_OBJECT
 public:
  static constexpr const char* kDefaultUrlPattern =
      "https://huggingface.co/{repo}/resolve/main/{file}";

  explicit ModelDownloader(QObject* parent = nullptr);
  ~ModelDownloader() override;

  // "{repo}" and "{file}" are replaced; tests point this at a loopback server.
  void setUrlPattern(const QString& pattern) { url_pattern_ = pattern; }
  QString urlPattern() const { return url_pattern_; }
  // Default: DefaultModelsRoot().
  void setModelsRoot(const QString& dir) { models_root_ = dir; }
  QString modelsRoot() const { return models_root_; }
  // DataFolder() + "/models" (ui/data_folder.h).
  static QString DefaultModelsRoot();
  QString targetDir(const QString& repo) const;
  // Automatic Range resumes per file after a dropped connection (default 3).
  void setMaxRetries(int n) { max_retries_ = n; }
  int maxRetries() const { return max_retries_; }

  // Starts downloading; returns false (and emits nothing) when a download is already running.
  bool start(const CatalogueModel& model);
  // Stops now; the current .part stays for a later start() to resume. Emits cancelled().
  void cancel();
  bool isRunning() const { return running_; }

 Q_SIGNALS:
  void fileStarted(const QString& file, int index, int count);
  // Bytes of the current file on disk so far (resumed bytes included); total -1 = unknown.
  void progress(const QString& file, qint64 bytes, qint64 total);
  void fileFinished(const QString& file, const QString& sha256);
  void finished(const QString& dir);
  void failed(const QString& message);
  void cancelled();

 private:
  void StartNextFile();
  void Request(const QUrl& url);
  void OnMetaData();
  void OnReadyRead();
  void OnFinished();
  void FinishFile();
  bool ExpandShardIndex(const QString& index_path, QString* error);
  void Fail(const QString& message);
  void ReleaseReply();
  void TakeHeaders(int status, qint64 content_length);
  QString FinalPath() const;
  QString PartPath() const { return FinalPath() + QStringLiteral(".part"); }
  QUrl FileUrl(const QString& file) const;

  QNetworkAccessManager nam_;
  QString url_pattern_ = QString::fromLatin1(kDefaultUrlPattern);
  QString models_root_;
  int max_retries_ = 3;

  // The running download.
  bool running_ = false;
  CatalogueModel model_;
  QList<CatalogueFile> queue_;
  int index_ = -1;
  QFile part_;
  QPointer<QNetworkReply> reply_;
  bool writing_ = false;   // the current response's body goes into part_
  int redirects_ = 0;
  int retries_ = 0;
  qint64 request_offset_ = 0;  // bytes already in part_ when the request was sent
  qint64 expected_size_ = -1;
  QString expected_sha256_;
};

}  // namespace glance::ui
