#include "ui/conversation_store.h"

#include <QBuffer>
#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QFile>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QUuid>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/util/append_file.h"
#include "core/util/error.h"
#include "ui/atomic_save.h"
#include "ui/data_folder.h"
#include "ui/event_types.h"

namespace glance::ui {

namespace {

using nlohmann::json;

// Conversations, kept images and exports are written whole (ui/atomic_save.h).
bool WriteAtomically(const QString& path, const QByteArray& bytes, QString* error) {
  return SaveFileAtomically(path, bytes, error);
}

// Makes `folder` (and its missing parents) so that a power cut keeps it: each folder made is
// named durably only once the folder above it is fsync()ed (POSIX), as WriteFileAtomically does
// for a file. False with *error naming the folder when it cannot be made or synced.
bool MakeFolderDurably(const QString& folder, QString* error) {
  if (QFileInfo(folder).isDir()) return true;
  const QString parent = QFileInfo(folder).absolutePath();
  bool made = parent != folder && MakeFolderDurably(parent, error);
  if (!made && parent != folder) return false;
  made = QDir().mkdir(folder) || QFileInfo(folder).isDir();
  if (!made || !SyncParentFolder(QFile::encodeName(folder).toStdString())) {
    if (error && error->isEmpty())
      *error = QObject::tr("Cannot save %1: the folder could not be made. Free some disk space or check the "
                           "folder's permissions.")
                   .arg(folder);
    return false;
  }
  return true;
}

// A FIFO blocks a read forever and a device (a link to /dev/zero) never ends: a saved chat, a
// kept image or a file to keep is read only when it is a regular file (a link to one is fine).
bool IsRegularFile(const QString& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(QFile::encodeName(path).toStdString(), ec);
}

bool ReadAll(const QString& path, QByteArray* bytes, QString* error) {
  if (!IsRegularFile(path)) {
    if (error)
      *error = QFileInfo::exists(path) ? QObject::tr("Cannot read %1: it is not a regular file").arg(path)
                                       : QObject::tr("Cannot read %1: it does not exist").arg(path);
    return false;
  }
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = QObject::tr("Cannot read %1: %2").arg(path, f.errorString());
    return false;
  }
  *bytes = f.readAll();
  return true;
}

// Collects the top-level scalar fields of a conversation file and stops at "turns", which
// version 2 files write last: listing reads a few hundred bytes per file, not its turns.
class HeaderSax : public json::json_sax_t {
 public:
  json header = json::object();
  bool reached_turns = false;

  bool null() override { return Scalar(nullptr); }
  bool boolean(bool v) override { return Scalar(v); }
  bool number_integer(number_integer_t v) override { return Scalar(v); }
  bool number_unsigned(number_unsigned_t v) override { return Scalar(v); }
  bool number_float(number_float_t v, const string_t&) override { return Scalar(v); }
  bool string(string_t& v) override { return Scalar(v); }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return Open(); }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(); }
  bool end_array() override { return Close(); }
  bool key(string_t& k) override {
    if (depth_ == 1) {
      if (k == "turns") {
        reached_turns = true;
        return false;  // stop parsing: the rest is turns
      }
      key_ = k;
    }
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    throw Error(std::string("not valid JSON (") + e.what() + ")");
  }

 private:
  template <typename T>
  bool Scalar(T v) {
    if (depth_ == 1) header[key_] = v;
    return true;
  }
  bool Open() {
    ++depth_;
    return true;
  }
  bool Close() {
    --depth_;
    return true;
  }
  int depth_ = 0;
  std::string key_;
};

