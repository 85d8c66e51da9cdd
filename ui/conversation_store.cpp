#include "ui/conversation_store.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>
#include <QUuid>
#include <algorithm>

#include "core/util/error.h"

namespace glance::ui {

namespace {

using nlohmann::json;

bool WriteAtomically(const QString& path, const QByteArray& bytes, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
    if (error)
      *error = QObject::tr("Cannot save %1: %2. Free some disk space or check the folder's "
                           "permissions.").arg(path, file.errorString());
    return false;
  }
  return true;
}

bool ReadAll(const QString& path, QByteArray* bytes, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = QObject::tr("Cannot read %1: %2").arg(path, f.errorString());
    return false;
  }
  *bytes = f.readAll();
  return true;
}

// Ids become file names: only what QUuid::WithoutBraces and hand-made ids like "demo-1" use.
bool ValidId(const QString& id) {
  static const QRegularExpression re(QStringLiteral("^[A-Za-z0-9_-]{1,80}$"));
  return re.match(id).hasMatch();
}

}  // namespace

ConversationStore::ConversationStore(const QString& folder, QObject* parent)
    : QObject(parent), folder_(folder.isEmpty() ? DefaultFolder() : folder) {}

QString ConversationStore::DefaultFolder() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
         QStringLiteral("/conversations");
}

QString ConversationStore::PathFor(const QString& id) const {
  return folder_ + QLatin1Char('/') + id + QStringLiteral(".json");
}

QList<ConversationStore::Entry> ConversationStore::list(QStringList* errors) const {
  QList<Entry> entries;
  const QDir dir(folder_);
  for (const QString& name : dir.entryList({QStringLiteral("*.json")}, QDir::Files)) {
    const QString path = dir.filePath(name);
    QByteArray bytes;
    QString error;
    if (ReadAll(path, &bytes, &error)) {
      // Skip the turns while parsing: listing needs only the header fields, and turns may
      // hold megabytes of attention maps.
      const json::parser_callback_t skip_turns = [](int depth, json::parse_event_t event,
                                                    json& parsed) {
        return !(depth == 1 && event == json::parse_event_t::key && parsed == "turns");
      };
      const json doc = json::parse(bytes.cbegin(), bytes.cend(), skip_turns, /*allow_exceptions=*/false);
      try {
        if (doc.is_discarded()) throw Error("not valid JSON");
        json header = doc;
        header["turns"] = json::array();
        const Conversation c = ConversationFromJson(header);
        entries.append({c.id, c.title, c.updated, path});
        continue;
      } catch (const std::exception& e) {
        error = tr("Skipped %1: %2").arg(path, QString::fromStdString(e.what()));
      }
    }
    if (errors) errors->append(error);
    Q_EMIT errorOccurred(error);
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.updated > b.updated; });
  return entries;
}

bool ConversationStore::save(Conversation& c, QString* error) {
  if (c.id.isEmpty()) c.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
  if (!ValidId(c.id)) {
    if (error) *error = tr("Invalid conversation id '%1'").arg(c.id);
    return false;
  }
  if (!QDir().mkpath(folder_)) {
    if (error) *error = tr("Cannot create %1; check its permissions.").arg(folder_);
    return false;
  }
  const QDateTime now = QDateTime::currentDateTimeUtc();
  if (!c.created.isValid()) c.created = now;
  c.updated = now;
  return WriteAtomically(PathFor(c.id), QByteArray::fromStdString(ToJson(c).dump(1)), error);
}

std::optional<Conversation> ConversationStore::load(const QString& id, QString* error) const {
  if (!ValidId(id)) {
    if (error) *error = tr("Invalid conversation id '%1'").arg(id);
    return std::nullopt;
  }
  QByteArray bytes;
  if (!ReadAll(PathFor(id), &bytes, error)) return std::nullopt;
  try {
    return ConversationFromJson(json::parse(bytes.cbegin(), bytes.cend()));
  } catch (const std::exception& e) {
    if (error) *error = tr("Cannot open %1: %2").arg(PathFor(id), QString::fromStdString(e.what()));
    return std::nullopt;
  }
}

bool ConversationStore::remove(const QString& id, QString* error) {
  if (!ValidId(id) || !QFile::exists(PathFor(id))) {
    if (error) *error = tr("No saved conversation '%1'").arg(id);
    return false;
  }
  QFile f(PathFor(id));
  if (!f.remove()) {
    if (error) *error = tr("Cannot delete %1: %2").arg(f.fileName(), f.errorString());
    return false;
  }
  return true;
}

bool ConversationStore::ExportJson(const Conversation& c, const QString& path, QString* error) {
  return WriteAtomically(path, QByteArray::fromStdString(ToJson(c).dump(1)), error);
}

bool ConversationStore::ExportMarkdown(const Conversation& c, const QString& path, QString* error) {
  return WriteAtomically(path, ToMarkdown(c).toUtf8(), error);
}

}  // namespace glance::ui
