// ModelDownloader against a loopback HTTP server the test runs itself (test_download_server.h).
// Every wait is bounded (QTRY_* / QSignalSpy::wait with timeouts).
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "test_download_server.h"
#include "ui/data_folder.h"
#include "ui/model_download.h"

using glance::ui::CatalogueFile;
using glance::ui::CatalogueModel;
using glance::ui::ModelDownloader;

namespace {

constexpr int kTimeoutMs = 20000;

QByteArray Body(int size, int seed) {
  QByteArray b(size, Qt::Uninitialized);
  quint32 x = 2463534242u + static_cast<quint32>(seed);
  for (int i = 0; i < size; ++i) {  // xorshift: incompressible, reproducible
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b[i] = static_cast<char>(x & 0xff);
  }
  return b;
}

QString Sha(const QByteArray& b) {
  return QString::fromLatin1(QCryptographicHash::hash(b, QCryptographicHash::Sha256).toHex());
}

QByteArray ReadFile(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

CatalogueModel Model(const QStringList& names) {
  CatalogueModel m;
  m.repo = QStringLiteral("test/tiny");
  for (const QString& n : names) {
    CatalogueFile f;
    f.name = n;
    m.files.append(f);
  }
  return m;
}

}  // namespace

class DownloadTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir root_;
  TestHttpServer* server_ = nullptr;
  QByteArray weights_ = Body(3 * 1024 * 1024 + 123, 1);
  QByteArray config_ = QByteArray("{\"model_type\": \"qwen3_5\"}");

  std::unique_ptr<ModelDownloader> NewDownloader() {
    auto d = std::make_unique<ModelDownloader>();
    d->setModelsRoot(root_.path());
    d->setUrlPattern(QString::fromLatin1(server_->Base()) + QStringLiteral("/{repo}/{file}"));
    return d;
  }
  QString Target(const QString& file) const {
    return root_.path() + QStringLiteral("/test/tiny/") + file;
  }

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
  void init() {
    QVERIFY(root_.isValid());
    QDir(root_.path() + QStringLiteral("/test")).removeRecursively();
    server_ = new TestHttpServer;
    server_->files.insert("/test/tiny/config.json", config_);
    server_->files.insert("/test/tiny/model.safetensors", weights_);
    QVERIFY(server_->Start());
  }
  void cleanup() {
    delete server_;
    server_ = nullptr;
  }

  void defaultLocationIsTheDataFolder() {
    QCOMPARE(ModelDownloader::DefaultModelsRoot(), glance::ui::DataFolder() + QStringLiteral("/models"));
  }

