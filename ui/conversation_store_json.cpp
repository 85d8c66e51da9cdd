// JSON form of a conversation (conversation_store_types.h). The engine types use the
// converters in core/engine/events_json.h, shared with glance-cli --json; attention maps use
// the compact codec in attention_codec.h.
#include <QRegularExpression>
#include <algorithm>
#include <string>

#include "core/engine/events_json.h"
#include "core/util/error.h"
#include "ui/attention_codec.h"
#include "ui/conversation_store_types.h"

namespace glance::ui {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;
constexpr const char* kFormat = "glance-conversation";
constexpr int kVersion = 3;  // 2: header first, compact attention, model per turn; 3: parts, per-image maps
constexpr int kTitleChars = 60;

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

void CheckFormat(const json& doc) {
  if (!doc.is_object() || doc.value("format", std::string()) != kFormat)
    throw Error("not a Glance conversation (missing \"format\": \"glance-conversation\")");
  const int version = doc.at("version").get<int>();
  if (version > kVersion)
    throw Error("conversation format version " + std::to_string(version) +
                " is newer than this Glance understands (" + std::to_string(kVersion) +
                "); update Glance");
}

// A turn's "parts": {"text": "..."} or {"image": k}, k indexing the turn's images.
ordered_json PartsJson(const std::vector<MessagePart>& parts) {
  ordered_json out = ordered_json::array();
  for (const MessagePart& p : parts) {
    ordered_json j;
    if (p.kind == MessagePart::kText)
      j["text"] = p.text;
    else
      j["image"] = p.image;
    out.push_back(std::move(j));
  }
  return out;
}

// Reads a turn's "parts"; every image of the turn appears exactly once, text parts are strings.
std::vector<MessagePart> PartsFromJson(const json& parts, size_t images, size_t turn) {
  const std::string where = "conversation turn " + std::to_string(turn + 1) + " field 'parts'";
  if (!parts.is_array()) throw Error(where + " is not an array");
  std::vector<MessagePart> out;
  std::vector<int> seen(images, 0);
  for (const json& j : parts) {
    if (j.is_object() && j.size() == 1 && j.contains("text") && j["text"].is_string()) {
      out.push_back(MessagePart::Text(j["text"].get<std::string>()));
    } else if (j.is_object() && j.size() == 1 && j.contains("image") && j["image"].is_number_integer()) {
      const int64_t k = j["image"].get<int64_t>();
      if (k < 0 || static_cast<size_t>(k) >= images || seen[static_cast<size_t>(k)]++)
        throw Error(where + " names image " + std::to_string(k) + ", not one of the turn's " +
                    std::to_string(images) + " images once");
      out.push_back(MessagePart::Image(static_cast<int>(k)));
    } else {
      throw Error(where + " holds a part that is neither {\"text\": string} nor {\"image\": index}");
    }
  }
  for (size_t k = 0; k < images; ++k)
    if (!seen[k]) throw Error(where + " leaves out image " + std::to_string(k));
  return out;
}

// The maps over a turn's images other than the last (whose maps are the turn's "attention"),
// each within an equal share of the attention budget.
ordered_json ImageAttentionJson(const ConversationTurn& t) {
  ordered_json out = ordered_json::array();
  const int last = t.attention.empty() ? -1 : t.attention.back().image_index;
  const size_t n = std::max<size_t>(1, t.attention_by_image.size());
  for (const ImageAttention& a : t.attention_by_image) {
    if (a.image_index == last || a.maps.empty()) continue;
    ordered_json j;
    j["image_index"] = a.image_index;
    j["attention"] = EncodeAttention(a.maps, t.words, kAttentionBudgetBytes / n);
    out.push_back(std::move(j));
  }
  return out;
}

QString Shorten(const QString& text) {
  QString t = text.simplified();
  if (t.size() > kTitleChars) t = t.left(kTitleChars - 1).trimmed() + QChar(0x2026);
  return t;
}

}  // namespace