// The header of a conversation file. Version 2 files stop at "turns"; older files (keys in
// alphabetical order, "updated" after "turns") are parsed whole with their turns skipped.
Conversation ReadHeader(const QString& path) {
  if (!IsRegularFile(path)) throw Error("not a regular file");
  std::ifstream in(QFile::encodeName(path).toStdString(), std::ios::binary);
  if (!in) throw Error("cannot read the file");
  HeaderSax sax;
  json::sax_parse(in, &sax);
  if (sax.reached_turns && sax.header.contains("updated")) return ConversationHeaderFromJson(sax.header);
  in.clear();
  in.seekg(0);
  const json::parser_callback_t skip_turns = [](int depth, json::parse_event_t event, json& parsed) {
    return !(depth == 1 && event == json::parse_event_t::key && parsed == "turns");
  };
  const json doc = json::parse(in, skip_turns, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw Error("not valid JSON");
  return ConversationHeaderFromJson(doc);
}

QString Sha256Hex(const QByteArray& bytes) {
  return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
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
  return DataFolder() + QStringLiteral("/conversations");
}

QString ConversationStore::PathFor(const QString& id) const {
  return folder_ + QLatin1Char('/') + id + QStringLiteral(".json");
}

QList<ConversationStore::Entry> ConversationStore::list(QStringList* errors) const {
  QList<Entry> entries;
  const QDir dir(folder_);
  for (const QString& name : dir.entryList({QStringLiteral("*.json")}, QDir::Files)) {
    const QString path = dir.filePath(name);
    QString error;
    try {
      const Conversation c = ReadHeader(path);
      entries.append({c.id, c.title, c.created, c.updated, path});
      continue;
    } catch (const std::exception& e) {
      error = tr("Skipped %1: %2").arg(path, QString::fromStdString(e.what()));
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

bool ConversationStore::retitle(const QString& id, const QString& title, QString* error) {
  if (!ValidId(id)) {
    if (error) *error = tr("Invalid conversation id '%1'").arg(id);
    return false;
  }
  QByteArray bytes;
  if (!ReadAll(PathFor(id), &bytes, error)) return false;
  nlohmann::ordered_json doc;  // ordered: the header stays ahead of "turns" (list() stops there)
  try {
    doc = nlohmann::ordered_json::parse(bytes.cbegin(), bytes.cend());
    ConversationHeaderFromJson(json(doc));  // a conversation, in a version this Glance reads
  } catch (const std::exception& e) {
    if (error) *error = tr("Cannot open %1: %2").arg(PathFor(id), QString::fromStdString(e.what()));
    return false;
  }
  doc["title"] = title.toStdString();
  return WriteAtomically(PathFor(id), QByteArray::fromStdString(doc.dump(1)), error);
}

bool ConversationStore::remove(const QString& id, QString* error) {
  if (!ValidId(id) || !QFile::exists(PathFor(id))) {
    if (error) *error = tr("No saved conversation '%1'").arg(id);
    return false;
  }
  const QString trash = folder_ + QStringLiteral("/.trash");
  const QString target = trash + QLatin1Char('/') + id + QStringLiteral(".json");
  QFile::remove(target);  // an older deleted copy: the newest one wins
  QFile f(PathFor(id));
  if (!QDir().mkpath(trash) || !f.rename(target)) {
    if (error) *error = tr("Cannot delete %1: %2").arg(f.fileName(), f.errorString());
    return false;
  }
  return true;
}

bool ConversationStore::restore(const QString& id, QString* error) {
  QFile f(folder_ + QStringLiteral("/.trash/") + id + QStringLiteral(".json"));
  if (!ValidId(id) || !f.exists()) {
    if (error) *error = tr("No deleted conversation '%1' to restore").arg(id);
    return false;
  }
  if (QFile::exists(PathFor(id)) || !f.rename(PathFor(id))) {
    if (error) *error = tr("Cannot restore %1: %2").arg(PathFor(id), f.errorString());
    return false;
  }
  return true;
}

QString ConversationStore::keepImage(const QImage& image, QString* error) const {
  QByteArray png;
  QBuffer buffer(&png);
  if (image.isNull() || !buffer.open(QIODevice::WriteOnly) || !image.save(&buffer, "PNG")) {
    if (error) *error = tr("The pasted image could not be encoded as PNG.");
    return {};
  }
  const QString path = imagesFolder() + QLatin1Char('/') + Sha256Hex(png) + QStringLiteral(".png");
  if (QFile::exists(path)) return path;
  if (!MakeFolderDurably(imagesFolder(), error) || !WriteAtomically(path, png, error)) return {};
  return path;
}

QString ConversationStore::keepImageFile(const QString& source, QString* error) const {
  if (!IsRegularFile(source)) {
    if (error) *error = tr("Cannot read %1: it is not a regular file").arg(source);
    return {};
  }
  QFile in(source);
  if (!in.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("Cannot read %1: %2").arg(source, in.errorString());
    return {};
  }
  const QByteArray bytes = in.readAll();
  const QString sha = Sha256Hex(bytes);
  const QString suffix = QFileInfo(source).suffix().toLower();
  // Kept before under <sha256>.<suffix>: that copy is still found and used.
  const QString older = imagesFolder() + QLatin1Char('/') + sha + (suffix.isEmpty() ? QString() : QLatin1Char('.') + suffix);
  if (QFile::exists(older)) return older;
  // Under its own name in a folder named by its content, so the image area, the transcript and
  // the exports still call it "cat.jpg" after a restart (issue 34: they named it by its hash),
  // and two different files of one name do not collide.
  const QString folder = imagesFolder() + QLatin1Char('/') + sha;
  const QString path = folder + QLatin1Char('/') + QFileInfo(source).fileName();
  if (QFile::exists(path)) return path;
  if (!MakeFolderDurably(folder, error) || !WriteAtomically(path, bytes, error)) return {};
  return path;
}

QString ConversationStore::findImage(const QString& path, const QString& sha256) const {
  auto matches = [&sha256](const QString& candidate) {
    if (!IsRegularFile(candidate)) return false;
    QFile f(candidate);
    return f.open(QIODevice::ReadOnly) && (sha256.isEmpty() || Sha256Hex(f.readAll()) == sha256);
  };
  if (!path.isEmpty() && matches(path)) return path;
  if (sha256.isEmpty()) return {};
  const QDir images(imagesFolder());
  for (const QString& name : images.entryList({sha256 + QStringLiteral("*")}, QDir::Files))
    if (matches(images.filePath(name))) return images.filePath(name);
  const QDir named(images.filePath(sha256));  // keepImageFile: <sha256>/<its own name>
  for (const QString& name : named.entryList(QDir::Files))
    if (matches(named.filePath(name))) return named.filePath(name);
  return {};
}

bool ConversationStore::ExportJson(const Conversation& c, const QString& path, QString* error) {
  return WriteAtomically(path, QByteArray::fromStdString(ToJson(c).dump(1)), error);
}

bool ConversationStore::ExportMarkdown(const Conversation& c, const QString& path, QString* error,
                                       const std::function<QString(const ImageInfo&)>& find, int* images) {
  const auto at = [&find](const ImageInfo& img) {
    if (find) return find(img);
    const QString saved = Q(img.path);
    return !saved.isEmpty() && QFileInfo(saved).isFile() ? saved : QString();
  };
  return WriteMarkdownExport(c, path, at, error, images);
}

}  // namespace glance::ui
