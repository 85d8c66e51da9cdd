// MainWindow, engine side: the worker thread, commands out, events in.
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QSignalBlocker>
#include <QLabel>
#include <QStatusBar>
#include <QThread>
#include <QTimer>
#include <QToolButton>

#include <QImageReader>
#include <QMessageBox>
#include <QPushButton>

#include "core/settings/registry.h"
#include "ui/attachment_strip.h"
#include "ui/detail_estimate.h"
#include "ui/attention_panel.h"
#include "ui/caption_folder_dialog.h"
#include "ui/chat_view.h"
#include "ui/conversation_store.h"
#include "ui/engine_worker.h"
#include "ui/heatmap.h"
#include "ui/image_drop_area.h"
#include "ui/main_window.h"
#include "ui/notice_bar.h"
#include "ui/settings_store.h"
#include "ui/stats_format.h"
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
  connect(this, &MainWindow::requestRemovePendingImage, worker_, &EngineWorker::removePendingImage);
  connect(this, &MainWindow::requestSend, worker_, &EngineWorker::send);
  connect(this, &MainWindow::requestRegenerate, worker_, &EngineWorker::regenerate);
  connect(this, &MainWindow::requestEdit, worker_, &EngineWorker::editLast);
  connect(this, &MainWindow::requestChooseAnswer, worker_, &EngineWorker::chooseAnswer);
  connect(this, &MainWindow::requestReset, worker_, &EngineWorker::reset);
  connect(this, &MainWindow::requestImageMode, worker_, &EngineWorker::setImageMode);
  connect(this, &MainWindow::requestContextLimit, worker_, &EngineWorker::setContextLimit);
  connect(this, &MainWindow::requestSystemPrompt, worker_, &EngineWorker::setSystemPrompt);

  // Events: queued back to this (GUI) thread.
  connect(worker_, &EngineWorker::loadProgress, this, &MainWindow::onLoadProgress);
  connect(worker_, &EngineWorker::modelLoaded, this, &MainWindow::onModelLoaded);
  connect(worker_, &EngineWorker::imageAttached, this, &MainWindow::onImageAttached);
  connect(worker_, &EngineWorker::pendingImageRemoved, this, &MainWindow::onPendingImageRemoved);
  connect(worker_, &EngineWorker::turnStarted, chat_, &ChatView::beginAnswer);
  connect(worker_, &EngineWorker::textPiece, chat_, &ChatView::appendPiece);
  connect(worker_, &EngineWorker::textPiece, this, [this] {
    ++answerPieces_;
    updateContextMeter();
    // Live tokens/s: pieces after the first over the time since it (the first waits for the
    // prompt), redrawn at most four times a second; the turn's exact rate is in its stats line.
    if (answerPieces_ == 1) {
      firstPiece_.start();
      rateShownAtMs_ = -1000;
    } else if (firstPiece_.isValid() && firstPiece_.elapsed() - rateShownAtMs_ >= 250 && firstPiece_.elapsed() > 0) {
      rateShownAtMs_ = firstPiece_.elapsed();
      rateLabel_->setText(tr("%1 \u00B7").arg(FormatRate(1000.0 * (answerPieces_ - 1) / static_cast<double>(firstPiece_.elapsed()), tr("tok/s"))));
    }
  });
  connect(worker_, &EngineWorker::attentionMap, attention_, &AttentionPanel::appendMap);
  // Rollout (issue 36 item 2): computed on the engine thread when the panel asks for it.
  connect(attention_, &AttentionPanel::rolloutRequested, worker_, &EngineWorker::rollout);
  connect(worker_, &EngineWorker::rolloutReady, attention_, &AttentionPanel::setRollout);
  connect(worker_, &EngineWorker::rolloutFailed, attention_, &AttentionPanel::setRolloutError);
  connect(worker_, &EngineWorker::turnFinished, this, &MainWindow::onTurnFinished);
  connect(worker_, &EngineWorker::error, this, &MainWindow::onError);

  connect(this, &MainWindow::requestContinue, worker_, &EngineWorker::continueConversation);
  connect(worker_, &EngineWorker::progress, this, &MainWindow::onProgress);
  connect(worker_, &EngineWorker::cancelled, this, &MainWindow::onCancelled);
  // A context length above what the model holds is lowered to it: said, not hidden.
  connect(worker_, &EngineWorker::contextLimitApplied, this, [this](int asked, int limit, int modelLimit) {
    if (asked > limit)
      showKeyedNotice(QStringLiteral("context-length"),
                      tr("Context length: this model holds at most %L1 tokens, so chats are limited to %L2 "
                         "(Settings asks for %L3).").arg(modelLimit).arg(limit).arg(asked),
                      static_cast<int>(NoticeBar::Kind::kInfo));
    else
      clearNotice(QStringLiteral("context-length"));
  });
  connect(worker_, &EngineWorker::contextUsage, this, [this](int used, int limit) {
    contextUsed_ = used;
    contextLimit_ = limit;
    updateContextMeter();
  });
  connect(chat_->input(), &QPlainTextEdit::textChanged, this, &MainWindow::updateContextMeter);
  connect(worker_, &EngineWorker::conversationContinued, this, [this](int, int) {
    needsContinue_ = false;
    if (rereadTimer_.isValid()) {  // said under the answer it was for (issue 34: not shown)
      rereadSeconds_ = static_cast<double>(rereadTimer_.elapsed()) / 1000.0;
      rereadTimer_.invalidate();
    }
    clearNotice(QStringLiteral("model-changed"));  // done: it has been re-read
    chat_->setProgress(QString(), 0.0);
    std::function<void()> command = std::move(afterContinue_);
    afterContinue_ = nullptr;
    if (command) command();
  });

  // The chat's requests. Stop goes straight to the worker's atomic, not through the queue.
  // A conversation opened from the sidebar (or kept across a model switch) is first
  // continued in the engine (whenContinued); one whose images are gone is read-only.
  connect(chat_, &ChatView::sendRequested, this, [this](const QString& text) {
    // The attached images move from the strip into the message's bubble.
    AttachmentStrip* strip = chat_->attachments();
    sentThumbs_ = strip->images();
    sentNames_.clear();
    for (int i = 0; i < strip->count(); ++i) sentNames_.push_back(strip->nameAt(i));
    sentPreviews_ = pendingPreviews_;
    chat_->setLastUserImages(sentThumbs_);
    strip->clear();
    pendingUser_ = text;
    replaceLastTurn_ = false;
    regenerating_ = false;
    startTurn();
    whenContinued([this, text] { Q_EMIT requestSend(text, turnOptions()); });
  });
  connect(chat_, &ChatView::regenerateRequested, this, [this] {
    if (readOnly_ || current_.turns.empty()) return;
    pendingUser_ = current_.turns.back().user_text;
    replaceLastTurn_ = true;
    regenerating_ = true;
    startTurn();
    whenContinued([this] { Q_EMIT requestRegenerate(turnOptions()); });
  });
  connect(chat_, &ChatView::editResendRequested, this, [this](const QString& text) {
    if (readOnly_ || current_.turns.empty()) return;
    pendingUser_ = text;
    replaceLastTurn_ = true;
    regenerating_ = false;
    startTurn();
    whenContinued([this, text] { Q_EMIT requestEdit(text, turnOptions()); });
  });
  connect(chat_, &ChatView::alternativeRequested, this, &MainWindow::chooseAnswer);
  connect(chat_, &ChatView::editMessageRequested, this, &MainWindow::editMessage);
  connect(chat_, &ChatView::forkRequested, this, &MainWindow::forkConversation);
  connect(chat_, &ChatView::stopRequested, this, [this] { worker_->stop(); });
  connect(chat_, &ChatView::imagePasteRequested, this, [this] {
    if (prepareChatForImage()) dropArea_->pasteFromClipboard();
  });
  connect(chat_->attachments(), &AttachmentStrip::removeRequested, this, &MainWindow::removeAttachment);
  connect(chat_, &ChatView::imageClicked, this, &MainWindow::showMessageImage);
  connect(chat_, &ChatView::answerMapsRequested, this, &MainWindow::showAnswerMaps);
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
  // What is loading, not what was running: the backend and precision come with the new model
  // (the label named the previous precision during the load: issue 34).
  backendLabel_->setText(tr("\u00B7 precision %1").arg(settings_->value(QStringLiteral("precision"))));
  loadBar_->setFormat(QStringLiteral("%p%"));
  loadBar_->setValue(0);
  loadBar_->setVisible(true);
  cancelLoad_->setVisible(true);
  chat_->setBusy(true);
  const settings::Values values = settings_->values();
  Q_EMIT requestLoad(dir, settings::ToEngineOptions(values));
}

