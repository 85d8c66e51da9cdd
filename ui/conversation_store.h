#pragma once
// Saved conversations: one JSON file per conversation in <DataFolder()>/conversations,
// written atomically (QSaveFile: a crash mid-write leaves the old file, never half a file).
// A file that does not parse is skipped by list() and reported, never fatal. Deleting moves
// the file to a .trash folder, so the sidebar can undo it. Pasted images are kept in an
// images/ folder beside the conversations, named by their sha256, so a saved conversation
// can find them again.
//
// Thread contract: GUI thread. A turn costs kilobytes (attention maps are compact, see
// attention_codec.h); list() reads each file only up to its "turns" (the header comes first).
#include <QDateTime>
#include <QImage>
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
    QDateTime created;
    QDateTime updated;
    QString path;
  };

  // folder empty = DefaultFolder().
  explicit ConversationStore(const QString& folder = QString(), QObject* parent = nullptr);
  static QString DefaultFolder();  // DataFolder() + "/conversations" (ui/data_folder.h)
  QString folder() const { return folder_; }

  // Newest first. Unreadable files are skipped; each one's problem goes to *errors (if given)
  // and to errorOccurred().
  QList<Entry> list(QStringList* errors = nullptr) const;
  // Gives the conversation an id when it has none, sets `updated` (and `created` when unset),
  // and writes it atomically. False + *error on failure (disk full, permissions).
  bool save(Conversation& conversation, QString* error = nullptr);
  std::optional<Conversation> load(const QString& id, QString* error = nullptr) const;
  // Gives a saved conversation a new title and nothing else: its date ("updated", by which the
  // list is ordered) and every other byte of its document stay as they were (the attention maps
  // are not decoded and encoded again). Atomic like save(). False + *error on failure.
  bool retitle(const QString& id, const QString& title, QString* error = nullptr);
  // Moves the file to <folder>/.trash (replacing an older copy there); restore() moves it back.
  bool remove(const QString& id, QString* error = nullptr);
  bool restore(const QString& id, QString* error = nullptr);

  // Images: pasted pixels are written as <images>/<sha256 of the PNG>.png; a file is copied
  // there as <sha256>/<its file name> (a copy kept earlier as <sha256>.<suffix> is reused).
  // Returns the kept path, or empty + *error.
  QString imagesFolder() const { return folder_ + QStringLiteral("/images"); }
  QString keepImage(const QImage& image, QString* error = nullptr) const;
  QString keepImageFile(const QString& path, QString* error = nullptr) const;
  // Where an image of a saved conversation is now: `path` when it still has this sha256, else
  // the kept copy in imagesFolder(); empty when neither exists.
  QString findImage(const QString& path, const QString& sha256) const;

  // Exports (atomic too). JSON = the saved form (images with sha256, stats, attention maps,
  // the model and precision of each turn).
  static bool ExportJson(const Conversation& conversation, const QString& path, QString* error = nullptr);
  // Markdown: the images copied beside it, in "<name>_images/" (WriteMarkdownExport); `find`
  // says where an image is now (findImage of the store it was saved in; none: its saved path).
  // *images: how many were copied there.
  static bool ExportMarkdown(const Conversation& conversation, const QString& path, QString* error = nullptr,
                             const std::function<QString(const ImageInfo&)>& find = {}, int* images = nullptr);

 Q_SIGNALS:
  void errorOccurred(const QString& message) const;

 private:
  QString PathFor(const QString& id) const;
  QString folder_;
};

}  // namespace glance::ui
