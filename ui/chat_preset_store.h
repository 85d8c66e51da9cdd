#pragma once
// The chat presets (core/engine/chat_preset.h) saved in the desktop app (issue 34): kept in the
// app's settings file (ui/settings_file.h: written whole and atomically) under kSavedKey as a
// chat presets document, with the preset new chats start with under kDefaultKey. The built-ins
// are offered first and cannot be changed (Duplicate one to change it). Import reads a chat
// presets file and adds its presets, replacing saved ones of the same name; Export writes the
// saved presets (or one of them) to a file, atomically.
//
// A stored list that cannot be read (a hand edit gone wrong) is kept under kSavedKey +
// ".unreadable", so the next save does not lose what the user wrote; loadNotice() says so in one
// line. The list edits are the caption presets' (ui/preset_list.h).
//
// Thread contract: GUI thread only.
#include <QObject>
#include <QString>
#include <memory>
#include <vector>

#include "core/engine/chat_preset.h"

namespace glance::ui {

class SettingsFile;

class ChatPresetStore : public QObject {
  Q_OBJECT
 public:
  static constexpr const char* kSavedKey = "chat_presets/saved";
  static constexpr const char* kDefaultKey = "chat_presets/default";

  explicit ChatPresetStore(std::shared_ptr<SettingsFile> settings, QObject* parent = nullptr);

  const std::vector<ChatPreset>& saved() const { return saved_; }
  // The built-ins, then the saved presets: what the preset box offers.
  std::vector<ChatPreset> all() const;
  const ChatPreset* find(const QString& name) const;  // built-in or saved; null when unknown
  static bool isBuiltIn(const QString& name);
  const QString& loadNotice() const { return loadNotice_; }

  // The preset new chats start with; "" = none (the Settings' sampling and system prompt).
  QString defaultPreset() const;
  void setDefaultPreset(const QString& name);

  // Adds `preset`, or replaces the saved one called `replacing` (its old name when edited; empty
  // for a new one), and saves. False with *error one line (a bad field, a name taken, a built-in's
  // name, a failed save); then nothing changed.
  bool put(const ChatPreset& preset, const QString& replacing, QString* error);
  bool remove(const QString& name, QString* error);
  // Adds the presets of `file`; *count: how many. A bad file: false, *error one line naming the
  // file, the preset and the field; nothing changed.
  bool importFile(const QString& file, int* count, QString* error);
  // The saved presets as `file`; with `only`, that saved preset alone.
  bool exportFile(const QString& file, QString* error, const QString& only = QString()) const;

 Q_SIGNALS:
  void changed();

 private:
  bool save(const std::vector<ChatPreset>& presets, QString* error);

  std::shared_ptr<SettingsFile> settings_;
  std::vector<ChatPreset> saved_;
  QString loadNotice_;
};

}  // namespace glance::ui