void MainWindow::loadDefaultModel() { loadModel(Q(glance::DefaultDemoModelDir())); }

void MainWindow::attachImageFile(const QString& path, bool caption, const QString& name) {
  if (readOnly_) chat_->newChatAction()->trigger();  // an image starts a live conversation
  // A file in a temporary folder (a browser's drag, an archive viewer) may vanish: keep a
  // copy beside the conversations so the saved chat can find it again.
  QString kept = path;
  if (QFileInfo(path).absolutePath().startsWith(QDir::tempPath())) {
    QString error;
    kept = store_->keepImageFile(path, &error);
    if (kept.isEmpty()) kept = path;
  }
  bool oneOffFast = false;
  if (!confirmDetail(kept, &oneOffFast)) return;
  QString error;
  Incoming incoming{LoadImagePreview(kept, &error), name.isEmpty() ? QFileInfo(path).fileName() : name};
  captionPending_ = caption;
  chat_->setBusy(true);  // Stop works while the image is encoded
  chat_->setProgress(tr("Encoding the image\u2026"), 0.0);
  dropArea_->showBusy(incoming.preview, incoming.name);
  chat_->attachments()->addImage(Thumbnail(incoming.preview), incoming.name);
  chat_->attachments()->setRemovable(false);  // not while the engine is encoding
  incoming_.push_back(std::move(incoming));
  // The chat preset's image mode, else the Settings' one (the worker's own, which folder
  // captioning uses too, so it is put back after this image).
  const ImageMode settingsMode = settings::ToImageMode(settings_->values());
  const ImageMode mode = oneOffFast ? ImageMode::kFast : imageMode();
  if (mode != settingsMode) Q_EMIT requestImageMode(mode);
  Q_EMIT requestAttachImage(kept);
  if (mode != settingsMode) Q_EMIT requestImageMode(settingsMode);  // queued: after this image
}

