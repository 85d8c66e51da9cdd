#include "ui/caption_preset_store.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <exception>

#include "core/util/error.h"
#include "ui/atomic_save.h"
#include "ui/preset_list.h"

namespace glance::ui {
namespace {

QString Q(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

QString CaptionPresetStore::DefaultPath() {
  return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + QLatin1Char('/') +
         QCoreApplication::organizationName() + QStringLiteral("/presets.json");
}

CaptionPresetStore::CaptionPresetStore(QString path) : path_(std::move(path)) {
  try {
    saved_ = ReadCaptionPresetsFile(path_.toStdString());
  } catch (const std::exception& e) {
    // Never overwritten by the next save: what the user wrote stays, under another name.
    const QString aside = path_ + QStringLiteral(".unreadable");
    QFile::remove(aside);
    const bool moved = QFile::rename(path_, aside);
    loadNotice_ = QObject::tr("Caption presets: %1 (%2)")
                      .arg(QString::fromUtf8(e.what()),
                           moved ? QObject::tr("set aside as %1").arg(aside) : QObject::tr("could not be set aside"));
  }
}

std::vector<CaptionPreset> CaptionPresetStore::all() const {
  std::vector<CaptionPreset> v = BuiltInCaptionPresets();
  v.insert(v.end(), saved_.begin(), saved_.end());
  return v;
}

const CaptionPreset* CaptionPresetStore::find(const QString& name) const {
  const std::string n = name.toStdString();
  for (const CaptionPreset& p : BuiltInCaptionPresets())
    if (p.name == n) return &p;
  for (const CaptionPreset& p : saved_)
    if (p.name == n) return &p;
  return nullptr;
}

bool CaptionPresetStore::save(const std::vector<CaptionPreset>& presets, QString* error) {
  QDir().mkpath(QFileInfo(path_).absolutePath());  // a failure shows in the save
  if (!SaveFileAtomically(path_, QByteArray::fromStdString(CaptionPresetsJson(presets)), error)) return false;
  saved_ = presets;
  return true;
}

bool CaptionPresetStore::put(const CaptionPreset& preset, const QString& replacing, QString* error) {
  const std::string where = "preset '" + preset.name + "'";
  try {
    ValidateCaptionPreset(preset, where);
  } catch (const std::exception& e) {
    *error = QString::fromUtf8(e.what());
    return false;
  }
  if (IsBuiltInCaptionPresetName(preset.name)) {
    *error = QObject::tr("'%1' is a built-in preset's name; choose another").arg(Q(preset.name));
    return false;
  }
  const std::optional<std::vector<CaptionPreset>> next = PutPreset(saved_, preset, replacing, error);
  return next && save(*next, error);
}

bool CaptionPresetStore::remove(const QString& name, QString* error) { return save(RemovePreset(saved_, name), error); }

bool CaptionPresetStore::importFile(const QString& file, int* count, QString* error) {
  std::vector<CaptionPreset> incoming;
  try {
    if (!QFileInfo(file).isFile()) throw Error(file.toStdString() + ": no such file");
    incoming = ReadCaptionPresetsFile(file.toStdString());
  } catch (const std::exception& e) {
    *error = QString::fromUtf8(e.what());
    return false;
  }
  if (!save(MergePresets(saved_, incoming), error)) return false;
  *count = static_cast<int>(incoming.size());
  return true;
}

bool CaptionPresetStore::exportFile(const QString& file, QString* error) const {
  return SaveFileAtomically(file, QByteArray::fromStdString(CaptionPresetsJson(saved_)), error);
}

}  // namespace glance::ui
