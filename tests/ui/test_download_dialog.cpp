// DownloadDialog against a loopback HTTP server: a failed download stays inline in the dialog,
// a cancelled one offers Resume, and a finished one offers to load its folder.
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "test_download_server.h"
#include "ui/download_dialog.h"
#include "ui/model_download.h"

using glance::ui::DownloadDialog;
using glance::ui::ModelDownloader;

namespace {
constexpr int kTimeoutMs = 20000;
const QByteArray kRepo = "/Qwen/Qwen3.5-0.8B/";  // the catalogue's first model
}  // namespace

class TestDownloadDialog : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<TestHttpServer> server_;
  std::unique_ptr<QTemporaryDir> root_;

  std::unique_ptr<DownloadDialog> MakeDialog(ModelDownloader*& downloader) {
    downloader = new ModelDownloader;
    downloader->setUrlPattern(QString::fromLatin1(server_->Base()) + QStringLiteral("/{repo}/{file}"));
    downloader->setModelsRoot(root_->path());
    downloader->setMaxRetries(0);
    auto dialog = std::make_unique<DownloadDialog>(nullptr, downloader);
    downloader->setParent(dialog.get());
    return dialog;
  }
  void ServeModel() {
    for (const char* f : {"config.json", "tokenizer.json", "tokenizer_config.json",
                          "chat_template.jinja", "preprocessor_config.json"})
      server_->files.insert(kRepo + f, QByteArray("{\"file\": \"") + f + "\"}");
    server_->files.insert(kRepo + "model.safetensors", QByteArray(200000, 'w'));
  }

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
  void init() {
    server_ = std::make_unique<TestHttpServer>();
    QVERIFY(server_->Start());
    root_ = std::make_unique<QTemporaryDir>();
  }

  void listsTheCatalogue() {
    ModelDownloader* d = nullptr;
    auto dialog = MakeDialog(d);
    QVERIFY(dialog->downloadButton()->isEnabled());
    QVERIFY(!dialog->cancelButton()->isEnabled());
    QVERIFY(!dialog->loadButton()->isEnabled());
  }

  void failureIsInline() {
    ModelDownloader* d = nullptr;
    auto dialog = MakeDialog(d);  // the server has no files: config.json is a 404
    QSignalSpy failed(d, &ModelDownloader::failed);
    dialog->startSelected();
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kTimeoutMs);
    QVERIFY2(dialog->statusText().startsWith(QStringLiteral("Download failed")), qPrintable(dialog->statusText()));
    QVERIFY(!dialog->loadButton()->isEnabled());
    QVERIFY(dialog->downloadButton()->isEnabled());  // try again
  }

  void cancelOffersResumeAndFinishOffersLoad() {
    ServeModel();
    server_->stall.insert(kRepo + "model.safetensors", 50000);
    ModelDownloader* d = nullptr;
    auto dialog = MakeDialog(d);
    QSignalSpy progress(d, &ModelDownloader::progress);
    QSignalSpy cancelled(d, &ModelDownloader::cancelled);
    dialog->startSelected();
    QVERIFY(dialog->cancelButton()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(!progress.isEmpty() &&
                                 progress.last().at(0).toString() == QStringLiteral("model.safetensors") &&
                                 progress.last().at(1).toLongLong() >= 50000, kTimeoutMs);
    dialog->cancelButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, kTimeoutMs);
    QCOMPARE(dialog->downloadButton()->text(), QStringLiteral("Resume"));

    QSignalSpy finished(d, &ModelDownloader::finished);
    QSignalSpy load(dialog.get(), &DownloadDialog::loadRequested);
    dialog->downloadButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
    QCOMPARE(dialog->progressBar()->value(), 1000);
    QVERIFY(dialog->loadButton()->isEnabled());
    dialog->loadButton()->click();
    QCOMPARE(load.count(), 1);
    QCOMPARE(load.first().at(0).toString(), d->targetDir(QStringLiteral("Qwen/Qwen3.5-0.8B")));
    QFile weights(load.first().at(0).toString() + QStringLiteral("/model.safetensors"));
    QCOMPARE(weights.size(), qint64{200000});
    // The resume asked for the bytes after what the cancel left.
    bool ranged = false;
    for (const auto& r : server_->requests) ranged = ranged || (r.range.startsWith("bytes=") && r.range != "bytes=0-");
    QVERIFY(ranged);
  }

  // Offline (nothing arrives): the failure says it could not download, not "interrupted", and
  // the button stays Download, not Resume after 0.0 MB (issue 34).
  void offlineFailureOffersNoResume() {
    ModelDownloader* d = nullptr;
    auto dialog = MakeDialog(d);
    d->setUrlPattern(QStringLiteral("http://127.0.0.1:1/{repo}/{file}"));  // nothing listens
    QSignalSpy failed(d, &ModelDownloader::failed);
    dialog->startSelected();
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kTimeoutMs);
    QVERIFY2(!dialog->statusText().contains(QStringLiteral("interrupted")), qPrintable(dialog->statusText()));
    QVERIFY2(!dialog->statusText().contains(QStringLiteral("Resume")), qPrintable(dialog->statusText()));
    QCOMPARE(dialog->downloadButton()->text(), QStringLiteral("Download"));
  }

  // The free space is checked before anything is fetched, and the folder can be chosen: the
  // next download goes there (issue 34: neither existed).
  void freeSpaceIsCheckedAndTheFolderChosen() {
    ServeModel();
    ModelDownloader* d = nullptr;
    auto dialog = MakeDialog(d);
    const glance::ui::CatalogueModel model = glance::ui::ModelCatalogue().first();
    QVERIFY(dialog->bytesStillNeeded(model) > 1000000);
    dialog->setFreeSpaceProbe([](const QString&) { return qint64{1000}; });
    dialog->startSelected();
    QVERIFY2(dialog->statusText().contains(QStringLiteral("Not enough free space")), qPrintable(dialog->statusText()));
    QVERIFY(!d->isRunning());
    QVERIFY(server_->requests.isEmpty());
    QVERIFY(dialog->folderButton()->isEnabled());
    QTemporaryDir other;
    dialog->setModelsFolder(other.path());
    QCOMPARE(d->modelsRoot(), other.path());
    QVERIFY(d->targetDir(model.repo).startsWith(other.path()));
    // Control: with room it starts, into the chosen folder.
    dialog->setFreeSpaceProbe([](const QString&) { return qint64{1} << 50; });
    QSignalSpy started(d, &ModelDownloader::fileStarted);
    dialog->startSelected();
    QTRY_VERIFY_WITH_TIMEOUT(started.count() > 0, kTimeoutMs);
    QVERIFY(!dialog->folderButton()->isEnabled());  // not while it downloads
    d->cancel();
  }
};

QTEST_MAIN(TestDownloadDialog)
#include "test_download_dialog.moc"