  void downloadsWithProgress() {
    auto d = NewDownloader();
    QSignalSpy progress(d.get(), &ModelDownloader::progress);
    QSignalSpy done(d.get(), &ModelDownloader::finished);
    QSignalSpy failed(d.get(), &ModelDownloader::failed);
    QVERIFY(d->start(Model({QStringLiteral("config.json"), QStringLiteral("model.safetensors")})));
    QVERIFY(!d->start(Model({})));  // refused while running
    QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty() || !failed.isEmpty(), kTimeoutMs);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
    QCOMPARE(done.at(0).at(0).toString(), root_.path() + QStringLiteral("/test/tiny"));
    QCOMPARE(ReadFile(Target(QStringLiteral("model.safetensors"))), weights_);
    QCOMPARE(ReadFile(Target(QStringLiteral("config.json"))), config_);
    QVERIFY(!QFile::exists(Target(QStringLiteral("model.safetensors.part"))));
    // Progress for the weights rises monotonically to the total, which came from Content-Length.
    qint64 last = -1;
    int weight_events = 0;
    for (const auto& args : progress) {
      if (args.at(0).toString() != QStringLiteral("model.safetensors")) continue;
      ++weight_events;
      QVERIFY(args.at(1).toLongLong() >= last);
      last = args.at(1).toLongLong();
      QCOMPARE(args.at(2).toLongLong(), static_cast<qint64>(weights_.size()));
    }
    QVERIFY(weight_events >= 2);
    QCOMPARE(last, static_cast<qint64>(weights_.size()));
  }

  void resumesAfterDroppedConnection() {
    server_->drop_once.insert("/test/tiny/model.safetensors", 1000 * 1000);
    auto d = NewDownloader();
    QSignalSpy done(d.get(), &ModelDownloader::finished);
    QSignalSpy failed(d.get(), &ModelDownloader::failed);
    QSignalSpy file_done(d.get(), &ModelDownloader::fileFinished);
    CatalogueModel m = Model({QStringLiteral("model.safetensors")});
    m.files[0].sha256 = Sha(weights_);  // catalogue-known checksum
    m.files[0].size = weights_.size();
    d->start(m);
    QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty() || !failed.isEmpty(), kTimeoutMs);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
    QCOMPARE(Sha(ReadFile(Target(QStringLiteral("model.safetensors")))), Sha(weights_));
    QCOMPARE(file_done.last().at(1).toString(), Sha(weights_));
    // The second request asked for the rest with a Range starting where the first one stopped.
    QCOMPARE(server_->requests.size(), 2);
    QVERIFY(server_->requests.at(0).range.isEmpty());
    const qint64 resumed_at = server_->requests.at(1).range.mid(6).split('-').value(0).toLongLong();
    QVERIFY2(resumed_at > 0 && resumed_at <= 1000 * 1000, server_->requests.at(1).range.constData());
  }

  void droppedConnectionWithoutRetriesFailsResumably() {
    server_->drop_once.insert("/test/tiny/model.safetensors", 500 * 1000);
    auto d = NewDownloader();
    d->setMaxRetries(0);
    QSignalSpy failed(d.get(), &ModelDownloader::failed);
    d->start(Model({QStringLiteral("model.safetensors")}));
    QVERIFY(failed.wait(kTimeoutMs));
    QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("Resume")),
             qPrintable(failed.at(0).at(0).toString()));
    QVERIFY(QFile::exists(Target(QStringLiteral("model.safetensors.part"))));
    QVERIFY(!QFile::exists(Target(QStringLiteral("model.safetensors"))));
    // A later start resumes it.
    QSignalSpy done(d.get(), &ModelDownloader::finished);
    d->start(Model({QStringLiteral("model.safetensors")}));
    QVERIFY(done.wait(kTimeoutMs));
    QCOMPARE(ReadFile(Target(QStringLiteral("model.safetensors"))), weights_);
    QVERIFY(!server_->requests.last().range.isEmpty());
  }

  void badChecksumFromHeadersIsRejected() {
    // Like Hugging Face: a redirect carrying X-Linked-ETag (the sha256) and X-Linked-Size,
    // then the CDN serves corrupted bytes of the right length.
    server_->redirect_sha.insert("/test/tiny/model.safetensors", Sha(weights_).toLatin1());
    server_->corrupt.insert("/test/tiny/model.safetensors");
    auto d = NewDownloader();
    QSignalSpy failed(d.get(), &ModelDownloader::failed);
    QSignalSpy done(d.get(), &ModelDownloader::finished);
    d->start(Model({QStringLiteral("model.safetensors")}));
    QVERIFY(failed.wait(kTimeoutMs));
    QVERIFY(done.isEmpty());
    const QString msg = failed.at(0).at(0).toString();
    QVERIFY2(msg.contains(QStringLiteral("checksum")) && msg.contains(Sha(weights_)), qPrintable(msg));
    QVERIFY(!QFile::exists(Target(QStringLiteral("model.safetensors.part"))));
    QVERIFY(!QFile::exists(Target(QStringLiteral("model.safetensors"))));
  }

  void goodChecksumFromRedirectHeadersPasses() {
    // Negative control for the test above: same path, uncorrupted bytes.
    server_->redirect_sha.insert("/test/tiny/model.safetensors", Sha(weights_).toLatin1());
    auto d = NewDownloader();
    QSignalSpy done(d.get(), &ModelDownloader::finished);
    QSignalSpy file_done(d.get(), &ModelDownloader::fileFinished);
    d->start(Model({QStringLiteral("model.safetensors")}));
    QVERIFY(done.wait(kTimeoutMs));
    QCOMPARE(file_done.at(0).at(1).toString(), Sha(weights_));
    QCOMPARE(server_->requests.at(1).path, QByteArray("/cdn/test/tiny/model.safetensors"));
  }

  void wrongSizeFromCatalogueIsRejected() {
    auto d = NewDownloader();
    CatalogueModel m = Model({QStringLiteral("config.json")});
    m.files[0].size = config_.size() + 1;
    QSignalSpy failed(d.get(), &ModelDownloader::failed);
    d->start(m);
    QVERIFY(failed.wait(kTimeoutMs));
    QVERIFY(!QFile::exists(Target(QStringLiteral("config.json"))));
  }

  void cancelLeavesResumablePart() {
    server_->stall.insert("/test/tiny/model.safetensors", 700 * 1000);
    auto d = NewDownloader();
    QSignalSpy progress(d.get(), &ModelDownloader::progress);
    QSignalSpy cancelled(d.get(), &ModelDownloader::cancelled);
    d->start(Model({QStringLiteral("model.safetensors")}));
    QTRY_VERIFY_WITH_TIMEOUT(!progress.isEmpty() && progress.last().at(1).toLongLong() >= 700 * 1000,
                             kTimeoutMs);
    d->cancel();
    QCOMPARE(cancelled.count(), 1);
    QVERIFY(!d->isRunning());
    const QString part = Target(QStringLiteral("model.safetensors.part"));
    QCOMPARE(QFileInfo(part).size(), 700 * 1000);
    QVERIFY(!QFile::exists(Target(QStringLiteral("model.safetensors"))));

    QSignalSpy done(d.get(), &ModelDownloader::finished);
    d->start(Model({QStringLiteral("model.safetensors")}));
    QVERIFY(done.wait(kTimeoutMs));
    QCOMPARE(server_->requests.last().range, QByteArray("bytes=700000-"));
    QCOMPARE(ReadFile(Target(QStringLiteral("model.safetensors"))), weights_);
  }

  void missingFileGivesClearError() {
    auto d = NewDownloader();
    QSignalSpy failed(d.get(), &ModelDownloader::failed);
    d->start(Model({QStringLiteral("tokenizer.json")}));
    QVERIFY(failed.wait(kTimeoutMs));
    const QString msg = failed.at(0).at(0).toString();
    QVERIFY2(msg.contains(QStringLiteral("404")) && msg.contains(QStringLiteral("tokenizer.json")) &&
                 msg.contains(QStringLiteral("test/tiny")),
             qPrintable(msg));
  }

  void optionalMissingFileIsSkipped() {
    auto d = NewDownloader();
    CatalogueModel m = Model({QStringLiteral("generation_config.json"), QStringLiteral("config.json")});
    m.files[0].optional = true;
    QSignalSpy done(d.get(), &ModelDownloader::finished);
    d->start(m);
    QVERIFY(done.wait(kTimeoutMs));
    QVERIFY(QFile::exists(Target(QStringLiteral("config.json"))));
    QVERIFY(!QFile::exists(Target(QStringLiteral("generation_config.json"))));
  }

  void shardedWeightsFollowTheIndex() {
    server_->files.remove("/test/tiny/model.safetensors");
    const QByteArray a = Body(200000, 2), b = Body(100000, 3);
    server_->files.insert("/test/tiny/model-00001-of-00002.safetensors", a);
    server_->files.insert("/test/tiny/model-00002-of-00002.safetensors", b);
    server_->files.insert("/test/tiny/model.safetensors.index.json",
                          "{\"metadata\":{},\"weight_map\":{\"x\":\"model-00001-of-00002.safetensors\","
                          "\"y\":\"model-00002-of-00002.safetensors\",\"z\":\"model-00001-of-00002.safetensors\"}}");
    auto d = NewDownloader();
    CatalogueModel m = Model({QStringLiteral("model.safetensors")});
    m.files[0].weights = true;
    QSignalSpy done(d.get(), &ModelDownloader::finished);
    QSignalSpy failed(d.get(), &ModelDownloader::failed);
    d->start(m);
    QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty() || !failed.isEmpty(), kTimeoutMs);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
    QCOMPARE(ReadFile(Target(QStringLiteral("model-00001-of-00002.safetensors"))), a);
    QCOMPARE(ReadFile(Target(QStringLiteral("model-00002-of-00002.safetensors"))), b);
  }

  void catalogueListsTheQwenModels() {
    const auto cat = glance::ui::ModelCatalogue();
    QStringList repos;
    for (const auto& m : cat) {
      repos << m.repo;
      QStringList names;
      for (const auto& f : m.files) names << f.name;
      for (const char* required : {"config.json", "tokenizer.json", "tokenizer_config.json",
                                   "chat_template.jinja", "preprocessor_config.json",
                                   "model.safetensors"})
        QVERIFY2(names.contains(QString::fromLatin1(required)), required);
    }
    for (const char* r : {"Qwen/Qwen3.5-0.8B", "Qwen/Qwen3.5-2B", "Qwen/Qwen3.5-4B",
                          "cyankiwi/Qwen3.5-4B-AWQ-4bit"})
      QVERIFY2(repos.contains(QString::fromLatin1(r)), r);
  }
};

QTEST_GUILESS_MAIN(DownloadTest)
#include "test_download.moc"
