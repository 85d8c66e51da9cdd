#pragma once
// A saved conversation: the Qt-side value type the chat keeps and the store writes as JSON.
// Plain data (copyable), built from the engine's value types (core/engine/events.h).
#include <QDateTime>
#include <QString>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/engine/events.h"

namespace glance::ui {

struct ConversationTurn {
  QString user_text;
  std::vector<ImageInfo> images;  // images attached to this user message
  QString answer;
  QString stop_reason;  // "eos" | "max_tokens" | "cancelled" | "context" (empty in old files)
  TurnStats stats;
  std::vector<AttentionMap> attention;  // one per generated token (when captured)
  std::vector<AttentionWord> words;     // the answer's tokens grouped into words
  QString model;  // the model that answered (ModelInfo::name; its precision is in stats)
};

struct Conversation {
  QString id;  // file stem in the store; assigned on first save
  QString title;
  QDateTime created;  // UTC
  QDateTime updated;  // UTC
  QString system_prompt;
  std::vector<ConversationTurn> turns;
};

// The saved/exported JSON document: {"format": "glance-conversation", "version": 2, ...},
// header fields first and "turns" last, so a reader can stop at "turns" (ConversationStore::
// list). Attention maps are stored compactly (attention_codec.h); version 1 files (float
// arrays) still read. FromJson throws glance::Error naming the field when the document is not
// a conversation.
nlohmann::ordered_json ToJson(const Conversation& conversation);
Conversation ConversationFromJson(const nlohmann::json& doc);
// The header alone (id, title, times, system prompt, model); turns are not read.
Conversation ConversationHeaderFromJson(const nlohmann::json& doc);

// A file name for exporting: the title without characters file systems refuse and without
// trailing dots ("Describe this image." -> "Describe this image"), plus `extension` (".md").
QString ExportFileName(const Conversation& conversation, const QString& extension);

// An automatic title: the question, or (for the stock caption request, or an empty question)
// the answer's first sentence; at most 60 characters.
QString AutoTitle(const QString& question, const QString& answer);

// Markdown for people: title, system prompt, each turn's question, images (path, sha256, size,
// token grid), answer and a stats line. Attention maps are left to the JSON export.
QString ToMarkdown(const Conversation& conversation);

}  // namespace glance::ui
