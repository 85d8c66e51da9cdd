#pragma once
// The desktop app's settings file (issue 35): every remembered choice (the settings registry's
// values, the theme, window layout, attention-panel look, last image folder...), one JSON file
// written whole through SaveFileAtomically (ui/atomic_save.h: hidden temporary, fsync, rename,
// fsync of the folder). A kill or power cut at any point leaves the old file or the new one,
// never part of either, and no litter a later save does not remove; a full disk, an I/O error or
// a read-only or missing config folder is one message naming the file, and the values stay in
// memory (the app goes on with them) and are saved again until a save succeeds.
//
// Not QSettings: it writes through a buffered QSaveFile (a short write then ENOSPC at commit() is
// not seen, Qt 6.4), never fsyncs the folder, leaves a visible "NAME.XXXXXX" copy when killed
// between its link and rename, takes a QLockFile that a cut-off lock file makes wait (tens of
// seconds found under tests/crash), and its status() has no reason to show. A registered custom
// QSettings format does not help: QSettings hands its writer that same QSaveFile.
//
// Format: {"glance_settings": 1, "values": {KEY: VALUE}}; a VALUE is a string, number or bool,
// or {"bytes": BASE64} for binary values (window geometry). A file that cannot be read (a hand
// edit gone wrong, a damaged disk) is set aside as NAME.unreadable and the defaults are used,
// with one notice line (loadNotice()). Where no file exists yet, the old QSettings file
// (<config>/<Organization>/<Application>.conf) is imported once.
//
// Thread contract: GUI thread only. One object per path in the process (Open), shared, so two
// parts of the app never overwrite each other's keys.
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <QVariant>
#include <QVariantMap>
#include <memory>

namespace glance::ui {

class SettingsFile : public QObject {
  Q_OBJECT
 public:
  // The object for `path` (read now when no other holder has it open).
  static std::shared_ptr<SettingsFile> Open(const QString& path);
  // The application's file: DefaultPath().
  static std::shared_ptr<SettingsFile> App();
  // <GenericConfigLocation>/<Organization>/<Application>.json (test mode redirects it).
  static QString DefaultPath();
  // Where QSettings kept the same settings before (imported once when DefaultPath() is missing).
  static QString LegacyPath();

  ~SettingsFile() override;  // saves what is unsaved (a failure: one line on stderr)

  const QString& path() const { return path_; }
  QVariant value(const QString& key, const QVariant& fallback = {}) const;
  bool contains(const QString& key) const { return values_.contains(key); }
  QStringList allKeys() const { return values_.keys(); }
  // Changes are saved together a moment later (saveSoon), or at once by save().
  void setValue(const QString& key, const QVariant& value);
  void remove(const QString& key);
  void clear();

  // Writes the values now when some are unsaved; true when all are on disk. On failure: false,
  // *error one line naming the file and the reason, the values kept and a retry scheduled.
  bool save(QString* error = nullptr);
  bool hasUnsavedChanges() const { return dirty_; }
  // The last save's failure ("" after a success).
  const QString& saveError() const { return saveError_; }
  // One line when the file could not be read (set aside, defaults used) or was imported; else "".
  const QString& loadNotice() const { return loadNotice_; }
  // True when loadNotice() reports a failure (the file unreadable, the defaults used), not an import.
  bool loadFailed() const { return loadFailed_; }

  // How long changes wait before they are written together, and the retry period after a failure.
  static constexpr int kSaveDelayMs = 200;
  static constexpr int kRetryMs = 15000;

 Q_SIGNALS:
  // A save failed after the last one succeeded (once per run of failures, not every retry).
  void saveFailed(const QString& message);
  // A save succeeded after failures: everything is on disk again.
  void saveRecovered();

 private:
  explicit SettingsFile(QString path);
  void load();
  void saveSoon();

  QString path_;
  QVariantMap values_;
  bool dirty_ = false;
  bool failing_ = false;
  bool loadFailed_ = false;
  QString saveError_, loadNotice_;
  QTimer timer_;
};

// The bytes of a settings file for `values` (sorted keys, stable), and back; the reader throws
// nothing: false with *error one line when `bytes` is not a settings file.
QByteArray SettingsFileBytes(const QVariantMap& values);
bool ParseSettingsFile(const QByteArray& bytes, QVariantMap* values, QString* error);

}  // namespace glance::ui
