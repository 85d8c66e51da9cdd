#pragma once
// The list edits the desktop app's preset stores share (caption presets, ui/caption_preset_store.h;
// chat presets, ui/chat_preset_store.h): a preset is any type with a std::string `name`. Pure
// functions on copies; the stores validate and save what these return.
// GUI thread only (plain values).
#include <QObject>
#include <QString>
#include <optional>
#include <vector>

namespace glance::ui {

// `saved` with `preset` added, or put in the place of the one called `replacing` (its old name
// when edited; empty for a new one). nullopt with *error one line when another saved preset
// already has its name.
template <class Preset>
std::optional<std::vector<Preset>> PutPreset(const std::vector<Preset>& saved, const Preset& preset,
                                             const QString& replacing, QString* error) {
  std::vector<Preset> next;
  bool replaced = false;
  for (const Preset& p : saved) {
    if (QString::fromStdString(p.name) == replacing && !replacing.isEmpty()) {
      next.push_back(preset);
      replaced = true;
    } else if (p.name == preset.name) {
      *error = QObject::tr("a preset called '%1' exists already; choose another name")
                   .arg(QString::fromStdString(preset.name));
      return std::nullopt;
    } else {
      next.push_back(p);
    }
  }
  if (!replaced) next.push_back(preset);
  return next;
}

// `saved` without the preset called `name`.
template <class Preset>
std::vector<Preset> RemovePreset(const std::vector<Preset>& saved, const QString& name) {
  std::vector<Preset> next;
  for (const Preset& p : saved)
    if (QString::fromStdString(p.name) != name) next.push_back(p);
  return next;
}

// `saved` with `incoming` added at the end, replacing saved ones of the same name (an import).
template <class Preset>
std::vector<Preset> MergePresets(const std::vector<Preset>& saved, const std::vector<Preset>& incoming) {
  std::vector<Preset> next;
  for (const Preset& p : saved) {
    bool replaced = false;
    for (const Preset& in : incoming) replaced = replaced || in.name == p.name;
    if (!replaced) next.push_back(p);
  }
  next.insert(next.end(), incoming.begin(), incoming.end());
  return next;
}

// A name for a copy of `name` no preset in `taken` has: "X copy", "X copy 2", ...
template <class Preset>
QString CopyName(const QString& name, const std::vector<Preset>& taken) {
  for (int n = 1;; ++n) {
    const QString candidate = n == 1 ? QObject::tr("%1 copy").arg(name) : QObject::tr("%1 copy %2").arg(name).arg(n);
    bool used = false;
    for (const Preset& p : taken) used = used || QString::fromStdString(p.name) == candidate;
    if (!used) return candidate;
  }
}

}  // namespace glance::ui
