#include "ui/conversation_sidebar.h"

#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QToolButton>
#include <QVBoxLayout>

namespace glance::ui {
namespace {
constexpr int kIdRole = Qt::UserRole;
}

ConversationSidebar::ConversationSidebar(ConversationStore* store, QWidget* parent)
    : QWidget(parent), store_(store) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  search_ = new QLineEdit(this);
  search_->setObjectName(QStringLiteral("conversationSearch"));
  search_->setPlaceholderText(tr("Search conversations"));
  search_->setClearButtonEnabled(true);
  list_ = new QListWidget(this);
  list_->setObjectName(QStringLiteral("conversationList"));
  message_ = new QLabel(this);
  message_->setWordWrap(true);
  message_->setVisible(false);

  auto* buttons = new QHBoxLayout;
  auto makeButton = [this, buttons](const QString& text, const QString& tip) {
    auto* b = new QToolButton(this);
    b->setText(text);
    b->setToolTip(tip);
    buttons->addWidget(b);
    return b;
  };
  new_ = makeButton(tr("New chat"), tr("Start a new conversation (Ctrl+N)"));
  rename_ = makeButton(tr("Rename"), tr("Rename the selected conversation"));
  delete_ = makeButton(tr("Delete"), tr("Delete the selected conversation"));
  buttons->addStretch(1);
  layout->addWidget(search_);
  layout->addLayout(buttons);
  layout->addWidget(list_, 1);
  layout->addWidget(message_);

  connect(search_, &QLineEdit::textChanged, this, [this] { applyFilter(); });
  connect(new_, &QToolButton::clicked, this, &ConversationSidebar::newChatRequested);
  connect(rename_, &QToolButton::clicked, this, &ConversationSidebar::renameCurrent);
  connect(delete_, &QToolButton::clicked, this, &ConversationSidebar::deleteCurrent);
  connect(list_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
    if (!selecting_ && item) Q_EMIT openRequested(item->data(kIdRole).toString());
  });
  refresh();
}

void ConversationSidebar::refresh() {
  const QString keep = currentId();
  QStringList errors;
  entries_ = store_->list(&errors);
  showMessage(errors.isEmpty() ? QString() : errors.join(QLatin1Char('\n')));
  applyFilter();
  setCurrentId(keep);
}

void ConversationSidebar::applyFilter() {
  const QString keep = currentId();
  const QString needle = search_->text().trimmed();
  selecting_ = true;
  list_->clear();
  for (const ConversationStore::Entry& e : entries_) {
    if (!needle.isEmpty() && !e.title.contains(needle, Qt::CaseInsensitive)) continue;
    auto* item = new QListWidgetItem(e.title.isEmpty() ? tr("(untitled)") : e.title, list_);
    item->setData(kIdRole, e.id);
    item->setToolTip(QLocale().toString(e.updated.toLocalTime(), QLocale::ShortFormat));
  }
  selecting_ = false;
  setCurrentId(keep);
}

void ConversationSidebar::setCurrentId(const QString& id) {
  selecting_ = true;
  list_->setCurrentRow(-1);
  for (int i = 0; i < list_->count(); ++i)
    if (list_->item(i)->data(kIdRole).toString() == id && !id.isEmpty()) list_->setCurrentRow(i);
  selecting_ = false;
}

QString ConversationSidebar::currentId() const {
  const QListWidgetItem* item = list_->currentItem();
  return item ? item->data(kIdRole).toString() : QString();
}

QStringList ConversationSidebar::visibleTitles() const {
  QStringList out;
  for (int i = 0; i < list_->count(); ++i) out << list_->item(i)->text();
  return out;
}

QStringList ConversationSidebar::visibleIds() const {
  QStringList out;
  for (int i = 0; i < list_->count(); ++i) out << list_->item(i)->data(kIdRole).toString();
  return out;
}

void ConversationSidebar::setFilter(const QString& text) { search_->setText(text); }

bool ConversationSidebar::rename(const QString& id, const QString& title) {
  QString error;
  std::optional<Conversation> c = store_->load(id, &error);
  if (!c) {
    showMessage(error);
    return false;
  }
  c->title = title.trimmed();
  if (!store_->save(*c, &error)) {
    showMessage(error);
    return false;
  }
  refresh();
  Q_EMIT renamed(id, c->title);
  return true;
}

bool ConversationSidebar::remove(const QString& id) {
  QString error;
  if (!store_->remove(id, &error)) {
    showMessage(error);
    return false;
  }
  refresh();
  Q_EMIT removed(id);
  return true;
}

void ConversationSidebar::renameCurrent() {
  const QListWidgetItem* item = list_->currentItem();
  if (!item) return;
  bool ok = false;
  const QString title = QInputDialog::getText(this, tr("Rename conversation"), tr("Title:"),
                                              QLineEdit::Normal, item->text(), &ok);
  if (ok && !title.trimmed().isEmpty()) rename(item->data(kIdRole).toString(), title);
}

void ConversationSidebar::deleteCurrent() {
  const QString id = currentId();
  if (!id.isEmpty()) remove(id);
}

void ConversationSidebar::showMessage(const QString& text) {
  message_->setText(text);
  message_->setVisible(!text.isEmpty());
}

QString ConversationSidebar::message() const { return message_->text(); }

}  // namespace glance::ui