bool MainWindow::confirmDetail(const QString& path, bool* useFast) {
  *useFast = false;
  if (!confirmDetail_ || !modelLoaded_ || imageMode() != ImageMode::kDetail)
    return true;
  const DetailEstimate e = EstimateDetail(Q(model_.dir), QImageReader(path).size(),
                                          visionSecondsPerToken_, prefillTokensPerSecond_);
  if (e.tokens < kDetailWarnTokens) return true;
  QMessageBox box(QMessageBox::Warning, tr("A large image"), DetailWarningText(e),
                  QMessageBox::NoButton, this);
  QPushButton* detail = box.addButton(tr("Use detail mode"), QMessageBox::AcceptRole);
  QPushButton* fast = box.addButton(tr("Use fast mode"), QMessageBox::ActionRole);
  box.addButton(QMessageBox::Cancel);
  box.setDefaultButton(fast);
  box.exec();
  *useFast = box.clickedButton() == fast;
  return box.clickedButton() == detail || *useFast;
}

void MainWindow::attachImagePixels(const QImage& image, bool caption) {
  // Pasted or dropped pixels are written to the app's images folder first, so the saved
  // conversation keeps them and the engine hashes the same file a later session will find.
  QString error;
  const QString kept = store_->keepImage(image, &error);
  if (kept.isEmpty()) {
    dropArea_->showMessage(error);
    return;
  }
  attachImageFile(kept, caption, tr("Pasted image"));
}