ordered_json ToJson(const Conversation& c) {
  ordered_json turns = ordered_json::array();
  for (const ConversationTurn& t : c.turns) {
    ordered_json turn;
    turn["user"] = S(t.user_text);
    turn["images"] = Array(t.images);
    turn["parts"] = PartsJson(OrderedParts(t));
    turn["answer"] = S(t.answer);
    turn["stop_reason"] = S(t.stop_reason);
    turn["model"] = S(t.model);
    turn["stats"] = glance::ToJson(t.stats);
    turn["words"] = Array(t.words);
    turn["attention"] = EncodeAttention(t.attention, t.words);
    turn["image_attention"] = ImageAttentionJson(t);
    if (t.alternatives.size() > 1) {
      ordered_json alts = ordered_json::array();
      for (size_t k = 0; k < t.alternatives.size(); ++k) {
        const AnswerAlternative a = static_cast<int>(k) == t.chosen ? CurrentAnswer(t) : t.alternatives[k];
        ordered_json j;
        j["answer"] = S(a.answer);
        j["stop_reason"] = S(a.stop_reason);
        j["model"] = S(a.model);
        j["stats"] = glance::ToJson(a.stats);
        alts.push_back(std::move(j));
      }
      turn["alternatives"] = std::move(alts);
      turn["chosen"] = t.chosen;
    }
    turns.push_back(std::move(turn));
  }
  // Header first, turns last: ConversationStore::list() stops reading at "turns".
  ordered_json doc;
  doc["format"] = kFormat;
  doc["version"] = kVersion;
  doc["id"] = S(c.id);
  doc["title"] = S(c.title);
  doc["created"] = Time(c.created);
  doc["updated"] = Time(c.updated);
  doc["system_prompt"] = S(c.system_prompt);
  if (!c.preset.isEmpty()) doc["preset"] = S(c.preset);
  doc["model"] = c.turns.empty() ? std::string() : S(c.turns.back().model);
  doc["precision"] = c.turns.empty() ? std::string() : std::string(Name(c.turns.back().stats.precision));
  doc["turns"] = std::move(turns);
  return doc;
}

Conversation ConversationHeaderFromJson(const json& doc) {
  CheckFormat(doc);
  try {
    Conversation c;
    c.id = Q(doc.at("id").get<std::string>());
    c.title = Q(doc.at("title").get<std::string>());
    c.created = ParseTime(doc, "created");
    c.updated = ParseTime(doc, "updated");
    c.system_prompt = Q(doc.at("system_prompt").get<std::string>());
    c.preset = Q(doc.value("preset", std::string()));  // optional: added with chat presets
    return c;
  } catch (const json::exception& e) {
    throw Error(std::string("conversation has a missing or mistyped field: ") + e.what());
  }
}

Conversation ConversationFromJson(const json& doc) {
  Conversation c = ConversationHeaderFromJson(doc);
  try {
    for (const json& jt : doc.at("turns")) {
      const size_t index = c.turns.size();
      ConversationTurn t;
      t.user_text = Q(jt.at("user").get<std::string>());
      t.images = FromArray<ImageInfo>(jt, "images", ImageInfoFromJson);
      t.answer = Q(jt.at("answer").get<std::string>());
      t.stop_reason = Q(jt.value("stop_reason", std::string()));  // optional: added later
      t.model = Q(jt.value("model", std::string()));              // version 2
      t.stats = TurnStatsFromJson(jt.at("stats"));
      const json& attention = jt.at("attention");
      t.attention = attention.is_array()  // version 1: one object of float arrays per token
                        ? FromArray<AttentionMap>(jt, "attention", AttentionMapFromJson)
                        : DecodeAttention(attention);
      t.words = FromArray<AttentionWord>(jt, "words", AttentionWordFromJson);
      if (jt.contains("parts")) t.parts = PartsFromJson(jt["parts"], t.images.size(), index);  // version 3
      // Version 3, a message with several images: the other images' maps, then the last's.
      if (jt.contains("image_attention") && !jt["image_attention"].empty()) {
        for (const json& ja : jt["image_attention"])
          t.attention_by_image.push_back({ja.at("image_index").get<int>(), DecodeAttention(ja.at("attention"))});
        if (!t.attention.empty())
          t.attention_by_image.push_back({t.attention.back().image_index, t.attention});
      }
      if (jt.contains("alternatives") && jt["alternatives"].size() > 1) {
        for (const json& ja : jt["alternatives"])
          t.alternatives.push_back({Q(ja.at("answer").get<std::string>()), Q(ja.value("stop_reason", std::string())),
                                    TurnStatsFromJson(ja.at("stats")), Q(ja.value("model", std::string())),
                                    {}, {}, {}});
        const int chosen = jt.value("chosen", 0);
        if (chosen < 0 || static_cast<size_t>(chosen) >= t.alternatives.size())
          throw Error("conversation turn " + std::to_string(index + 1) + " field 'chosen' is not one of its " +
                      std::to_string(t.alternatives.size()) + " alternatives");
        t.chosen = chosen;
        t.alternatives[static_cast<size_t>(chosen)] = CurrentAnswer(t);  // the turn's own fields rule
      }
      c.turns.push_back(std::move(t));
    }
    return c;
  } catch (const json::exception& e) {
    throw Error(std::string("conversation has a missing or mistyped field: ") + e.what());
  }
}

