#pragma once
// The Conversations dock: saved conversations (ConversationStore), newest first, each with its
// date ("14:05", "Yesterday", "3 Mar"), a search filter over titles, and New chat / Rename /
// Delete (with Undo). The sidebar only lists and edits entries;
// the window decides what opening or starting a conversation means (signals below).
//
// Thread contract: GUI thread only.
#include <QList>
#include <QString>
#include <QWidget>

#include "ui/conversation_store.h"

class QLabel;
class QLineEdit;
class QListWidget;
class QListWidgetItem;
class QToolButton;

namespace glance::ui {

class ConversationSidebar : public QWidget {
  Q_OBJECT
 public:
  explicit ConversationSidebar(ConversationStore* store, QWidget* parent = nullptr);

  // Re-reads the store; keeps the current selection (by id) when it still exists.
  void refresh();
  // Selects the entry with this id without emitting openRequested (empty = no selection).
  void setCurrentId(const QString& id);
  QString currentId() const;
  // Titles of the visible (filtered) rows, top to bottom; ids likewise.
  QStringList visibleTitles() const;
  QStringList visibleIds() const;
  void setFilter(const QString& text);
  // Renames a saved conversation (title only); false + inline message on failure.
  bool rename(const QString& id, const QString& title);
  // Deletes a saved conversation (to the store's trash); emits removed(id). The message line
  // offers Undo until the next delete.
  bool remove(const QString& id);
  bool undoRemove();  // brings the last deleted conversation back; emits restored(id)

  QListWidget* list() const { return list_; }
  QLineEdit* searchBox() const { return search_; }
  QString message() const;

 Q_SIGNALS:
  void openRequested(const QString& id);
  void newChatRequested();
  void removed(const QString& id);
  void restored(const QString& id);
  void renamed(const QString& id, const QString& title);

 private:
  void applyFilter();
  void showMessage(const QString& text);
  void renameCurrent();
  void deleteCurrent();

  ConversationStore* store_;
  QList<ConversationStore::Entry> entries_;
  QLineEdit* search_ = nullptr;
  QListWidget* list_ = nullptr;
  QToolButton* new_ = nullptr;
  QToolButton* rename_ = nullptr;
  QToolButton* delete_ = nullptr;
  QLabel* message_ = nullptr;
  QToolButton* undo_ = nullptr;
  QString lastRemoved_;
  bool selecting_ = false;  // setCurrentId() in progress: not a user's click
};

}  // namespace glance::ui