void MainWindow::onLoadProgress(double fraction, const QString& what) {
  loadBar_->setValue(static_cast<int>(fraction * 1000.0));
  // The step goes in the label beside the bar: inside the narrow bar "language model" wrapped
  // onto two cut lines (issue 34). The bar keeps the percentage.
  loadBar_->setFormat(QStringLiteral("%p%"));
  loadBar_->setTextVisible(true);
  modelLabel_->setText(what.isEmpty() ? tr("Loading %1\u2026").arg(QFileInfo(loadingDir_).fileName())
                                      : tr("Loading %1: %2\u2026").arg(QFileInfo(loadingDir_).fileName(), what));
}

void MainWindow::onModelLoaded(const ModelInfo& info) {
  const bool replaced = modelLoaded_;
  model_ = info;
  modelLoaded_ = true;
  fallBackToDemo_ = false;
  // The choice is remembered for the next start: a model folder, or the demo (an empty
  // model_dir) when the user loaded it (not when it stands in for a model that failed).
  if (!info.is_demo) {
    settings_->setValue(QStringLiteral("model_dir"), Q(info.dir));
    rememberModelFolder(Q(info.dir));  // listed in Manage models
  }
  else if (!keepNoticeOnLoad_)
    settings_->setValue(QStringLiteral("model_dir"), QString());
  // The new engine has a fresh session (so no Reset: that would drop an image queued right
  // after the load): a live conversation cannot continue in it.
  Q_EMIT requestSystemPrompt(current_.system_prompt);
  if (replaced && !current_.turns.empty()) {
    // The new engine's session is empty: the next message re-reads the conversation in it.
    needsContinue_ = true;
    if (!readOnly_)
      showKeyedNotice(QStringLiteral("model-changed"),
                      tr("The model changed: your next message re-reads this conversation with %1 first.")
                          .arg(info.is_demo ? tr("the demo model") : Q(info.name)));
  } else if (!readOnly_ && !keepNoticeOnLoad_)  // an old failure is history once a model works
    showNotice(QString());
  // Loaded: the settings that waited for it are in effect now.
  pendingLoadSettings_.clear();
  clearNotice(QStringLiteral("reload"));
  if (!info.is_demo) clearNotice(QStringLiteral("demo-photo"));  // a real model knows photos
  keepNoticeOnLoad_ = false;
  loadBar_->setVisible(false);
  cancelLoad_->setVisible(false);
  chat_->setBusy(false);
  const QString name = info.is_demo ? tr("Demo model (shapes world)") : Q(info.name);
  modelLabel_->setText(name);
  modelLabel_->setToolTip(tr("%1\n%2 parameters \u00B7 %3").arg(Q(info.dir)).arg(info.parameters).arg(Q(info.dtypes)));
  // "· cpu · q8 weights": the precision that is running, whatever Settings asked for.
  const QString precision = Q(std::string(Name(info.precision)));
  // Why this backend (e.g. no NPU device node) is a sentence: it goes in the tooltip and in
  // Settings, not in the status bar, where it pushed the precision and the server's URL out.
  backendLabel_->setText(tr("\u00B7 %1 \u00B7 %2 weights").arg(Q(info.backend), precision));
  backendLabel_->setToolTip(
      info.precision_reason.empty()
          ? Q(info.backend_reason)
          : tr("%1\nPrecision auto: %2").arg(Q(info.backend_reason), Q(info.precision_reason)));
  attention_->setModelDescription(Q(info.name), precision);
  threadsLabel_->setText(ThreadCount(info.threads));
  updateMemory();  // its "·" follows the thread count
  Q_EMIT modelReady(info);
}

