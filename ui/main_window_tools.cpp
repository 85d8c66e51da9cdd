// MainWindow, the File menu's tools: Caption a folder… and Try a demo scene.
#include <QAction>
#include <QMenu>
#include <QRandomGenerator>
#include <QStatusBar>

#include "core/engine/demo_scenes.h"
#include "core/util/error.h"
#include "ui/caption_folder_dialog.h"
#include "ui/engine_worker.h"
#include "ui/main_window.h"

namespace glance::ui {

void MainWindow::buildToolsMenu(QMenu* file) {
  file->addAction(tr("Caption a &folder\u2026"), this, [this] { openCaptionFolder(); });
  file->addAction(tr("Try a &demo scene"), this, &MainWindow::tryDemoScene);
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
            [this](const QString& dir, const QString& out, const QString& prompt) {
              worker_->rearm();
              Q_EMIT requestCaptionFolder(dir, out, prompt, options_);
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
    attachImageFile(path, true);
    return path;
  } catch (const Error& e) {
    showNotice(tr("No demo scenes to show: %1").arg(QString::fromUtf8(e.what())));
    return {};
  }
}

}  // namespace glance::ui
