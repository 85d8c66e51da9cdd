#include "ui/settings_store.h"

#include <QCoreApplication>
#include <QFile>
#include <QStandardPaths>
#include <QStringList>
#include <QVariant>
#include <filesystem>

namespace glance::ui {

namespace {
std::string ToStd(const QString& s) { return s.toStdString(); }
QString FromStd(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

QString DefaultSettingsFileProblem() {
  const QString config = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation);
  const QString org = QCoreApplication::organizationName();
  QStringList bad;
  for (const QString& path : {SettingsFile::DefaultPath(), SettingsFile::LegacyPath(),
                              config + QLatin1Char('/') + org + QStringLiteral(".conf")}) {
    std::error_code ec;
    const auto status = std::filesystem::status(QFile::encodeName(path).toStdString(), ec);
    if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) bad << path;
  }
  if (bad.isEmpty()) return {};
  return QObject::tr("%1 is not a regular file (a FIFO, device or folder where Glance keeps its settings); "
                     "remove it and start Glance again")
      .arg(bad.join(QStringLiteral(" and ")));
}

SettingsStore::SettingsStore(QObject* parent) : QObject(parent), settings_(SettingsFile::App()) {}

SettingsStore::SettingsStore(const QString& path, QObject* parent)
    : QObject(parent), settings_(SettingsFile::Open(path)) {}

SettingsStore::~SettingsStore() = default;

QString SettingsStore::StorageKey(const QString& key) {
  return QStringLiteral("settings/") + key;
}

QString SettingsStore::value(const QString& key) const {
  const settings::Key* k = settings::FindKey(ToStd(key));
  if (!k) return {};
  const QVariant stored = settings_->value(StorageKey(key));
  if (!stored.isValid()) return FromStd(k->default_value);
  // Strings as written by setValue(); a bool or number from a hand edit or an imported QSettings
  // file reads as its text ("true", "5").
  const std::string raw = ToStd(stored.toString());
  if (auto err = settings::ValidationError(*k, raw)) {
    Q_EMIT invalidValueIgnored(key, FromStd(*err + " (stored value ignored; using the default '" +
                                            k->default_value + "')"));
    return FromStd(k->default_value);
  }
  return FromStd(settings::Canonical(k->name, raw));
}

bool SettingsStore::setValue(const QString& key, const QString& value, QString* error) {
  const settings::Key* k = settings::FindKey(ToStd(key));
  if (!k) {
    if (error) *error = QStringLiteral("unknown setting '%1'").arg(key);
    return false;
  }
  if (auto err = settings::ValidationError(*k, ToStd(value))) {
    if (error) *error = FromStd(*err);
    return false;
  }
  const QString canonical = FromStd(settings::Canonical(k->name, ToStd(value)));
  const QString before = this->value(key);
  settings_->setValue(StorageKey(key), canonical);
  if (before != canonical) Q_EMIT valueChanged(key, canonical);
  return true;
}

void SettingsStore::reset(const QString& key) {
  const QString before = value(key);
  settings_->remove(StorageKey(key));
  const QString after = value(key);
  if (before != after) Q_EMIT valueChanged(key, after);
}

void SettingsStore::resetAll() {
  for (const settings::Key& k : settings::Registry()) reset(FromStd(k.name));
}

settings::Values SettingsStore::values() const {
  settings::Values out;
  for (const settings::Key& k : settings::Registry()) out[k.name] = ToStd(value(FromStd(k.name)));
  return out;
}

}  // namespace glance::ui
