// MainWindow, engine side: the worker thread, commands out, events in.
#include <QAction>
#include <QApplication>
#include <QFileInfo>
#include <QListWidget>
#include <QProgressBar>
#include <QSignalBlocker>
#include <QLabel>
#include <QStatusBar>
#include <QThread>
#include <QTimer>
#include <QToolButton>

#include "core/settings/registry.h"
#include "ui/attention_panel.h"
#include "ui/chat_view.h"
#include "ui/conversation_store.h"
#include "ui/engine_worker.h"
#include "ui/heatmap.h"
#include "ui/image_drop_area.h"
#include "ui/main_window.h"
#include "ui/settings_store.h"
#include "ui/timing_panel.h"

namespace glance::ui {

void MainWindow::connectWorker() {
  thread_ = new QThread(this);
  thread_->setObjectName(QStringLiteral("glance-engine"));
  worker_ = new EngineWorker;  // no parent: it moves to the thread and dies there
  worker_->moveToThread(thread_);
  connect(thread_, &QThread::finished, worker_, &QObject::deleteLater);

  // Commands: queued, because the receiver lives on the engine thread.
  connect(this, &MainWindow::requestLoad, worker_, &EngineWorker::loadModel);
  connect(this, &MainWindow::requestAttachImage, worker_, &EngineWorker::attachImage);
  connect(this, &MainWindow::requestAttachPixels, worker_, &EngineWorker::attachPixels);
  connect(this, &MainWindow::requestSend, worker_, &EngineWorker::send);
  connect(this, &MainWindow::requestRegenerate, worker_, &EngineWorker::regenerate);
  connect(this, &MainWindow::requestEdit, worker_, &EngineWorker::editLast);
  connect(this, &MainWindow::requestReset, worker_, &EngineWorker::reset);
  connect(this, &MainWindow::requestImageMode, worker_, &EngineWorker::setImageMode);
  connect(this, &MainWindow::requestSystemPrompt, worker_, &EngineWorker::setSystemPrompt);

  // Events: queued back to this (GUI) thread.
  connect(worker_, &EngineWorker::loadProgress, this, &MainWindow::onLoadProgress);
  connect(worker_, &EngineWorker::modelLoaded, this, &MainWindow::onModelLoaded);
  connect(worker_, &EngineWorker::imageAttached, this, &MainWindow::onImageAttached);
  connect(worker_, &EngineWorker::turnStarted, chat_, &ChatView::beginAnswer);
  connect(worker_, &EngineWorker::textPiece, chat_, &ChatView::appendPiece);
  connect(worker_, &EngineWorker::attentionMap, attention_, &AttentionPanel::appendMap);
  connect(worker_, &EngineWorker::turnFinished, this, &MainWindow::onTurnFinished);
  connect(worker_, &EngineWorker::error, this, &MainWindow::onError);

  // The chat's requests. Stop goes straight to the worker's atomic, not through the queue.
  // In a read-only (reopened) conversation the input is disabled; Regenerate and Edit would
  // need the engine state of a conversation it never ran, so they only say so.
  connect(chat_, &ChatView::sendRequested, this, [this](const QString& text) {
    if (readOnly_) {  // a programmatic submit() into a reopened conversation: start afresh
      newChat();
      const QSignalBlocker block(chat_);
      chat_->clear();
      chat_->submit(text);
    }
    pendingUser_ = text;
    replaceLastTurn_ = false;
    startTurn();
    Q_EMIT requestSend(text, options_);
  });
  connect(chat_, &ChatView::regenerateRequested, this, [this] {
    if (readOnly_ || current_.turns.empty()) {
      setReadOnly(true);
      showConversation(current_);
      return;
    }
    pendingUser_ = current_.turns.back().user_text;
    replaceLastTurn_ = true;
    startTurn();
    Q_EMIT requestRegenerate(options_);
  });
  connect(chat_, &ChatView::editResendRequested, this, [this](const QString& text) {
    if (readOnly_ || current_.turns.empty()) {
      setReadOnly(true);
      showConversation(current_);
      return;
    }
    pendingUser_ = text;
    replaceLastTurn_ = true;
    startTurn();
    Q_EMIT requestEdit(text, options_);
  });
  connect(chat_, &ChatView::stopRequested, this, [this] { worker_->stop(); });
  connect(chat_, &ChatView::newChatRequested, this, &MainWindow::newChat);
  thread_->start();
}

void MainWindow::shutdownWorker() {
  if (shutDown_) return;
  shutDown_ = true;
  worker_->stop();
  worker_->cancelLoad();
  thread_->quit();  // runs after the current command, which the flags above cut short
  thread_->wait();
}

void MainWindow::loadModel(const QString& dir) {
  loadingDir_ = dir;
  modelLabel_->setText(tr("Loading %1\u2026").arg(QFileInfo(dir).fileName()));
  loadBar_->setValue(0);
  loadBar_->setVisible(true);
  cancelLoad_->setVisible(true);
  chat_->setBusy(true);
  const settings::Values values = settings_->values();
  Q_EMIT requestLoad(dir, settings::ToEngineOptions(values));
}

void MainWindow::loadDefaultModel() { loadModel(Q(glance::DefaultDemoModelDir())); }

void MainWindow::attachImageFile(const QString& path, bool caption) {
  if (readOnly_) chat_->newChatAction()->trigger();  // an image starts a live conversation
  pendingImage_ = QImage(path);
  captionPending_ = caption;
  Q_EMIT requestAttachImage(path);
}

void MainWindow::attachImagePixels(const QImage& image, bool caption) {
  if (readOnly_) chat_->newChatAction()->trigger();
  pendingImage_ = image;
  captionPending_ = caption;
  Q_EMIT requestAttachPixels(image);
}

void MainWindow::onLoadProgress(double fraction, const QString& what) {
  loadBar_->setValue(static_cast<int>(fraction * 1000.0));
  loadBar_->setFormat(what);
  loadBar_->setTextVisible(true);
}

void MainWindow::onModelLoaded(const ModelInfo& info) {
  const bool replaced = modelLoaded_;
  model_ = info;
  modelLoaded_ = true;
  fallBackToDemo_ = false;
  if (!info.is_demo) settings_->setValue(QStringLiteral("model_dir"), Q(info.dir));
  // The new engine has a fresh session (so no Reset: that would drop an image queued right
  // after the load): a live conversation cannot continue in it.
  Q_EMIT requestSystemPrompt(current_.system_prompt);
  if (replaced && !current_.turns.empty() && !readOnly_)
    setReadOnly(true, tr("Read-only: the model changed. Start a New chat to continue."));
  else if (!readOnly_ && !notice_->text().startsWith(tr("Could not load")))
    showNotice(QString());
  loadBar_->setVisible(false);
  cancelLoad_->setVisible(false);
  chat_->setBusy(false);
  const QString name = info.is_demo ? tr("Demo model (random weights)") : Q(info.name);
  modelLabel_->setText(name);
  modelLabel_->setToolTip(tr("%1\n%2 parameters \u00B7 %3").arg(Q(info.dir)).arg(info.parameters).arg(Q(info.dtypes)));
  backendLabel_->setText(tr("\u00B7 %1").arg(Q(info.backend)));
  backendLabel_->setToolTip(Q(info.backend_reason));
  if (!info.backend_reason.empty())
    backendLabel_->setText(tr("\u00B7 %1 (%2)").arg(Q(info.backend), Q(info.backend_reason)));
  threadsLabel_->setText(tr("\u00B7 %n thread(s)", nullptr, info.threads));
  Q_EMIT modelReady(info);
}

void MainWindow::onImageAttached(const ImageInfo& info) {
  const QImage processed = ProcessedView(pendingImage_, info.resized_w, info.resized_h);
  dropArea_->setImageInfo(info, processed);
  attention_->clear();
  attention_->setImage(processed);
  ++imageCount_;
  pendingImages_.push_back(info);
  if (captionPending_) {
    captionPending_ = false;
    chat_->submit(tr("Describe this image."));
  }
}

void MainWindow::startTurn() {
  worker_->rearm();  // before queueing, so a Stop pressed while it waits still counts
  chat_->setBusy(true);
}

void MainWindow::onTurnFinished(const TurnResult& result) {
  chat_->finishAnswer(result.stats, Q(result.stop_reason));
  recordTurn(result);
  chat_->setBusy(false);
  timing_->addTurn(result.stats);
  // The panel draws one image: keep the maps over the newest one.
  std::vector<AttentionMap> maps;
  for (const AttentionMap& m : result.attention)
    if (m.image_index == imageCount_ - 1) maps.push_back(m);
  if (!maps.empty() && maps.size() == result.attention.size())
    attention_->setAttention(result.attention, result.words);
  else if (!maps.empty())
    attention_->setAttention(std::move(maps), {});
  Q_EMIT turnCompleted(result);
  if (!screenshotPath_.isEmpty()) {
    const QString path = screenshotPath_;
    screenshotPath_.clear();
    QTimer::singleShot(400, this, [this, path] {
      grab().save(path);
      close();
    });
  }
}

void MainWindow::onError(const QString& during, const QString& message) {
  if (during == QStringLiteral("load")) {
    loadBar_->setVisible(false);
    cancelLoad_->setVisible(false);
    chat_->setBusy(false);
    const QString what = QFileInfo(loadingDir_).fileName();
    if (modelLoaded_) {  // the worker kept the engine it had
      modelLabel_->setText(model_.is_demo ? tr("Demo model (random weights)") : Q(model_.name));
      showNotice(tr("Could not load %1: %2\nStill using %3.").arg(what, message, Q(model_.name)));
    } else if (fallBackToDemo_) {
      fallBackToDemo_ = false;
      showNotice(tr("Could not load the last model %1: %2\nUsing the demo model instead.")
                     .arg(loadingDir_, message));
      loadDefaultModel();
    } else {
      modelLabel_->setText(tr("No model"));
      showNotice(tr("Could not load %1: %2").arg(what, message));
    }
  } else if (during == QStringLiteral("settings")) {
    showNotice(message);
  } else if (during == QStringLiteral("image")) {
    captionPending_ = false;
    dropArea_->showMessage(message);
  } else {
    chat_->failAnswer(message);
    chat_->setBusy(false);
  }
  statusBar()->showMessage(message, 10000);
  Q_EMIT failed(message);
}

}  // namespace glance::ui
