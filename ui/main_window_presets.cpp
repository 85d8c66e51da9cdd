// MainWindow: chat presets (issue 34) — the preset box under the chat, Chat ▸ Presets, and the
// preset's sampling, length, thinking and system prompt applied to the next message, its image
// mode to the next image.
#include <QBoxLayout>
#include <QMenu>
#include <QMenuBar>

#include "core/engine/chat_preset.h"
#include "core/settings/registry.h"
#include "ui/chat_preset_bar.h"
#include "ui/chat_preset_store.h"
#include "ui/chat_view.h"
#include "ui/engine_worker.h"
#include "ui/main_window.h"
#include "ui/notice_bar.h"
#include "ui/settings_file.h"
#include "ui/settings_store.h"

namespace glance::ui {

void MainWindow::buildPresets(QBoxLayout* centre) {
  presetStore_ = new ChatPresetStore(SettingsFile::Open(settings_->backend().path()), this);
  presetBar_ = new ChatPresetBar(presetStore_, this);
  // Under the message box, in line with it (the chat's own margins).
  const QMargins chat = chat_->layout() ? chat_->layout()->contentsMargins() : QMargins();
  presetBar_->setContentsMargins(chat.left(), 0, chat.right(), chat.bottom());
  centre->addWidget(presetBar_);
  connect(presetBar_, &ChatPresetBar::presetChosen, this, &MainWindow::chooseChatPreset);
  connect(presetBar_, &ChatPresetBar::problem, this, [this](const QString& message) {
    showKeyedNotice(QStringLiteral("presets"), message, static_cast<int>(NoticeBar::Kind::kError));
  });
  connect(presetBar_, &ChatPresetBar::message, this, [this](const QString& message) {
    showKeyedNotice(QStringLiteral("presets"), message, static_cast<int>(NoticeBar::Kind::kInfo), QString(), nullptr,
                    8000);
  });
  if (!presetStore_->loadNotice().isEmpty())
    showKeyedNotice(QStringLiteral("presets"), presetStore_->loadNotice(), static_cast<int>(NoticeBar::Kind::kWarning));
  current_.preset = presetStore_->defaultPreset();
  presetBar_->setCurrent(current_.preset);
}

QString MainWindow::presetSystemPrompt(const QString& preset) const {
  const ChatPreset* p = presetStore_ ? presetStore_->find(preset) : nullptr;
  if (p && !p->system_prompt.empty()) return QString::fromStdString(p->system_prompt);
  return settings_->value(QStringLiteral("system_prompt"));
}

void MainWindow::chooseChatPreset(const QString& name) {
  const QString known = presetStore_->find(name) ? name : QString();
  presetBar_->setCurrent(known);
  presetStore_->setDefaultPreset(known);
  current_.preset = known;
  updateContextMeter();  // the preset's answer length
  const QString prompt = presetSystemPrompt(known);
  if (prompt == current_.system_prompt) return;
  current_.system_prompt = prompt;
  if (current_.turns.empty()) {
    Q_EMIT requestSystemPrompt(prompt);  // an empty session takes it now
  } else if (!readOnly_) {
    needsContinue_ = true;  // the next message re-reads the chat with the new system prompt
    showKeyedNotice(QStringLiteral("preset"),
                    tr("The preset's system prompt applies from your next message (the chat is read again with it)."),
                    static_cast<int>(NoticeBar::Kind::kInfo), QString(), nullptr, 8000);
  }
}

ImageMode MainWindow::imageMode() const {
  const ChatPreset* p = presetStore_ ? presetStore_->find(current_.preset) : nullptr;
  return p && p->image_mode ? *p->image_mode : settings::ToImageMode(settings_->values());
}

GenerateOptions MainWindow::turnOptions() const {
  GenerateOptions options = options_;
  if (const ChatPreset* p = presetStore_ ? presetStore_->find(current_.preset) : nullptr) ApplyChatPreset(*p, options);
  return options;
}

}  // namespace glance::ui
