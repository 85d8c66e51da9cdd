// MainWindow: conversations. The current conversation is saved to the ConversationStore after
// every finished turn; a saved one reopens with its transcript, last attention maps and
// timings. Delete goes to the store's trash (the sidebar offers Undo).
#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPlainTextEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalBlocker>
#include <QStatusBar>

#include "ui/attachment_strip.h"
#include "ui/attention_panel.h"
#include "ui/chat_preset_bar.h"
#include "ui/chat_preset_store.h"
#include "ui/chat_view.h"
#include "ui/context_meter.h"
#include "ui/conversation_sidebar.h"
#include "ui/conversation_store.h"
#include "ui/engine_worker.h"
#include "ui/heatmap.h"
#include "ui/image_drop_area.h"
#include "ui/main_window.h"
#include "ui/notice_bar.h"
#include "ui/settings_store.h"
#include "ui/timing_panel.h"

namespace glance::ui {
QListWidget* MainWindow::conversations() const { return sidebar_->list(); }

void MainWindow::buildConversationMenu(QMenu* file) {
  QAction* exportMd = file->addAction(tr("E&xport conversation as Markdown\u2026"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export as Markdown"),
                                                      ExportFileName(current_, QStringLiteral(".md")),
                                                      tr("Markdown (*.md)"));
    if (!path.isEmpty()) exportConversation(path, true);
  });
  QAction* exportJson = file->addAction(tr("Export conversation as &JSON\u2026"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export as JSON"),
                                                      ExportFileName(current_, QStringLiteral(".json")),
                                                      tr("JSON (*.json)"));
    if (!path.isEmpty()) exportConversation(path, false);
  });
  // Nothing to export in an empty conversation.
  connect(file, &QMenu::aboutToShow, this, [this, exportMd, exportJson] {
    exportMd->setEnabled(!current_.turns.empty());
    exportJson->setEnabled(!current_.turns.empty());
  });
  connect(sidebar_, &ConversationSidebar::openRequested, this, &MainWindow::openConversation);
  connect(sidebar_, &ConversationSidebar::newChatRequested, chat_->newChatAction(), &QAction::trigger);
  connect(sidebar_, &ConversationSidebar::removed, this, [this](const QString& id) {
    // The deleted conversation leaves the screen too (the sidebar offers Undo).
    if (id == current_.id && !chat_->isBusy()) chat_->newChatAction()->trigger();
    else if (id == current_.id) current_.id.clear();  // answering: a new turn saves it anew
  });
  connect(sidebar_, &ConversationSidebar::restored, this, [this](const QString& id) {
    if (current_.turns.empty() && !chat_->isBusy()) openConversation(id);
  });
  connect(sidebar_, &ConversationSidebar::renamed, this, [this](const QString& id, const QString& title) {
    if (id == current_.id) current_.title = title;
  });
}

void MainWindow::newChat() {
  // The transcript goes too, with its thumbnails: called directly (not through New chat, which
  // clears the view first) it kept the left chat's messages, and every later message took a
  // new place in the document, each with its image (issue 35: ~300 KiB a chat in app_soak).
  chat_->clear();
  imageCount_ = 0;
  attention_->clear();
  dropArea_->clearImage();
  attention_->setImage(QImage());
  timing_->setTurns({}, true);
  pendingImages_.clear();
  pendingPreviews_.clear();
  sentThumbs_.clear();
  sentPreviews_.clear();
  sentNames_.clear();
  lastImageMaps_.clear();
  chat_->attachments()->clear();  // the session's Reset drops them too
  current_ = Conversation();
  needsContinue_ = false;
  afterContinue_ = nullptr;
  current_.system_prompt = settings_->value(QStringLiteral("system_prompt"));
  current_.preset = presetStore_->defaultPreset();  // new chats start with the last one chosen
  presetBar_->setCurrent(current_.preset);
  updateContextMeter();
  setReadOnly(false);
  showNotice(QString());  // a new chat starts with a clean slate, old notices included
  sidebar_->setCurrentId(QString());
  Q_EMIT requestReset();  // first: the system prompt can only change in an empty session
  Q_EMIT requestSystemPrompt(current_.system_prompt);
}

