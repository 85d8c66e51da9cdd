// JSON form of a conversation (conversation_store_types.h). The engine types use the
// converters in core/engine/events_json.h, shared with glance-cli --json.
#include <string>

#include "core/engine/events_json.h"
#include "core/util/error.h"
#include "ui/conversation_store_types.h"

namespace glance::ui {

namespace {

using nlohmann::json;
constexpr const char* kFormat = "glance-conversation";
constexpr int kVersion = 1;

std::string S(const QString& s) { return s.toStdString(); }
QString Q(const std::string& s) { return QString::fromStdString(s); }

// Milliseconds, ISO 8601, UTC: "2025-01-31T12:00:00.123Z" reads back to the same QDateTime.
std::string Time(const QDateTime& t) {
  return S(t.toUTC().toString(Qt::ISODateWithMs));
}
QDateTime ParseTime(const json& j, const char* field) {
  const QDateTime t = QDateTime::fromString(Q(j.at(field).get<std::string>()), Qt::ISODateWithMs);
  if (!t.isValid()) throw Error(std::string("conversation field '") + field + "' is not an ISO 8601 time");
  return t.toUTC();
}

template <typename T>
json Array(const std::vector<T>& items) {
  json a = json::array();
  for (const T& item : items) a.push_back(glance::ToJson(item));
  return a;
}

template <typename T, typename F>
std::vector<T> FromArray(const json& j, const char* field, F from_json) {
  std::vector<T> out;
  for (const json& item : j.at(field)) out.push_back(from_json(item));
  return out;
}

}  // namespace

json ToJson(const Conversation& c) {
  json turns = json::array();
  for (const ConversationTurn& t : c.turns) {
    turns.push_back(json{{"user", S(t.user_text)},
                         {"images", Array(t.images)},
                         {"answer", S(t.answer)},
                         {"stop_reason", S(t.stop_reason)},
                         {"stats", glance::ToJson(t.stats)},
                         {"attention", Array(t.attention)},
                         {"words", Array(t.words)}});
  }
  return json{{"format", kFormat},         {"version", kVersion},
              {"id", S(c.id)},             {"title", S(c.title)},
              {"created", Time(c.created)}, {"updated", Time(c.updated)},
              {"system_prompt", S(c.system_prompt)}, {"turns", std::move(turns)}};
}

Conversation ConversationFromJson(const json& doc) {
  if (!doc.is_object() || doc.value("format", std::string()) != kFormat)
    throw Error("not a Glance conversation (missing \"format\": \"glance-conversation\")");
  const int version = doc.at("version").get<int>();
  if (version > kVersion)
    throw Error("conversation format version " + std::to_string(version) +
                " is newer than this Glance understands (" + std::to_string(kVersion) +
                "); update Glance");
  try {
    Conversation c;
    c.id = Q(doc.at("id").get<std::string>());
    c.title = Q(doc.at("title").get<std::string>());
    c.created = ParseTime(doc, "created");
    c.updated = ParseTime(doc, "updated");
    c.system_prompt = Q(doc.at("system_prompt").get<std::string>());
    for (const json& jt : doc.at("turns")) {
      ConversationTurn t;
      t.user_text = Q(jt.at("user").get<std::string>());
      t.images = FromArray<ImageInfo>(jt, "images", ImageInfoFromJson);
      t.answer = Q(jt.at("answer").get<std::string>());
      t.stop_reason = Q(jt.value("stop_reason", std::string()));  // optional: added later
      t.stats = TurnStatsFromJson(jt.at("stats"));
      t.attention = FromArray<AttentionMap>(jt, "attention", AttentionMapFromJson);
      t.words = FromArray<AttentionWord>(jt, "words", AttentionWordFromJson);
      c.turns.push_back(std::move(t));
    }
    return c;
  } catch (const json::exception& e) {
    throw Error(std::string("conversation has a missing or mistyped field: ") + e.what());
  }
}

}  // namespace glance::ui
