// MainWindow: settings (SettingsStore -> options, worker), the model menu (open folder,
// download, demo), Model info, and the inline notice.
#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>

#include "core/engine/engine.h"
#include "core/model/weight_cache.h"
#include "core/settings/registry.h"
#include "ui/chat_view.h"
#include "ui/download_dialog.h"
#include "ui/engine_worker.h"
#include "ui/main_window.h"
#include "ui/model_download.h"
#include "ui/known_models.h"
#include "ui/model_info_dialog.h"
#include "ui/notice_bar.h"
#include "ui/settings_dialog.h"
#include "ui/settings_store.h"

namespace glance::ui {

void MainWindow::buildModelMenu(QMenu* file) {
  file->addAction(tr("Open &model folder\u2026"), this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a Qwen3.5 model folder"),
                                                          ModelFolderDialogStart(recentModelFolders(), downloadFolders()));
    if (!dir.isEmpty()) loadModel(dir);
  });
  file->addAction(tr("Do&wnload model\u2026"), this, &MainWindow::openDownloads);
  file->addAction(tr("Load the d&emo model"), this, &MainWindow::loadDefaultModel);
  file->addAction(tr("Mana&ge models\u2026"), this, [this] { openModelManager(); });
}

ModelManagerDialog::Sources MainWindow::modelSources() const {
  ModelManagerDialog::Sources s;
  s.demoDir = Q(DefaultDemoModelDir());
  s.modelsRoots = downloadFolders();
  s.recent = recentModelFolders();
  s.cacheDir = Q(WeightCache::DefaultDir());
  if (modelLoaded_) s.loadedDir = Q(model_.dir);
  return s;
}

void MainWindow::openModelManager() {
  ModelManagerDialog dialog(modelSources(), this);
  connect(&dialog, &ModelManagerDialog::loadRequested, this, [this, &dialog](const QString& dir, bool demo) {
    demo ? loadDefaultModel() : loadModel(dir);
    dialog.accept();
  });
  connect(&dialog, &ModelManagerDialog::downloadRequested, this, [this, &dialog] {
    openDownloads();
    dialog.refresh();
  });
  dialog.exec();
}

void MainWindow::rememberModelFolder(const QString& dir) {
  settings_->backend().setValue(QString::fromLatin1(kRecentModelsKey),
                                WithRecentModel(recentModelFolders(), dir).join(QLatin1Char('\n')));
}

QStringList MainWindow::recentModelFolders() const {
  return settings_->backend().value(QString::fromLatin1(kRecentModelsKey)).toString().split(QLatin1Char('\n'),
                                                                                            Qt::SkipEmptyParts);
}

void MainWindow::applySettings() {
  const settings::Values values = settings_->values();
  options_ = settings::ToGenerateOptions(values);
  updateContextMeter();
  captionOnDrop_ = settings::GetBool(values, "caption_on_drop");
  if (captionAction_) {
    const QSignalBlocker block(captionAction_);
    captionAction_->setChecked(captionOnDrop_);
  }
  Q_EMIT requestImageMode(settings::ToImageMode(values));
  const int contextLength = settings::ToContextLength(values);
  if (contextLength != contextLengthSent_) {
    contextLengthSent_ = contextLength;
    Q_EMIT requestContextLimit(contextLength);  // from the next message on
  }
}

void MainWindow::onSettingChanged(const QString& key) {
  applySettings();
  if (key == QStringLiteral("threads") || key == QStringLiteral("backend") ||
      key == QStringLiteral("precision")) {
    // Every setting waiting for the load is named (the notice named only the last one).
    if (!pendingLoadSettings_.contains(key)) pendingLoadSettings_ << key;
    const QString names = pendingLoadSettings_.join(tr(" and "));
    const QString text = pendingLoadSettings_.size() == 1
                             ? tr("The new %1 setting takes effect when a model is next loaded.").arg(names)
                             : tr("The new %1 settings take effect when a model is next loaded.").arg(names);
    std::function<void()> reload;
    if (modelLoaded_)
      reload = [this] { model_.is_demo ? loadDefaultModel() : loadModel(Q(model_.dir)); };
    showKeyedNotice(QStringLiteral("reload"), text, static_cast<int>(NoticeBar::Kind::kInfo),
                    reload ? tr("&Reload now") : QString(), reload);
  } else if (key == QStringLiteral("system_prompt")) {
    showKeyedNotice(QStringLiteral("system-prompt"), tr("The new system prompt takes effect in a new chat."),
                    static_cast<int>(NoticeBar::Kind::kInfo), tr("&New chat"),
                    [this] { chat_->newChatAction()->trigger(); });
  }
}

void MainWindow::openSettings() {
  SettingsDialog dialog(settings_, this);
  if (modelLoaded_) dialog.setBackendReason(Q(model_.backend), Q(model_.backend_reason));
  dialog.exec();
}

QStringList MainWindow::downloadFolders() const {
  QStringList folders = settings_->backend().value(QString::fromLatin1(kDownloadFoldersKey)).toString().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  const QString fallback = ModelDownloader::DefaultModelsRoot();
  if (!folders.contains(fallback)) folders << fallback;  // last: a chosen folder comes first
  return folders;
}

void MainWindow::rememberDownloadFolder(const QString& dir) {
  const QString clean = QDir::cleanPath(dir);
  QStringList chosen = settings_->backend().value(QString::fromLatin1(kDownloadFoldersKey)).toString().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  if (chosen.value(0) == clean || (chosen.isEmpty() && clean == ModelDownloader::DefaultModelsRoot())) return;
  chosen.removeAll(clean);
  chosen.prepend(clean);
  while (chosen.size() > kMaxRecentModels) chosen.removeLast();
  settings_->backend().setValue(QString::fromLatin1(kDownloadFoldersKey), chosen.join(QLatin1Char('\n')));
}

void MainWindow::openDownloads() {
  DownloadDialog dialog(this);
  dialog.setModelsFolder(downloadFolders().value(0));  // where the last Folder… choice pointed
  connect(&dialog, &DownloadDialog::loadRequested, this, &MainWindow::loadModel);
  dialog.exec();
  rememberDownloadFolder(dialog.downloader()->modelsRoot());
}

void MainWindow::showModelInfo() {
  ModelInfoDialog dialog(model_, modelLoaded_, this);
  dialog.exec();
}

void MainWindow::loadLastModel() {
  const QString dir = settings_->value(QStringLiteral("model_dir"));
  if (dir.isEmpty()) {
    loadDefaultModel();
    return;
  }
  fallBackToDemo_ = true;
  loadModel(dir);
}

void MainWindow::showStartProblem(const QString& text) {
  showKeyedNotice(QStringLiteral("start"), text, static_cast<int>(NoticeBar::Kind::kWarning));
}

void MainWindow::showNotice(const QString& text) {
  if (text.isEmpty())
    notice_->clear();
  else
    notice_->showNotice(QStringLiteral("general"), text);
}

void MainWindow::showKeyedNotice(const QString& key, const QString& text, int kind,
                                 const QString& actionText, std::function<void()> action,
                                 int timeoutMs) {
  notice_->showNotice(key, text, static_cast<NoticeBar::Kind>(kind), actionText, std::move(action),
                      timeoutMs);
}

void MainWindow::clearNotice(const QString& key) { notice_->clear(key); }

QString MainWindow::noticeText() const { return notice_->text(); }

}  // namespace glance::ui