AnswerAlternative CurrentAnswer(const ConversationTurn& t) {
  return {t.answer, t.stop_reason, t.stats, t.model, t.attention, t.words, t.attention_by_image};
}

void AddAlternative(ConversationTurn& t, AnswerAlternative next) {
  if (t.alternatives.empty()) t.alternatives.push_back(CurrentAnswer(t));
  else t.alternatives[static_cast<size_t>(std::clamp<int>(t.chosen, 0, static_cast<int>(t.alternatives.size()) - 1))] = CurrentAnswer(t);
  t.alternatives.push_back(std::move(next));
  t.chosen = -1;  // nothing to keep: the turn's fields are the old answer, already kept
  ChooseAlternative(t, static_cast<int>(t.alternatives.size()) - 1);
}

bool ChooseAlternative(ConversationTurn& t, int k) {
  if (t.alternatives.empty()) return false;
  k = std::clamp<int>(k, 0, static_cast<int>(t.alternatives.size()) - 1);
  if (k == t.chosen) return false;
  if (t.chosen >= 0 && static_cast<size_t>(t.chosen) < t.alternatives.size())
    t.alternatives[static_cast<size_t>(t.chosen)] = CurrentAnswer(t);
  const AnswerAlternative& a = t.alternatives[static_cast<size_t>(k)];
  t.answer = a.answer;
  t.stop_reason = a.stop_reason;
  t.stats = a.stats;
  t.model = a.model;
  t.attention = a.attention;
  t.words = a.words;
  t.attention_by_image = a.attention_by_image;
  t.chosen = k;
  return true;
}

std::vector<MessagePart> ImagesThenText(size_t images, const QString& text) {
  std::vector<MessagePart> parts;
  for (size_t k = 0; k < images; ++k) parts.push_back(MessagePart::Image(static_cast<int>(k)));
  if (!text.isEmpty()) parts.push_back(MessagePart::Text(S(text)));
  return parts;
}

std::vector<MessagePart> OrderedParts(const ConversationTurn& turn) {
  return turn.parts.empty() ? ImagesThenText(turn.images.size(), turn.user_text) : turn.parts;
}

QString ExportFileName(const Conversation& c, const QString& extension) {
  static const QRegularExpression refused(QStringLiteral("[\\\\/:*?\"<>|\\x00-\\x1f]"));
  QString name = c.title;
  name.replace(refused, QStringLiteral(" "));
  name = name.simplified();
  while (name.endsWith(QLatin1Char('.')) || name.endsWith(QChar(0x2026))) name.chop(1);
  name = name.trimmed();
  if (name.isEmpty()) name = QStringLiteral("conversation");
  return name + extension;
}

namespace {

// AutoTitle before it is shortened.
QString WholeAutoTitle(const QString& question, const QString& answer) {
  const QString q = question.simplified();
  const bool stock = q.isEmpty() || q.compare(QStringLiteral("Describe this image."),
                                              Qt::CaseInsensitive) == 0;
  if (!stock || answer.simplified().isEmpty()) return q;
  // The answer's first sentence: up to the first . ! ? or line break after a few characters.
  const QString a = answer.trimmed();
  static const QRegularExpression end(QStringLiteral("[.!?\\n]"));
  const qsizetype cut = a.indexOf(end, 8);
  return (cut > 0 ? a.left(cut) : a).simplified();
}

}  // namespace

QString AutoTitle(const QString& question, const QString& answer) { return Shorten(WholeAutoTitle(question, answer)); }

QString ExportTitle(const Conversation& c) {
  if (c.turns.empty()) return c.title;
  const ConversationTurn& first = c.turns.front();
  // Still the automatic title (not renamed): the whole of it, as the sidebar only needed it short.
  if (c.title == AutoTitle(first.user_text, first.answer)) return WholeAutoTitle(first.user_text, first.answer);
  return c.title;
}

}  // namespace glance::ui
