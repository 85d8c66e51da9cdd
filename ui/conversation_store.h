#pragma once
// Saved conversations: one JSON file per conversation in <AppDataLocation>/conversations,
// written atomically (QSaveFile: a crash mid-write leaves the old file, never half a file).
// A file that does not parse is skipped by list() and reported, never fatal.
//
// Thread contract: GUI thread. Files are small unless attention maps are kept; list() reads
// only the header fields of each file.
#include <QDateTime>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <optional>

#include "ui/conversation_store_types.h"

namespace glance::ui {

class ConversationStore : public QObject {
  Q_OBJECT
 public:
  struct Entry {
    QString id;
    QString title;
    QDateTime updated;
    QString path;
  };

  // folder empty = DefaultFolder().
  explicit ConversationStore(const QString& folder = QString(), QObject* parent = nullptr);
  static QString DefaultFolder();  // AppDataLocation + "/conversations"
  QString folder() const { return folder_; }

  // Newest first. Unreadable files are skipped; each one's problem goes to *errors (if given)
  // and to errorOccurred().
  QList<Entry> list(QStringList* errors = nullptr) const;
  // Gives the conversation an id when it has none, sets `updated` (and `created` when unset),
  // and writes it atomically. False + *error on failure (disk full, permissions).
  bool save(Conversation& conversation, QString* error = nullptr);
  std::optional<Conversation> load(const QString& id, QString* error = nullptr) const;
  bool remove(const QString& id, QString* error = nullptr);

  // Exports (atomic too). JSON = the saved form (images with sha256, stats, attention maps).
  static bool ExportJson(const Conversation& conversation, const QString& path, QString* error = nullptr);
  static bool ExportMarkdown(const Conversation& conversation, const QString& path, QString* error = nullptr);

 Q_SIGNALS:
  void errorOccurred(const QString& message) const;

 private:
  QString PathFor(const QString& id) const;
  QString folder_;
};

}  // namespace glance::ui
