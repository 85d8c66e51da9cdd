#include "ui/settings_file.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QSettings>
#include <QStandardPaths>
#include <cstdio>
#include <map>

#include "ui/atomic_save.h"

namespace glance::ui {

namespace {

constexpr qint64 kMaxFileBytes = 16 << 20;  // far above any real settings file; a bound, not a limit

QJsonValue ToJson(const QVariant& v) {
  switch (v.typeId()) {
    case QMetaType::Bool: return v.toBool();
    case QMetaType::Int: case QMetaType::LongLong: case QMetaType::UInt: case QMetaType::ULongLong:
      return static_cast<double>(v.toLongLong());
    case QMetaType::Double: case QMetaType::Float: return v.toDouble();
    case QMetaType::QByteArray:
      return QJsonObject{{QStringLiteral("bytes"), QString::fromLatin1(v.toByteArray().toBase64())}};
    default: return v.toString();
  }
}

// The registry's per-path objects (weak: a file nobody holds is read again when next opened).
std::map<QString, std::weak_ptr<SettingsFile>>& Registry() {
  static std::map<QString, std::weak_ptr<SettingsFile>> open;
  return open;
}

}  // namespace

QByteArray SettingsFileBytes(const QVariantMap& values) {
  QJsonObject map;
  for (auto it = values.begin(); it != values.end(); ++it) map.insert(it.key(), ToJson(it.value()));
  return QJsonDocument(QJsonObject{{QStringLiteral("glance_settings"), 1}, {QStringLiteral("values"), map}})
      .toJson(QJsonDocument::Indented);
}

bool ParseSettingsFile(const QByteArray& bytes, QVariantMap* values, QString* error) {
  QJsonParseError pe;
  const QJsonDocument doc = QJsonDocument::fromJson(bytes, &pe);
  if (pe.error != QJsonParseError::NoError) {
    *error = QObject::tr("not JSON (%1 at byte %2)").arg(pe.errorString()).arg(pe.offset);
    return false;
  }
  const QJsonObject root = doc.object();
  if (!doc.isObject() || root.value(QStringLiteral("glance_settings")).toInt() != 1 ||
      !root.value(QStringLiteral("values")).isObject()) {
    *error = QObject::tr("not a Glance settings file (no \"glance_settings\": 1 with \"values\")");
    return false;
  }
  QVariantMap out;
  const QJsonObject map = root.value(QStringLiteral("values")).toObject();
  for (auto it = map.begin(); it != map.end(); ++it) {
    const QJsonValue v = it.value();
    if (v.isString()) out.insert(it.key(), v.toString());
    else if (v.isBool()) out.insert(it.key(), v.toBool());
    else if (v.isDouble()) {
      const double d = v.toDouble();
      // Range first: casting a double outside qint64's range is undefined behaviour.
      if (d > -9e15 && d < 9e15 && d == static_cast<double>(static_cast<qint64>(d)))
        out.insert(it.key(), static_cast<qint64>(d));
      else
        out.insert(it.key(), d);
    } else if (v.isObject() && v.toObject().value(QStringLiteral("bytes")).isString()) {
      const auto decoded = QByteArray::fromBase64Encoding(
          v.toObject().value(QStringLiteral("bytes")).toString().toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
      if (!decoded) {
        *error = QObject::tr("value of '%1' is not base64").arg(it.key());
        return false;
      }
      out.insert(it.key(), *decoded);
    } else {
      *error = QObject::tr("value of '%1' is not a string, number, bool or {\"bytes\": ...}").arg(it.key());
      return false;
    }
  }
  *values = std::move(out);
  return true;
}

QString SettingsFile::DefaultPath() {
  return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + QLatin1Char('/') +
         QCoreApplication::organizationName() + QLatin1Char('/') + QCoreApplication::applicationName() +
         QStringLiteral(".json");
}

QString SettingsFile::LegacyPath() {
  return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + QLatin1Char('/') +
         QCoreApplication::organizationName() + QLatin1Char('/') + QCoreApplication::applicationName() +
         QStringLiteral(".conf");
}

std::shared_ptr<SettingsFile> SettingsFile::Open(const QString& path) {
  const QString key = QFileInfo(path).absoluteFilePath();
  if (auto open = Registry()[key].lock()) return open;
  std::shared_ptr<SettingsFile> file(new SettingsFile(key));
  Registry()[key] = file;
  return file;
}

std::shared_ptr<SettingsFile> SettingsFile::App() { return Open(DefaultPath()); }

SettingsFile::SettingsFile(QString path) : path_(std::move(path)) {
  timer_.setSingleShot(true);
  connect(&timer_, &QTimer::timeout, this, [this] { save(); });
  load();
}

SettingsFile::~SettingsFile() {
  if (auto it = Registry().find(path_); it != Registry().end() && it->second.expired()) Registry().erase(it);
  QString error;
  if (dirty_ && !save(&error)) std::fprintf(stderr, "glance: %s\n", qPrintable(error));
}

void SettingsFile::load() {
  const QFileInfo info(path_);
  if (!info.exists()) {
    // First start with this file: take over what QSettings kept (read only; QSettings writes nothing
    // for an object that was never changed).
    if (path_ == QFileInfo(DefaultPath()).absoluteFilePath() && QFileInfo(LegacyPath()).isFile()) {
      QSettings legacy(LegacyPath(), QSettings::IniFormat);
      for (const QString& key : legacy.allKeys()) values_.insert(key, legacy.value(key));
      if (!values_.isEmpty()) {
        dirty_ = true;
        saveSoon();
        loadNotice_ = tr("Settings taken over from %1 into %2").arg(LegacyPath(), path_);
      }
    }
    return;
  }
  QString why;
  QFile file(path_);
  if (!info.isFile()) why = tr("not a regular file");
  else if (info.size() > kMaxFileBytes) why = tr("larger than %1 bytes").arg(kMaxFileBytes);
  else if (!file.open(QIODevice::ReadOnly)) why = file.errorString();
  else if (!ParseSettingsFile(file.readAll(), &values_, &why)) values_.clear();
  else return;
  // Set aside, never silently dropped: the user can look at it, and the next save does not
  // overwrite it. A FIFO or folder is left where it is (the app refuses to start on that:
  // DefaultSettingsFileProblem).
  const QString aside = path_ + QStringLiteral(".unreadable");
  if (info.isFile()) {
    QFile::remove(aside);
    if (QFile::rename(path_, aside)) {
      loadFailed_ = true;
      loadNotice_ = tr("Could not read the settings file %1 (%2); it was set aside as %3 and the defaults are used")
                        .arg(path_, why, aside);
      return;
    }
  }
  loadFailed_ = true;
  loadNotice_ = tr("Could not read the settings file %1 (%2); the defaults are used").arg(path_, why);
}

QVariant SettingsFile::value(const QString& key, const QVariant& fallback) const {
  return values_.value(key, fallback);
}

void SettingsFile::setValue(const QString& key, const QVariant& value) {
  const auto it = values_.constFind(key);
  if (it != values_.constEnd() && it.value() == value && it.value().typeId() == value.typeId()) return;
  values_.insert(key, value);
  dirty_ = true;
  saveSoon();
}

void SettingsFile::remove(const QString& key) {
  if (values_.remove(key) == 0) return;
  dirty_ = true;
  saveSoon();
}

void SettingsFile::clear() {
  if (values_.isEmpty()) return;
  values_.clear();
  dirty_ = true;
  saveSoon();
}

void SettingsFile::saveSoon() {
  if (!failing_) timer_.start(kSaveDelayMs);
}

bool SettingsFile::save(QString* error) {
  if (!dirty_) {
    if (error) *error = saveError_;
    return saveError_.isEmpty();
  }
  timer_.stop();
  // A missing config folder (first start, or removed while running) is made; one that cannot be
  // (read-only parent) fails the save below with the reason.
  QDir().mkpath(QFileInfo(path_).absolutePath());
  QString why;
  if (!SaveFileAtomically(path_, SettingsFileBytes(values_), &why)) {
    saveError_ = tr("Settings not saved: %1 They are kept while Glance runs and saved again when possible.")
                     .arg(why);
    if (error) *error = saveError_;
    timer_.start(kRetryMs);
    if (!failing_) {
      failing_ = true;
      Q_EMIT saveFailed(saveError_);
    }
    return false;
  }
  dirty_ = false;
  saveError_.clear();
  if (failing_) {
    failing_ = false;
    Q_EMIT saveRecovered();
  }
  return true;
}

}  // namespace glance::ui