void MainWindow::onImageAttached(const ImageInfo& info) {
  const Incoming incoming = incoming_.empty() ? Incoming{} : incoming_.front();
  if (!incoming_.empty()) incoming_.pop_front();
  if (incoming_.empty()) chat_->setBusy(false);
  const QImage processed = ProcessedView(incoming.preview, info.resized_w, info.resized_h);
  dropArea_->setImageInfo(info, processed, incoming.name);
  attention_->clear();
  attention_->setImage(processed, incoming.preview);
  ++imageCount_;
  pendingImages_.push_back(info);
  pendingPreviews_.push_back(processed);
  chat_->attachments()->setReady(static_cast<int>(pendingImages_.size()) - 1, DescribeImage(info));
  if (model_.is_demo && LooksLikeAPhoto(incoming.preview))
    showKeyedNotice(QStringLiteral("demo-photo"),
                    tr("The demo model only knows simple coloured shapes, so it will describe this "
                       "picture as shapes. For photos and screenshots, download a real model."),
                    static_cast<int>(NoticeBar::Kind::kInfo), tr("&Download a model\u2026"),
                    [this] { openDownloads(); });
  updateContextMeter();
  chat_->attachments()->setRemovable(incoming_.empty());
  if (captionPending_ && incoming_.empty()) {
    captionPending_ = false;
    chat_->submit(tr("Describe this image."));
  }
}

void MainWindow::whenContinued(std::function<void()> command) {
  if (!needsContinue_ || current_.turns.empty()) {
    needsContinue_ = false;
    command();
    return;
  }
  SavedConversation history;
  QString why;
  if (!savedHistory(&history, regenerating_, &why)) {
    setReadOnly(true, why);
    showConversation(current_);  // drop the message the chat added; the notice says why
    chat_->setBusy(false);
    answering_ = false;
    updateContextMeter();
    return;
  }
  afterContinue_ = std::move(command);
  rereadTimer_.start();
  rereadSeconds_ = -1.0;
  chat_->setProgress(tr("Re-reading the conversation\u2026"), 0.0);
  Q_EMIT requestContinue(history);
}

bool MainWindow::savedHistory(SavedConversation* out, bool dropLastAnswer, QString* why) const {
  out->clear();
  for (const ConversationTurn& turn : current_.turns) {
    SavedTurn saved;
    saved.user_text = turn.user_text.toStdString();
    saved.answer = turn.answer.toStdString();
    saved.parts = turn.parts;  // empty for chats saved before version 3: images, then text
    for (const ImageInfo& info : turn.images) {
      const QString path = store_->findImage(Q(info.path), Q(info.sha256));
      if (path.isEmpty()) {
        *why = info.path.empty()
                   ? tr("Read-only: a pasted image of this conversation was not kept. Start a New chat.")
                   : tr("Read-only: the image %1 is gone or changed. Start a New chat.").arg(Q(info.path));
        return false;
      }
      saved.images.push_back({path.toStdString(), info.sha256, info.mode});
    }
    out->push_back(std::move(saved));
  }
  if (dropLastAnswer && !out->empty()) out->back().answer.clear();
  return true;
}

void MainWindow::onProgress(const Progress& p) {
  const double fraction = p.total > 0 ? static_cast<double>(p.done) / static_cast<double>(p.total) : 0.0;
  QString what;
  if (p.stage == Progress::Stage::kImage)
    what = p.images > 1 ? tr("Encoding image %1 of %2: %3%").arg(p.image + 1).arg(p.images)
                                .arg(qRound(fraction * 100))
                        : tr("Encoding the image: %1%").arg(qRound(fraction * 100));
  else
    what = tr("Reading the prompt: %1 of %2 tokens").arg(p.done).arg(p.total);
  chat_->setProgress(what, fraction);
}

void MainWindow::onCancelled(const QString& during) {
  chat_->setBusy(false);
  afterAnswer();
  if (during == QStringLiteral("image")) {
    captionPending_ = false;
    dropIncomingImage();
    dropArea_->showMessage(tr("Stopped: the image was not attached."));
  } else if (during == QStringLiteral("continue")) {
    afterContinue_ = nullptr;
    showConversation(current_);  // as it was; the next message tries again
    showKeyedNotice(QStringLiteral("model-changed"),
                    tr("Stopped re-reading the conversation; the next message starts it again."));
  } else {
    chat_->failAnswer(tr("stopped before the answer began"));
    restoreSentImages();  // the session keeps them for the next message
  }
}

