#include "ui/chat_preset_store.h"

#include <QFileInfo>
#include <exception>

#include "core/util/error.h"
#include "core/util/read_file.h"
#include "ui/atomic_save.h"
#include "ui/preset_list.h"
#include "ui/settings_file.h"

namespace glance::ui {
namespace {

QString Q(const std::string& s) { return QString::fromStdString(s); }
QString Key(const char* k) { return QString::fromLatin1(k); }

}  // namespace

ChatPresetStore::ChatPresetStore(std::shared_ptr<SettingsFile> settings, QObject* parent)
    : QObject(parent), settings_(std::move(settings)) {
  const QString text = settings_->value(Key(kSavedKey)).toString();
  if (text.isEmpty()) return;
  const std::string source = settings_->path().toStdString() + " (" + kSavedKey + ")";
  try {
    saved_ = ParseChatPresets(text.toStdString(), source);
  } catch (const std::exception& e) {
    // What the user wrote stays, under another key; the list starts empty.
    settings_->setValue(Key(kSavedKey) + QStringLiteral(".unreadable"), text);
    settings_->remove(Key(kSavedKey));
    loadNotice_ = tr("Chat presets: %1 (kept as %2.unreadable)").arg(QString::fromUtf8(e.what()), Key(kSavedKey));
  }
}

std::vector<ChatPreset> ChatPresetStore::all() const {
  std::vector<ChatPreset> v = BuiltInChatPresets();
  v.insert(v.end(), saved_.begin(), saved_.end());
  return v;
}

const ChatPreset* ChatPresetStore::find(const QString& name) const {
  const std::string n = name.toStdString();
  for (const ChatPreset& p : BuiltInChatPresets())
    if (p.name == n) return &p;
  for (const ChatPreset& p : saved_)
    if (p.name == n) return &p;
  return nullptr;
}

bool ChatPresetStore::isBuiltIn(const QString& name) { return IsBuiltInChatPresetName(name.toStdString()); }

QString ChatPresetStore::defaultPreset() const {
  const QString name = settings_->value(Key(kDefaultKey)).toString();
  return find(name) ? name : QString();
}

void ChatPresetStore::setDefaultPreset(const QString& name) {
  if (name == settings_->value(Key(kDefaultKey)).toString()) return;
  settings_->setValue(Key(kDefaultKey), name);
}

bool ChatPresetStore::save(const std::vector<ChatPreset>& presets, QString* error) {
  settings_->setValue(Key(kSavedKey), Q(ChatPresetsJson(presets)));
  if (!settings_->save(error)) {  // the file keeps the old list; the value goes back to it
    settings_->setValue(Key(kSavedKey), Q(ChatPresetsJson(saved_)));
    return false;
  }
  saved_ = presets;
  Q_EMIT changed();
  return true;
}

bool ChatPresetStore::put(const ChatPreset& preset, const QString& replacing, QString* error) {
  try {
    ValidateChatPreset(preset, "preset '" + preset.name + "'");
  } catch (const std::exception& e) {
    *error = QString::fromUtf8(e.what());
    return false;
  }
  if (IsBuiltInChatPresetName(preset.name)) {
    *error = tr("'%1' is a built-in preset's name; choose another").arg(Q(preset.name));
    return false;
  }
  const std::optional<std::vector<ChatPreset>> next = PutPreset(saved_, preset, replacing, error);
  if (!next || !save(*next, error)) return false;
  if (!replacing.isEmpty() && replacing != Q(preset.name) && settings_->value(Key(kDefaultKey)).toString() == replacing)
    setDefaultPreset(Q(preset.name));  // a renamed default stays the default
  return true;
}

bool ChatPresetStore::remove(const QString& name, QString* error) {
  if (!save(RemovePreset(saved_, name), error)) return false;
  if (settings_->value(Key(kDefaultKey)).toString() == name) setDefaultPreset(QString());
  return true;
}

bool ChatPresetStore::importFile(const QString& file, int* count, QString* error) {
  std::vector<ChatPreset> incoming;
  try {
    if (!QFileInfo(file).isFile()) throw Error(file.toStdString() + ": no such file");
    incoming = ParseChatPresets(ReadWholeFile(file.toStdString(), file.toStdString() + ": cannot read the file"),
                                file.toStdString());
  } catch (const std::exception& e) {
    *error = QString::fromUtf8(e.what());
    return false;
  }
  if (!save(MergePresets(saved_, incoming), error)) return false;
  *count = static_cast<int>(incoming.size());
  return true;
}

bool ChatPresetStore::exportFile(const QString& file, QString* error, const QString& only) const {
  std::vector<ChatPreset> out = saved_;
  if (!only.isEmpty()) {
    out = {};
    for (const ChatPreset& p : saved_)
      if (Q(p.name) == only) out.push_back(p);
    if (out.empty()) {
      *error = tr("'%1' is not a saved preset (a built-in is not exported; Duplicate it first)").arg(only);
      return false;
    }
  }
  return SaveFileAtomically(file, QByteArray::fromStdString(ChatPresetsJson(out)), error);
}

}  // namespace glance::ui
