#pragma once
// The caption presets saved in the desktop app (issue 33; core/engine/caption_preset.h): one JSON
// file, <GenericConfigLocation>/<Organization>/presets.json (~/.config/Glance/presets.json, the
// file glance-cli caption --preset reads too), written whole after every change (atomic: a crash
// leaves the old list or the new one). Import reads a presets file (the same format) and adds its
// presets, replacing saved ones of the same name; Export writes the saved presets to a file.
//
// A saved file that cannot be read (a hand edit gone wrong) is set aside as presets.json.unreadable
// so that the next save does not overwrite what the user wrote; loadNotice() says so in one line.
//
// Thread contract: GUI thread only.
#include <QString>
#include <vector>

#include "core/engine/caption_preset.h"

namespace glance::ui {

class CaptionPresetStore {
 public:
  // The application's file (in test mode, QStandardPaths' test folder).
  static QString DefaultPath();

  explicit CaptionPresetStore(QString path = DefaultPath());

  const QString& path() const { return path_; }
  const std::vector<CaptionPreset>& saved() const { return saved_; }
  // The built-ins, then the saved presets: what the caption dialog offers.
  std::vector<CaptionPreset> all() const;
  const CaptionPreset* find(const QString& name) const;  // built-in or saved; null when unknown
  const QString& loadNotice() const { return loadNotice_; }

  // Adds `preset`, or replaces the saved one called `replacing` (its old name when edited; empty
  // for a new preset), and saves. False with *error one line (a bad field, a name taken, a save
  // that failed; then nothing changed).
  bool put(const CaptionPreset& preset, const QString& replacing, QString* error);
  bool remove(const QString& name, QString* error);
  // Adds the presets of `file` (replacing saved ones of the same name) and saves; *count: how many.
  // A bad file: false, *error one line naming the file, the preset and the field; nothing changed.
  bool importFile(const QString& file, int* count, QString* error);
  // The saved presets as `file` (atomic).
  bool exportFile(const QString& file, QString* error) const;

 private:
  bool save(const std::vector<CaptionPreset>& presets, QString* error);

  QString path_;
  std::vector<CaptionPreset> saved_;
  QString loadNotice_;
};

}  // namespace glance::ui