void MainWindow::setReadOnly(bool on, const QString& why) {
  readOnly_ = on;
  // The input stays enabled: what the user types is kept (for a New chat), never dropped.
  const QString reason = why.isEmpty() ? tr("Read-only: start a New chat to continue.") : why;
  chat_->setReadOnly(on, reason);
  if (on)
    showKeyedNotice(QStringLiteral("read-only"), reason, static_cast<int>(NoticeBar::Kind::kWarning),
                    tr("&New chat"), [this] { chat_->newChatAction()->trigger(); });
  else
    clearNotice(QStringLiteral("read-only"));
}

bool MainWindow::openConversation(const QString& id) {
  if (chat_->isBusy()) {
    // It goes when the answer ends; or stop it and open the other chat then.
    showKeyedNotice(QStringLiteral("wait-answer"),
                    tr("An answer is being written in this conversation."),
                    static_cast<int>(NoticeBar::Kind::kInfo), tr("&Stop and open the other"),
                    [this, id] {
                      openAfterStop_ = id;
                      worker_->stop();
                    });
    sidebar_->setCurrentId(current_.id);
    return false;
  }
  QString error;
  std::optional<Conversation> loaded = store_->load(id, &error);
  if (!loaded) {
    showKeyedNotice(QStringLiteral("open"), tr("Could not open the conversation: %1").arg(error),
                    static_cast<int>(NoticeBar::Kind::kError));
    return false;
  }
  current_ = std::move(*loaded);
  // Images attached and not sent stay in the strip: Session::Continue keeps them for the next
  // message of the opened conversation.
  lastImageMaps_.clear();
  afterContinue_ = nullptr;
  // The engine does not hold it yet: the next message re-reads it there first. That needs
  // every image, found by path or by sha256 among the kept ones. Set before it is shown, so the
  // context meter counts this chat's tokens at once (it showed the session's 0 until then).
  needsContinue_ = !current_.turns.empty();
  showConversation(current_);
  sidebar_->setCurrentId(current_.id);
  presetBar_->setCurrent(current_.preset);  // the chat's own preset ('NAME (deleted)' if gone)
  SavedConversation history;
  QString why;
  setReadOnly(!savedHistory(&history, false, &why), why);
  if (!readOnly_) showNotice(QString());
  return true;
}

void MainWindow::showTranscript(const Conversation& conversation) {
  chat_->clear();
  for (const ConversationTurn& turn : conversation.turns)
    chat_->addExchange(turn.user_text, turn.answer, turn.stats, turn.stop_reason, thumbnailsOf(turn), turn.chosen,
                       static_cast<int>(turn.alternatives.size()));
}

void MainWindow::showTiming(const Conversation& conversation, bool fresh) {
  std::vector<TurnStats> stats;
  for (const ConversationTurn& turn : conversation.turns) stats.push_back(turn.stats);
  timing_->setTurns(std::move(stats), fresh);
}

