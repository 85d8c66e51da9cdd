#include "ui/model_download.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>

#include "ui/data_folder.h"

namespace glance::ui {

namespace {

const QString kSingleWeights = QStringLiteral("model.safetensors");
const QString kShardIndex = QStringLiteral("model.safetensors.index.json");
constexpr int kMaxRedirects = 10;

// An ETag or X-Linked-ETag that is a sha256 (Hugging Face LFS files), lowercased; else empty.
// Non-LFS files carry a 40-hex git blob id, which is not a content checksum we can check.
QString Sha256FromEtag(QByteArray etag) {
  etag = etag.trimmed();
  if (etag.startsWith("W/")) etag = etag.mid(2);
  if (etag.size() >= 2 && etag.startsWith('"') && etag.endsWith('"')) etag = etag.mid(1, etag.size() - 2);
  static const QRegularExpression hex64(QStringLiteral("^[0-9a-fA-F]{64}$"));
  const QString s = QString::fromLatin1(etag);
  return hex64.match(s).hasMatch() ? s.toLower() : QString();
}

QString FileSha256(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  QCryptographicHash hash(QCryptographicHash::Sha256);
  hash.addData(&f);
  return QString::fromLatin1(hash.result().toHex());
}

QString Mb(qint64 bytes) {
  return QStringLiteral("%1 MB").arg(static_cast<double>(bytes) / 1e6, 0, 'f', 1);
}

}  // namespace

ModelDownloader::ModelDownloader(QObject* parent)
    : QObject(parent), models_root_(DefaultModelsRoot()) {}

ModelDownloader::~ModelDownloader() { ReleaseReply(); }

QString ModelDownloader::DefaultModelsRoot() {
  return DataFolder() + QStringLiteral("/models");
}

QString ModelDownloader::targetDir(const QString& repo) const {
  return models_root_ + QLatin1Char('/') + repo;
}

QString ModelDownloader::FinalPath() const {
  return targetDir(model_.repo) + QLatin1Char('/') + queue_.at(index_).name;
}

QUrl ModelDownloader::FileUrl(const QString& file) const {
  QString url = url_pattern_;
  url.replace(QStringLiteral("{repo}"), model_.repo).replace(QStringLiteral("{file}"), file);
  return QUrl(url);
}

bool ModelDownloader::start(const CatalogueModel& model) {
  if (running_) return false;
  model_ = model;
  queue_ = model.files;
  index_ = 0;
  running_ = true;
  if (!QDir().mkpath(targetDir(model_.repo))) {
    Fail(tr("Cannot create the folder %1. Check that the disk is writable, or choose another "
            "models folder.")
             .arg(targetDir(model_.repo)));
    return true;
  }
  StartNextFile();
  return true;
}

void ModelDownloader::cancel() {
  if (!running_) return;
  ReleaseReply();
  part_.flush();
  part_.close();
  running_ = false;
  Q_EMIT cancelled();
}

void ModelDownloader::StartNextFile() {
  while (running_ && index_ < queue_.size()) {
    const CatalogueFile& f = queue_.at(index_);
    Q_EMIT fileStarted(f.name, index_, static_cast<int>(queue_.size()));
    expected_size_ = f.size;
    expected_sha256_ = f.sha256.toLower();
    retries_ = 0;
    redirects_ = 0;

    // A file under its final name was verified before its rename: keep it.
    const QFileInfo final_info(FinalPath());
    if (final_info.exists() && (f.size < 0 || final_info.size() == f.size)) {
      if (f.name == kShardIndex) {
        QString error;
        if (!ExpandShardIndex(FinalPath(), &error)) return Fail(error);
      }
      Q_EMIT progress(f.name, final_info.size(), final_info.size());
      Q_EMIT fileFinished(f.name, QString());
      ++index_;
      continue;
    }

    part_.close();
    part_.setFileName(PartPath());
    if (!part_.open(QIODevice::ReadWrite) || !part_.seek(part_.size())) {
      return Fail(tr("Cannot write %1: %2. Free some disk space or choose another models "
                     "folder.")
                      .arg(PartPath(), part_.errorString()));
    }
    Request(FileUrl(f.name));
    return;
  }
  if (running_) {
    running_ = false;
    Q_EMIT finished(targetDir(model_.repo));
  }
}

void ModelDownloader::Request(const QUrl& url) {
  request_offset_ = part_.size();
  writing_ = false;
  QNetworkRequest req(url);
  // Manual redirects: Hugging Face puts X-Linked-Size / X-Linked-ETag on the redirect itself.
  req.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
  req.setHeader(QNetworkRequest::UserAgentHeader, QStringLiteral("Glance/" GLANCE_VERSION));
  // Sizes and offsets must count file bytes, not compressed ones.
  req.setRawHeader("Accept-Encoding", "identity");
  if (request_offset_ > 0) req.setRawHeader("Range", "bytes=" + QByteArray::number(request_offset_) + "-");
  reply_ = nam_.get(req);
  connect(reply_, &QNetworkReply::metaDataChanged, this, &ModelDownloader::OnMetaData);
  connect(reply_, &QNetworkReply::readyRead, this, &ModelDownloader::OnReadyRead);
  connect(reply_, &QNetworkReply::finished, this, &ModelDownloader::OnFinished);
}

void ModelDownloader::TakeHeaders(int status, qint64 content_length) {
  if (expected_size_ < 0 && reply_->hasRawHeader("X-Linked-Size"))
    expected_size_ = reply_->rawHeader("X-Linked-Size").toLongLong();
  if (expected_sha256_.isEmpty()) expected_sha256_ = Sha256FromEtag(reply_->rawHeader("X-Linked-ETag"));
  if (status >= 300) return;  // a redirect's own ETag/length describe the redirect
  if (expected_sha256_.isEmpty()) expected_sha256_ = Sha256FromEtag(reply_->rawHeader("ETag"));
  if (expected_size_ >= 0) return;
  if (status == 206) {
    // Content-Range: bytes <first>-<last>/<total>
    const QByteArray range = reply_->rawHeader("Content-Range");
    const qsizetype slash = range.lastIndexOf('/');
    bool ok = false;
    const qint64 total = slash >= 0 ? range.mid(slash + 1).toLongLong(&ok) : -1;
    if (ok) expected_size_ = total;
  } else if (content_length >= 0) {
    expected_size_ = content_length;
  }
}

void ModelDownloader::OnMetaData() {
  if (!reply_) return;
  const int status = reply_->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  const QVariant length = reply_->header(QNetworkRequest::ContentLengthHeader);
  TakeHeaders(status, length.isValid() ? length.toLongLong() : -1);
  if (status == 200) {
    if (request_offset_ > 0) {
      // The server ignored our Range and sends the whole file: start the .part over.
      part_.resize(0);
      part_.seek(0);
      request_offset_ = 0;
    }
    writing_ = true;
  } else if (status == 206) {
    const QByteArray range = reply_->rawHeader("Content-Range");
    const QByteArray first = range.mid(range.indexOf(' ') + 1).split('-').value(0);
    if (first.toLongLong() != request_offset_) {
      part_.resize(0);
      return Fail(tr("The server resumed %1 at the wrong offset (%2). The partial file was "
                     "deleted; press Download again to start it over.")
                      .arg(queue_.at(index_).name, QString::fromLatin1(range)));
    }
    writing_ = true;
  }
}

void ModelDownloader::OnReadyRead() {
  if (!reply_) return;
  const QByteArray data = reply_->readAll();
  if (!writing_ || data.isEmpty()) return;
  if (part_.write(data) != data.size()) {
    return Fail(tr("Cannot write %1: %2. Free some disk space and press Resume to "
                   "continue.")
                    .arg(PartPath(), part_.errorString()));
  }
  Q_EMIT progress(queue_.at(index_).name, part_.size(), expected_size_);
}

void ModelDownloader::OnFinished() {
  if (!reply_) return;
  OnReadyRead();  // drain anything not yet delivered
  if (!reply_) return;
  QNetworkReply* reply = reply_;
  const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  const QNetworkReply::NetworkError error = reply->error();
  const QString error_text = reply->errorString();
  const QUrl url = reply->url();
  QUrl redirect = reply->attribute(QNetworkRequest::RedirectionTargetAttribute).toUrl();
  if (redirect.isEmpty() && reply->hasRawHeader("Location"))
    redirect = QUrl::fromEncoded(reply->rawHeader("Location"));
  ReleaseReply();
  const CatalogueFile f = queue_.at(index_);

  if (status >= 300 && status < 400 && !redirect.isEmpty()) {
    if (++redirects_ > kMaxRedirects)
      return Fail(tr("Too many redirects while downloading %1 from %2.").arg(f.name, FileUrl(f.name).toString()));
    return Request(url.resolved(redirect));
  }
  if (status == 404) {
    part_.close();
    if (QFileInfo(PartPath()).size() == 0) QFile::remove(PartPath());
    if (f.weights && f.name == kSingleWeights) {
      // No single-file weights: the checkpoint is sharded (index + model-0000x-of-0000y).
      CatalogueFile index;
      index.name = kShardIndex;
      queue_[index_] = index;
      return StartNextFile();
    }
    if (f.optional) {
      ++index_;
      return StartNextFile();
    }
    return Fail(tr("%1 was not found at %2 (HTTP 404). Check that the repository '%3' exists "
                   "and holds this file, or pick another model.")
                    .arg(f.name, FileUrl(f.name).toString(), model_.repo));
  }
  if (status == 401 || status == 403) {
    return Fail(tr("Access to %1 was refused (HTTP %2). The repository '%3' may be gated: "
                   "accept its license on huggingface.co, or pick another model.")
                    .arg(f.name).arg(status).arg(model_.repo));
  }
  if (status == 416) return FinishFile();  // nothing left past our offset: the .part is whole
  if (status >= 400) {
    return Fail(tr("The server answered HTTP %1 for %2 (%3). Try again later.")
                    .arg(status).arg(url.toString(), error_text));
  }
  const bool short_body = error == QNetworkReply::NoError && expected_size_ >= 0 &&
                          part_.size() < expected_size_;
  if (error != QNetworkReply::NoError || short_body) {
    // Interrupted mid-file: the bytes so far are in the .part; ask for the rest.
    if (retries_ < max_retries_) {
      ++retries_;
      redirects_ = 0;
      return Request(FileUrl(f.name));
    }
    if (part_.size() == 0)  // nothing came: not an interruption, and nothing to resume
      return Fail(tr("Could not download %1 (%2). Check the network connection and try again.")
                      .arg(f.name, short_body ? tr("connection closed early") : error_text));
    return Fail(tr("Downloading %1 was interrupted (%2) after %3%4. Check the network "
                   "connection and press Resume to continue.")
                    .arg(f.name, short_body ? tr("connection closed early") : error_text,
                         Mb(part_.size()),
                         expected_size_ >= 0 ? tr(" of %1").arg(Mb(expected_size_)) : QString()));
  }
  FinishFile();
}

void ModelDownloader::FinishFile() {
  const CatalogueFile f = queue_.at(index_);
  part_.flush();
  part_.close();
  const qint64 size = QFileInfo(PartPath()).size();
  if (expected_size_ >= 0 && size != expected_size_) {
    QFile::remove(PartPath());
    return Fail(tr("%1 has %2 bytes but should have %3. The partial file was deleted; press "
                   "Download again to fetch it anew.")
                    .arg(f.name).arg(size).arg(expected_size_));
  }
  const QString sha = FileSha256(PartPath());
  if (!expected_sha256_.isEmpty() && sha != expected_sha256_) {
    QFile::remove(PartPath());
    return Fail(tr("%1 failed its checksum (sha256 %2, expected %3): the download was corrupted. "
                   "The partial file was deleted; press Download again to fetch it anew.")
                    .arg(f.name, sha, expected_sha256_));
  }
  QFile::remove(FinalPath());
  if (!QFile::rename(PartPath(), FinalPath()))
    return Fail(tr("Cannot rename %1 to %2. Check the folder's permissions.").arg(PartPath(), FinalPath()));
  if (f.name == kShardIndex) {
    QString error;
    if (!ExpandShardIndex(FinalPath(), &error)) return Fail(error);
  }
  Q_EMIT progress(f.name, size, size);
  Q_EMIT fileFinished(f.name, sha);
  ++index_;
  StartNextFile();
}

bool ModelDownloader::ExpandShardIndex(const QString& index_path, QString* error) {
  QFile file(index_path);
  if (!file.open(QIODevice::ReadOnly)) {
    *error = tr("Cannot read %1: %2.").arg(index_path, file.errorString());
    return false;
  }
  const QJsonObject map = QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("weight_map")).toObject();
  QStringList shards;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const QString name = it.value().toString();
    // Shard names come from the server: refuse anything that could leave the model folder.
    if (name.isEmpty() || name.contains(QLatin1Char('/')) || name.contains(QLatin1Char('\\')) ||
        name.startsWith(QLatin1Char('.')) || !name.endsWith(QStringLiteral(".safetensors"))) {
      *error = tr("%1 names an unexpected shard '%2'; this does not look like a Hugging Face "
                  "checkpoint.").arg(index_path, name);
      return false;
    }
    if (!shards.contains(name)) shards.append(name);
  }
  if (shards.isEmpty()) {
    *error = tr("%1 has no weight_map; the repository's weights cannot be found.").arg(index_path);
    return false;
  }
  shards.sort();
  int at = index_ + 1;
  for (const QString& s : shards) {
    bool queued = false;
    for (const CatalogueFile& q : queue_) queued = queued || q.name == s;
    if (queued) continue;
    CatalogueFile shard;
    shard.name = s;
    queue_.insert(at++, shard);
  }
  return true;
}

void ModelDownloader::Fail(const QString& message) {
  ReleaseReply();
  part_.close();
  running_ = false;
  Q_EMIT failed(message);
}

void ModelDownloader::ReleaseReply() {
  QNetworkReply* r = reply_.data();
  reply_ = nullptr;
  if (r == nullptr) return;
  r->disconnect(this);
  r->abort();
  r->deleteLater();
}

}  // namespace glance::ui