QString MainWindow::liveRateText() const { return rateLabel_->text(); }

void MainWindow::afterAnswer() {
  clearNotice(QStringLiteral("wait-answer"));  // no longer true
  answering_ = false;
  rateLabel_->clear();
  firstPiece_.invalidate();
  updateContextMeter();  // the engine's exact count follows (contextUsage)
  if (!openAfterStop_.isEmpty()) {  // "Stop and open" on another conversation
    const QString id = openAfterStop_;
    openAfterStop_.clear();
    QTimer::singleShot(0, this, [this, id] { openConversation(id); });
  }
}

void MainWindow::startTurn() {
  worker_->rearm();  // before queueing, so a Stop pressed while it waits still counts
  chat_->setBusy(true);
  answering_ = true;
  answerPieces_ = 0;
  updateContextMeter();
}

void MainWindow::onTurnFinished(const TurnResult& result) {
  // This machine's rates, for the next detail-mode estimate.
  if (result.stats.image_tokens > 0 && ImageSeconds(result.stats) > 0.0)
    visionSecondsPerToken_ = ImageSeconds(result.stats) / result.stats.image_tokens;
  if (result.stats.prefill_tokens_per_s > 0.0) prefillTokensPerSecond_ = result.stats.prefill_tokens_per_s;
  // This answer first re-read the saved conversation: a stage of its own (kReReadStage) before
  // the answer's, in the saved stats, the Timing panel and the stats line, which says it again
  // when the chat is reopened.
  TurnStats stats = result.stats;  // the stats only: the result's maps are not copied
  if (rereadSeconds_ >= 0.0) {
    stats.stages.insert(stats.stages.begin(), StageTime{kReReadStage, rereadSeconds_, 1});
    rereadSeconds_ = -1.0;
  }
  chat_->finishAnswer(stats, Q(result.stop_reason));
  // Speculative auto found this machine's record damaged and decoded plainly: say so once
  // (the CLI prints the same line on stderr).
  if (!result.stats.speculative_warning.empty())
    showKeyedNotice(QStringLiteral("speculative"), Q(result.stats.speculative_warning),
                    static_cast<int>(NoticeBar::Kind::kWarning));
  if (result.stop_reason == "context")  // the answer is kept as far as it went
    showKeyedNotice(QStringLiteral("context"),
                    tr("This chat is full: it reached its context length of %L1 tokens, so the answer "
                       "stops there (it is kept). Start a new chat to go on, or raise Context length "
                       "in Settings.").arg(contextLimit_),
                    static_cast<int>(NoticeBar::Kind::kWarning), tr("&New chat"),
                    [this] { chat_->newChatAction()->trigger(); });
  else
    clearNotice(QStringLiteral("context"));  // an answer that fitted: no longer true
  recordTurn(result, stats);
  chat_->setBusy(false);
  afterAnswer();
  showTiming(current_, false);  // recordTurn put the answer in current_: a new turn, or its turn's new answer
  // The panel draws one image: keep the maps over the newest one.
  std::vector<AttentionMap> maps;
  for (const AttentionMap& m : result.attention)
    if (m.image_index == imageCount_ - 1) maps.push_back(m);
  if (!maps.empty() && maps.size() == result.attention.size())
    attention_->setAttention(result.attention, result.words);
  else if (!maps.empty())
    attention_->setAttention(std::move(maps), {});
  lastImageMaps_ = result.attention_by_image;
  lastWords_ = result.words;
  if (lastImageMaps_.size() > 1)
    statusBar()->showMessage(tr("This message has %1 images: click one in the chat to see the "
                                "answer's attention over it.").arg(lastImageMaps_.size()), 15000);
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
      modelLabel_->setText(model_.is_demo ? tr("Demo model (shapes world)") : Q(model_.name));
      backendLabel_->setText(tr("\u00B7 %1 \u00B7 %2 weights").arg(Q(model_.backend), Q(std::string(Name(model_.precision)))));
      showKeyedNotice(QStringLiteral("load"), tr("Could not load %1: %2\nStill using %3.").arg(what, message, Q(model_.name)),
                      static_cast<int>(NoticeBar::Kind::kError));
    } else if (fallBackToDemo_) {
      fallBackToDemo_ = false;
      showKeyedNotice(QStringLiteral("load"),
                      tr("Could not load the last model %1: %2\nUsing the demo model instead.")
                          .arg(loadingDir_, message),
                      static_cast<int>(NoticeBar::Kind::kWarning));
      keepNoticeOnLoad_ = true;  // the demo's load must not wipe why it is the demo
      loadDefaultModel();
    } else {
      modelLabel_->setText(tr("No model"));
      backendLabel_->clear();
      showKeyedNotice(QStringLiteral("load"), tr("Could not load %1: %2").arg(what, message),
                      static_cast<int>(NoticeBar::Kind::kError), tr("Load the &demo model"),
                      [this] { loadDefaultModel(); });
    }
  } else if (during == QStringLiteral("context")) {
    // The message does not fit: nothing was sent; it goes back into the box (unless something
    // new was typed there), its images back onto the strip. The transcript shows the chat as it
    // is kept: not the refused message's bubble, and a regenerated answer that never came back.
    showTranscript(current_);
    chat_->setBusy(false);
    restoreSentImages();
    if (chat_->input()->toPlainText().trimmed().isEmpty() && !regenerating_)  // a new or edited message
      chat_->input()->setPlainText(pendingUser_);
    afterAnswer();
    showKeyedNotice(QStringLiteral("context"),
                    regenerating_ ? tr("This chat is full: %1. Start a new chat, or raise Context length in "
                                       "Settings.").arg(message)
                                  : tr("This chat is full: %1. Your message is back in the box: start a new "
                                       "chat to send it there, or raise Context length in Settings.").arg(message),
                    static_cast<int>(NoticeBar::Kind::kWarning), tr("&New chat"),
                    [this] { chat_->newChatAction()->trigger(); });
  } else if (during == QStringLiteral("choose")) {
    showKeyedNotice(QStringLiteral("choose"), tr("Could not switch answers: %1").arg(message),
                    static_cast<int>(NoticeBar::Kind::kError));
  } else if (during == QStringLiteral("settings")) {
    showKeyedNotice(QStringLiteral("settings"), message, static_cast<int>(NoticeBar::Kind::kWarning));
  } else if (during == QStringLiteral("server")) {
    // Gone once the server starts (main_window_tools.cpp); the panel is where it is set up.
    showKeyedNotice(QStringLiteral("server"), tr("Local server: %1").arg(message),
                    static_cast<int>(NoticeBar::Kind::kError), tr("Server &panel\u2026"), [this] { openServerPanel(); });
  } else if (during == QStringLiteral("folder")) {
    if (captionFolder_) captionFolder_->onFailed(message);
  } else if (during == QStringLiteral("image")) {
    captionPending_ = false;
    dropIncomingImage();
    chat_->setBusy(!incoming_.empty());
    dropArea_->showMessage(message);
  } else if (during == QStringLiteral("remove-image")) {
    chat_->attachments()->setRemovable(true);
    dropArea_->showMessage(message);
  } else if (during == QStringLiteral("continue")) {
    afterContinue_ = nullptr;
    chat_->setBusy(false);
    afterAnswer();
    setReadOnly(true, tr("Read-only: %1").arg(message));
    showConversation(current_);
  } else {
    chat_->failAnswer(message);
    chat_->setBusy(false);
    restoreSentImages();
    afterAnswer();
  }
  statusBar()->showMessage(message, 10000);
  Q_EMIT failed(message);
}

}  // namespace glance::ui