void MainWindow::showConversation(const Conversation& conversation) {
  showTranscript(conversation);
  showTiming(conversation, true);
  attention_->clear();
  dropArea_->clearImage();
  attention_->setImage(QImage());
  imageCount_ = 0;
  // The last image of the conversation and the last turn's maps over it.
  const ImageInfo* last = nullptr;
  for (const ConversationTurn& turn : conversation.turns)
    for (const ImageInfo& info : turn.images) {
      last = &info;
      ++imageCount_;
    }
  if (last) {
    QString path = store_->findImage(Q(last->path), Q(last->sha256));
    if (path.isEmpty() && QFileInfo::exists(Q(last->path))) path = Q(last->path);  // changed: still show it
    QString error;
    const QImage source = path.isEmpty() ? QImage() : LoadImagePreview(path, &error);
    if (path.isEmpty()) {
      dropArea_->showMessage(last->path.empty()
                                 ? tr("The pasted image of this conversation was not kept.")
                                 : tr("The image %1 is no longer there.").arg(Q(last->path)));
    } else if (source.isNull()) {
      dropArea_->showMessage(error);
    } else {
      const QImage processed = ProcessedView(source, last->resized_w, last->resized_h);
      dropArea_->setImageInfo(*last, processed);
      attention_->setImage(processed, source);
    }
  }
  if (!conversation.turns.empty()) {
    const ConversationTurn& turn = conversation.turns.back();
    std::vector<AttentionMap> maps;
    for (const AttentionMap& m : turn.attention)
      if (m.image_index == imageCount_ - 1) maps.push_back(m);
    // Words index the steps of all maps; they only fit when every map is over this image.
    const bool allMaps = maps.size() == turn.attention.size();
    if (!maps.empty())
      attention_->setAttention(std::move(maps), allMaps ? turn.words : std::vector<AttentionWord>{});
  }
  imageCount_ += static_cast<int>(pendingImages_.size());  // attached, waiting for the next message
  updateContextMeter();
}

void MainWindow::updateContextMeter() {
  ContextUsage usage;
  usage.limit = contextLimit_;
  usage.used = contextUsed_;
  // A saved chat is re-read into the session when it is next sent to: until then, what its last
  // turn left (TurnStats::context_tokens) is what the session will hold.
  if (needsContinue_ && !current_.turns.empty()) usage.used = current_.turns.back().stats.context_tokens;
  if (answering_) {
    // The message being answered is in the context now (its images and text, not the next
    // message's: issue 34), and so is each streamed piece (about one token); the engine's exact
    // count replaces the estimate when the turn ends.
    ContextUsage sent;
    for (const ImageInfo& info : pendingImages_) sent.image_tokens += ImageContextTokens(info.tokens());
    sent.text_bytes = static_cast<int>(pendingUser_.trimmed().toUtf8().size());
    usage.used += (replaceLastTurn_ ? 0 : sent.next_message_tokens()) + answerPieces_;
    usage.estimated = true;
  } else {
    for (const ImageInfo& info : pendingImages_) usage.image_tokens += ImageContextTokens(info.tokens());
  }
  usage.text_bytes = static_cast<int>(chat_->input()->toPlainText().trimmed().toUtf8().size());
  usage.answer_tokens = options_.max_new_tokens;
  chat_->contextMeter()->setUsage(usage);
}

void MainWindow::recordTurn(const TurnResult& result, const TurnStats& stats) {
  ConversationTurn turn;
  turn.user_text = pendingUser_;
  turn.answer = Q(result.text);
  turn.stop_reason = Q(result.stop_reason);
  turn.stats = stats;
  turn.attention = result.attention;
  turn.words = result.words;
  turn.attention_by_image = result.attention_by_image;
  turn.model = Q(model_.name);
  const bool replace = replaceLastTurn_ && !current_.turns.empty();
  turn.images = replace ? current_.turns.back().images : std::move(pendingImages_);  // an edit keeps its images
  turn.parts = ImagesThenText(turn.images.size(), turn.user_text);  // as the app sends a message
  if (replace && regenerating_) {
    // Regenerate keeps the earlier answers: ◀ 2/3 ▶ under the last one.
    ConversationTurn& last = current_.turns.back();
    const bool same = last.answer == turn.answer;
    AddAlternative(last, CurrentAnswer(turn));
    chat_->setLastAnswerAlternatives(last.chosen, static_cast<int>(last.alternatives.size()));
    // Greedy decoding writes the same answer again: say why, and how to get another.
    if (same && !result.stats.seed)
      showKeyedNotice(QStringLiteral("regenerate-same"),
                      tr("The same answer again: greedy decoding always picks the likeliest words. For a "
                         "different one, choose a preset that samples (e.g. Creative) or sampling in Settings."),
                      static_cast<int>(NoticeBar::Kind::kInfo), QString(), nullptr, 10000);
  } else if (replace) {
    current_.turns.back() = std::move(turn);  // an edited message: a new exchange
  } else {
    current_.turns.push_back(std::move(turn));
  }
  pendingImages_.clear();
  pendingPreviews_.clear();
  sentThumbs_.clear();
  sentPreviews_.clear();
  sentNames_.clear();
  updateContextMeter();
  if (current_.title.isEmpty())
    current_.title = AutoTitle(current_.turns.front().user_text, current_.turns.front().answer);
  QString error;
  if (!store_->save(current_, &error)) {
    showKeyedNotice(QStringLiteral("save"), tr("The conversation could not be saved: %1").arg(error),
                    static_cast<int>(NoticeBar::Kind::kError));
    return;
  }
  clearNotice(QStringLiteral("save"));  // an earlier failed save is no longer true: this one has it all
  sidebar_->refresh();
  sidebar_->setCurrentId(current_.id);
}

