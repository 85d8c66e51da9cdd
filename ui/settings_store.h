#pragma once
// The settings registry's values (core/settings/registry.h) kept in a SettingsFile
// (ui/settings_file.h: crash-safe, a failed save reported and retried). Every read is
// validated: an unknown key is refused, and a stored value that no longer passes its validator
// (hand-edited file, older version) reads as the default and is reported once through
// invalidValueIgnored(). Writes are validated and canonicalised before they reach the file.
//
// Thread contract: GUI thread only. Workers get a copy of values() (plain strings), never the
// store (docs/style.md: no settings singletons read from worker threads).
#include <QObject>
#include <QString>
#include <memory>

#include "core/settings/registry.h"
#include "ui/settings_file.h"

namespace glance::ui {

// A FIFO in place of a settings file blocked QSettings' read forever (the app hung at start).
// The application's settings files (SettingsFile::DefaultPath(), and the QSettings files it may
// import: <config>/<Organization>/<Application>.conf and <config>/<Organization>.conf) that exist
// but are not regular files, as one line naming them ("" when there are none); checked before
// any settings are read.
QString DefaultSettingsFileProblem();

class SettingsStore : public QObject {
  Q_OBJECT
 public:
  // Uses the application's settings file (SettingsFile::App()).
  explicit SettingsStore(QObject* parent = nullptr);
  // Uses the settings file at `path` (e.g. in a test folder).
  explicit SettingsStore(const QString& path, QObject* parent = nullptr);
  ~SettingsStore() override;

  // The valid stored value, or the key's default. Empty string for an unknown key.
  QString value(const QString& key) const;
  // Validates and stores; on failure leaves the stored value alone, returns false and puts
  // the registry's message ("top_p: '2' is out of range; allowed 0.01..1") in *error.
  bool setValue(const QString& key, const QString& value, QString* error = nullptr);
  // Drops the stored value so the key reads as its default again.
  void reset(const QString& key);
  void resetAll();

  // Every key of the registry with its effective value, for the engine builders.
  settings::Values values() const;

  SettingsFile& backend() { return *settings_; }

 Q_SIGNALS:
  void valueChanged(const QString& key, const QString& value);
  // A stored value was ignored; `message` says which and why.
  void invalidValueIgnored(const QString& key, const QString& message) const;

 private:
  static QString StorageKey(const QString& key);
  std::shared_ptr<SettingsFile> settings_;
};

}  // namespace glance::ui
