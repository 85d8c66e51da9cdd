#include "ui/conversation_sidebar.h"

#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

namespace glance::ui {
namespace {
constexpr int kIdRole = Qt::UserRole;

// "14:05" today, "Yesterday", a weekday within the week, else "3 Mar" (with the year when
// it is not this year).
QString WhenText(const QDateTime& updated) {
  const QDateTime local = updated.toLocalTime();
  const QDate today = QDate::currentDate();
  const QLocale locale;
  const qint64 days = local.date().daysTo(today);
  if (days == 0) return locale.toString(local.time(), QLocale::ShortFormat);
  if (days == 1) return QObject::tr("Yesterday");
  if (days > 1 && days < 7) return locale.dayName(local.date().dayOfWeek(), QLocale::ShortFormat);
  return locale.toString(local.date(), local.date().year() == today.year() ? QStringLiteral("d MMM")
                                                                            : QStringLiteral("d MMM yyyy"));
}
}  // namespace

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
  // Long titles are shortened in the middle (the tooltip has all of it) rather than given a
  // sideways scroll bar: their end stays, so "… (fork)" and "… (2)" are told apart from the
  // chat they came from (cut at the right, a fork looked like its original: issue 34).
  list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  list_->setTextElideMode(Qt::ElideMiddle);
  message_ = new QLabel(this);
  message_->setWordWrap(true);
  message_->setVisible(false);
  undo_ = new QToolButton(this);
  undo_->setText(tr("Undo"));
  undo_->setVisible(false);

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
  auto* messageRow = new QHBoxLayout;
  messageRow->addWidget(message_, 1);
  messageRow->addWidget(undo_);
  layout->addLayout(messageRow);
  connect(undo_, &QToolButton::clicked, this, &ConversationSidebar::undoRemove);

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
    const QString title = e.title.isEmpty() ? tr("(untitled)") : e.title;
    auto* item = new QListWidgetItem(QStringLiteral("%1\n%2").arg(title, WhenText(e.updated)), list_);
    item->setData(kIdRole, e.id);
    item->setData(Qt::AccessibleTextRole, title);
    item->setToolTip(QStringLiteral("%1\n%2").arg(
        title, QLocale().toString(e.updated.toLocalTime(), QLocale::LongFormat)));
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
  for (int i = 0; i < list_->count(); ++i)
    out << list_->item(i)->data(Qt::AccessibleTextRole).toString();
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
  const QString trimmed = title.trimmed();
  if (!store_->retitle(id, trimmed, &error)) {  // keeps the chat's date and place in the list
    showMessage(error);
    return false;
  }
  refresh();
  Q_EMIT renamed(id, trimmed);
  return true;
}

bool ConversationSidebar::remove(const QString& id) {
  QString title;
  for (const ConversationStore::Entry& e : entries_)
    if (e.id == id) title = e.title;
  QString error;
  if (!store_->remove(id, &error)) {
    showMessage(error);
    return false;
  }
  refresh();
  lastRemoved_ = id;
  showMessage(tr("Deleted \u201C%1\u201D.").arg(title));
  undo_->setVisible(true);
  Q_EMIT removed(id);
  return true;
}

bool ConversationSidebar::undoRemove() {
  if (lastRemoved_.isEmpty()) return false;
  const QString id = lastRemoved_;
  lastRemoved_.clear();
  QString error;
  const bool ok = store_->restore(id, &error);
  refresh();
  showMessage(ok ? QString() : error);
  if (ok) Q_EMIT restored(id);
  return ok;
}

void ConversationSidebar::renameCurrent() {
  const QListWidgetItem* item = list_->currentItem();
  if (!item) return;
  QInputDialog dialog(this);
  dialog.setWindowTitle(tr("Rename conversation"));
  dialog.setLabelText(tr("Title:"));
  const QString title = item->data(Qt::AccessibleTextRole).toString();
  dialog.setTextValue(title);
  // The field as wide as the whole title (an automatic one is a caption's first sentence, ~80
  // characters), at least 50 characters and at most ~90, past which it scrolls. The field, not
  // the dialog: QInputDialog's layout sets the dialog's size from its contents, so a minimum
  // width on the dialog itself was overridden (it opened ~200 px wide, seen under Xvfb).
  const int ch = fontMetrics().averageCharWidth();
  if (auto* field = dialog.findChild<QLineEdit*>())
    field->setMinimumWidth(std::clamp(field->fontMetrics().horizontalAdvance(title) + ch * 4, ch * 50, ch * 90));
  if (dialog.exec() == QDialog::Accepted && !dialog.textValue().trimmed().isEmpty())
    rename(item->data(kIdRole).toString(), dialog.textValue());
}

void ConversationSidebar::deleteCurrent() {
  const QString id = currentId();
  if (!id.isEmpty()) remove(id);
}

void ConversationSidebar::showMessage(const QString& text) {
  message_->setText(text);
  message_->setVisible(!text.isEmpty());
  undo_->setVisible(false);  // remove() shows it again after its message
}

QString ConversationSidebar::message() const { return message_->text(); }

}  // namespace glance::ui