bool MainWindow::chooseAnswer(int index) {
  if (chat_->isBusy() || readOnly_ || current_.turns.empty()) return false;
  ConversationTurn& turn = current_.turns.back();
  if (!ChooseAlternative(turn, index)) return false;
  const int count = static_cast<int>(turn.alternatives.size());
  chat_->showLastAnswer(turn.answer, turn.stats, turn.stop_reason, turn.chosen, count);
  showTiming(current_, false);  // the chosen answer's bar and latencies
  // The engine's session continues from it (a saved chat not yet re-read takes it from current_).
  if (!needsContinue_) Q_EMIT requestChooseAnswer(turn.answer);
  // Its maps, when this session made them (a reopened chat keeps the shown answer's only).
  lastImageMaps_ = turn.attention_by_image;
  lastWords_ = turn.words;
  const int image = imageCount_ - 1 - static_cast<int>(pendingImages_.size());
  std::vector<AttentionMap> maps;
  for (const AttentionMap& m : turn.attention)
    if (m.image_index == image) maps.push_back(m);
  const bool allMaps = maps.size() == turn.attention.size();
  attention_->setAttention(std::move(maps), allMaps ? turn.words : std::vector<AttentionWord>{});
  statusBar()->showMessage(tr("Answer %1 of %2: the conversation continues from it.").arg(turn.chosen + 1).arg(count),
                           5000);
  updateContextMeter();
  QString error;
  if (!store_->save(current_, &error))
    showKeyedNotice(QStringLiteral("save"), tr("The conversation could not be saved: %1").arg(error),
                    static_cast<int>(NoticeBar::Kind::kError));
  return true;
}

QString MainWindow::forkConversation(int turn) {
  if (chat_->isBusy()) {
    showKeyedNotice(QStringLiteral("wait-answer"), tr("Wait for the answer (or Stop it) before forking."),
                    static_cast<int>(NoticeBar::Kind::kInfo));
    return {};
  }
  if (turn < 0 || turn >= static_cast<int>(current_.turns.size())) return {};
  Conversation fork = current_;
  fork.turns.resize(static_cast<size_t>(turn) + 1);
  fork.id.clear();
  fork.created = QDateTime();
  const QString title = current_.title.isEmpty()
                            ? AutoTitle(current_.turns.front().user_text, current_.turns.front().answer)
                            : current_.title;
  const QString suffix = tr(" (fork)");
  fork.title = title.endsWith(suffix) ? title : title + suffix;  // a fork of a fork: still "… (fork)"
  QString error;
  if (!store_->save(fork, &error)) {
    showKeyedNotice(QStringLiteral("save"), tr("The fork could not be saved: %1").arg(error),
                    static_cast<int>(NoticeBar::Kind::kError));
    return {};
  }
  sidebar_->refresh();
  if (!openConversation(fork.id)) return {};
  statusBar()->showMessage(tr("Forked into \u201C%1\u201D; the original is unchanged.").arg(fork.title), 8000);
  return fork.id;
}

