// MainWindow, the File menu's tools: Caption a folder…, Try a demo scene, Local server and its panel.
#include <QAction>
#include <QLabel>
#include <QMenu>
#include <QRandomGenerator>
#include <QSignalBlocker>
#include <QStatusBar>

#include "core/engine/demo_scenes.h"
#include "core/util/error.h"
#include "ui/caption_folder_dialog.h"
#include "ui/chat_view.h"
#include "ui/engine_worker.h"
#include "ui/folder_view.h"
#include "ui/link_label.h"
#include "ui/main_window.h"
#include "ui/server_panel.h"
#include "ui/server_request_log.h"

namespace glance::ui {

void MainWindow::buildToolsMenu(QMenu* file) {
  file->addAction(tr("Caption a &folder\u2026"), this, [this] { openCaptionFolder(); });
  // The folder view (issue 33): a window of its own, sharing this window's engine and settings.
  QAction* openFolder = file->addAction(tr("Open f&older\u2026"), this, [this] {
    auto* view = new FolderWindow(worker_, [this] { return options_; }, [this] { return modelLoaded_; }, this);
    view->setWindowFlag(Qt::Window);
    view->setAttribute(Qt::WA_DeleteOnClose);
    view->show();
    view->chooseFolder();
  });
  openFolder->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  file->addAction(tr("Try a &demo scene"), this, &MainWindow::tryDemoScene);
  file->addSeparator();
  serverAction_ = file->addAction(tr("&Local server"));
  serverAction_->setCheckable(true);
  serverAction_->setToolTip(tr("Serve the loaded model to this computer's programs through an "
                               "OpenAI-compatible API"));
  connect(serverAction_, &QAction::toggled, this, [this](bool on) { setLocalServer(on); });
  file->addAction(tr("Local ser&ver panel\u2026"), this, [this] { openServerPanel(); });
  serverLog_ = new ServerRequestLog(500, this);
  serverLabel_ = new LinkLabel(this);  // its link follows a theme switch
  serverLabel_->setObjectName(QStringLiteral("serverLabel"));
  serverLabel_->setOpenExternalLinks(true);
  serverLabel_->setVisible(false);
  statusBar()->addPermanentWidget(serverLabel_);
}

void MainWindow::connectTools() {
  connect(this, &MainWindow::requestStartServer, worker_, &EngineWorker::startServer);
  connect(this, &MainWindow::requestStopServer, worker_, &EngineWorker::stopServer);
  connect(worker_, &EngineWorker::requestServed, serverLog_,
          [this](const server::ServedRequest& request) { serverLog_->add(request); });
  connect(worker_, &EngineWorker::error, this, [this](const QString& during, const QString& message) {
    if (serverPanel_ && during == QStringLiteral("server")) serverPanel_->showError(tr("Could not start: %1").arg(message));
  });
  connect(this, &MainWindow::modelReady, this, [this](const ModelInfo& info) {
    if (serverPanel_) serverPanel_->setModelName(Q(info.name));
  });
  connect(worker_, &EngineWorker::serverChanged, this, [this](const QString& url, const QString& model) {
    serverUrl_ = url;
    if (serverPanel_) serverPanel_->setServerState(url, model);
    if (!url.isEmpty()) clearNotice(QStringLiteral("server"));  // an earlier failure is no longer true
    const QSignalBlocker block(serverAction_);
    serverAction_->setChecked(!url.isEmpty());
    serverLabel_->setVisible(!url.isEmpty());
    serverLabel_->setText(tr("\u00B7 Serving at <a href=\"%1/v1/models\">%1</a>").arg(url.toHtmlEscaped()));
    serverLabel_->setToolTip(tr("OpenAI-compatible API: %1/v1/chat/completions").arg(url));
    Q_EMIT localServerChanged(url);
  });
  connect(worker_, &EngineWorker::waitingForServer, this, [this] {
    chat_->setProgress(tr("Waiting for the local server to finish a request\u2026"), 0.0);
  });
}

void MainWindow::setLocalServer(bool on, int port) {
  if (!on) {
    Q_EMIT requestStopServer();
    return;
  }
  LocalServerConfig config = serverPanel_ ? serverPanel_->config() : LocalServerConfig::Load();
  if (port >= 0) config.port = port;
  Q_EMIT requestStartServer(config);
}

ServerPanel* MainWindow::openServerPanel() {
  if (!serverPanel_) {
    serverPanel_ = new ServerPanel(serverLog_, this);
    serverPanel_->setModelName(modelLoaded_ ? Q(model_.name) : QString());
    serverPanel_->setServerState(serverUrl_, QString());
    connect(serverPanel_, &ServerPanel::startRequested, this,
            [this](const LocalServerConfig& config) { Q_EMIT requestStartServer(config); });
    connect(serverPanel_, &ServerPanel::stopRequested, this, [this] { Q_EMIT requestStopServer(); });
  }
  serverPanel_->show();
  serverPanel_->raise();
  serverPanel_->activateWindow();
  return serverPanel_;
}

CaptionFolderDialog* MainWindow::openCaptionFolder() {
  if (!modelLoaded_) {
    showNotice(tr("Load a model first: captioning a folder needs one."));
    return nullptr;
  }
  if (!captionFolder_) {
    captionFolder_ = new CaptionFolderDialog(this);
    // Modal: the chat and the folder run take turns on one engine, and the user sees that.
    captionFolder_->setModal(true);
    connect(this, &MainWindow::requestCaptionFolder, worker_, &EngineWorker::captionFolder);
    connect(captionFolder_, &CaptionFolderDialog::startRequested, this,
            [this](const QString& dir, const QString& out, const QString& prompt, const QString& schema) {
              worker_->rearm();
              Q_EMIT requestCaptionFolder(dir, out, prompt, options_, schema);
            });
    connect(captionFolder_, &CaptionFolderDialog::stopRequested, this, [this] { worker_->stop(); });
    connect(worker_, &EngineWorker::folderProgress, captionFolder_, &CaptionFolderDialog::onProgress);
    connect(worker_, &EngineWorker::folderItem, captionFolder_, &CaptionFolderDialog::onItem);
    connect(worker_, &EngineWorker::folderFinished, captionFolder_, &CaptionFolderDialog::onFinished);
  }
  captionFolder_->show();
  captionFolder_->raise();
  return captionFolder_;
}

QString MainWindow::tryDemoScene() {
  try {
    const DemoScenes scenes = LoadDemoScenes(DefaultDemoScenesDir());
    if (demoSceneSeed_ == 0) demoSceneSeed_ = QRandomGenerator::global()->bounded(1000) + 1;
    const DemoScene& scene = PickDemoScene(scenes, demoSceneSeed_++);
    const QString path = QString::fromStdString(scene.image_path);
    if (!model_.is_demo && modelLoaded_)
      statusBar()->showMessage(tr("Demo scenes are the demo model's world; %1 may describe them "
                                  "less well.").arg(QString::fromStdString(model_.name)), 8000);
    // Each scene is a fresh demonstration: a second picture in an answered chat is mixed up
    // with the first by the demo model.
    if (!current_.turns.empty() && !chat_->isBusy()) chat_->newChatAction()->trigger();
    attachImageFile(path, true);
    return path;
  } catch (const Error& e) {
    showNotice(tr("No demo scenes to show: %1").arg(QString::fromUtf8(e.what())));
    return {};
  }
}

}  // namespace glance::ui