bool MainWindow::editMessage(int turn, const QString& text) {
  const int last = static_cast<int>(current_.turns.size()) - 1;
  if (chat_->isBusy() || readOnly_ || turn < 0 || turn > last || text.trimmed().isEmpty()) return false;
  if (turn < last) {
    EditEarlier choice = editEarlier_;
    if (choice == EditEarlier::kAsk) {
      QMessageBox box(QMessageBox::Question, tr("Edit an earlier message"),
                      last - turn == 1
                          ? tr("Message %1 is answered again. The message after it and its answer would go.")
                                .arg(turn + 1)
                          : tr("Message %1 is answered again. The %2 messages after it and their answers "
                               "would go.").arg(turn + 1).arg(last - turn),
                      QMessageBox::NoButton, this);
      QPushButton* fork = box.addButton(tr("Edit in a &fork"), QMessageBox::AcceptRole);
      fork->setToolTip(tr("A new chat with the messages up to this one; this chat stays as it is"));
      QPushButton* here = box.addButton(tr("Edit &here, drop them"), QMessageBox::DestructiveRole);
      box.addButton(QMessageBox::Cancel);
      box.setDefaultButton(fork);
      box.exec();
      if (box.clickedButton() == fork) choice = EditEarlier::kFork;
      else if (box.clickedButton() == here) choice = EditEarlier::kDropLater;
      else {
        chat_->input()->setPlainText(text);  // nothing lost
        return false;
      }
    }
    if (choice == EditEarlier::kFork) {
      if (forkConversation(turn).isEmpty()) return false;
    } else {
      // Cut after the message; the engine holds more than that, so it re-reads the rest.
      current_.turns.resize(static_cast<size_t>(turn) + 1);
      needsContinue_ = true;
      showConversation(current_);
      QString error;
      if (!store_->save(current_, &error))
        showKeyedNotice(QStringLiteral("save"), tr("The conversation could not be saved: %1").arg(error),
                        static_cast<int>(NoticeBar::Kind::kError));
    }
  }
  if (readOnly_) return false;  // the fork's images could not be found
  chat_->resendLastEdited(text);  // editResendRequested: continued first when needed
  return true;
}

bool MainWindow::exportConversation(const QString& path, bool markdown) {
  QString error;
  const auto find = [this](const ImageInfo& img) { return store_->findImage(Q(img.path), Q(img.sha256)); };
  int images = 0;
  const bool ok = markdown ? ConversationStore::ExportMarkdown(current_, path, &error, find, &images)
                           : ConversationStore::ExportJson(current_, path, &error);
  // The images' folder is named: whoever sends or moves the file must take it along.
  const QString folder = QFileInfo(path).completeBaseName() + QStringLiteral("_images");
  const QString text = images == 0 ? tr("Exported to %1.").arg(path)
                       : images == 1
                           ? tr("Exported to %1, its image in %2 beside it (keep them together).").arg(path, folder)
                           : tr("Exported to %1, its %2 images in %3 beside it (keep them together).")
                                 .arg(path)
                                 .arg(images)
                                 .arg(folder);
  if (ok)  // passing news: it goes by itself
    showKeyedNotice(QStringLiteral("export"), text, static_cast<int>(NoticeBar::Kind::kInfo), {}, {}, 8000);
  else
    showKeyedNotice(QStringLiteral("export"), tr("Export failed: %1").arg(error),
                    static_cast<int>(NoticeBar::Kind::kError));
  return ok;
}

void MainWindow::openNewestConversation() {
  const QStringList ids = sidebar_->visibleIds();
  if (!ids.isEmpty()) openConversation(ids.front());
}

}  // namespace glance::ui
