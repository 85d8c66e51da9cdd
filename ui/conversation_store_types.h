#pragma once
// A saved conversation: the Qt-side value type the chat keeps and the store writes as JSON.
// Plain data (copyable), built from the engine's value types (core/engine/events.h).
#include <QDateTime>
#include <QString>
#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/engine/events.h"
#include "core/engine/session.h"

namespace glance::ui {

// One answer a message has had (Regenerate keeps the earlier ones: ◀ 2/3 ▶).
struct AnswerAlternative {
  QString answer;
  QString stop_reason;
  TurnStats stats;
  QString model;
  // In memory only: the file keeps the maps of the answer shown (the turn's own fields).
  std::vector<AttentionMap> attention;
  std::vector<AttentionWord> words;
  std::vector<ImageAttention> attention_by_image;
};

struct ConversationTurn {
  QString user_text;              // the message's text parts, joined
  std::vector<ImageInfo> images;  // images attached to this user message, in message order
  // The message in order, image parts indexing `images`. Empty: a chat saved before messages
  // were ordered (file versions 1 and 2), sent as its images, then user_text.
  std::vector<MessagePart> parts;
  QString answer;
  QString stop_reason;  // "eos" | "max_tokens" | "cancelled" | "context" (empty in old files)
  TurnStats stats;
  std::vector<AttentionMap> attention;  // one per generated token (when captured)
  std::vector<AttentionWord> words;     // the answer's tokens grouped into words
  // The answer's maps over each of this message's images, by conversation image index
  // (TurnResult::attention_by_image); the last image's maps are `attention`. Empty in files
  // before version 3 (which kept only the last image's).
  std::vector<ImageAttention> attention_by_image;
  QString model;  // the model that answered (ModelInfo::name; its precision is in stats)
  // Every answer this message has had, oldest first, when Regenerate gave more than one;
  // alternatives[chosen] is the one shown and continued from (the fields above hold it).
  // Empty: the one answer above.
  std::vector<AnswerAlternative> alternatives;
  int chosen = 0;
};

// The turn's answer as an alternative (its answer, stats, maps).
AnswerAlternative CurrentAnswer(const ConversationTurn& turn);
// Keeps the turn's answer and adds `next` as the newest, shown alternative (Regenerate).
void AddAlternative(ConversationTurn& turn, AnswerAlternative next);
// Shows alternative `k` (0-based, clamped): the turn's answer fields become that answer's.
// False when there is no such other alternative.
bool ChooseAlternative(ConversationTurn& turn, int k);

struct Conversation {
  QString id;  // file stem in the store; assigned on first save
  QString title;
  QDateTime created;  // UTC
  QDateTime updated;  // UTC
  QString system_prompt;
  // The chat preset its messages are sent with (core/engine/chat_preset.h; "" = none, the
  // Settings' sampling). Saved as "preset" in the header; absent in older files.
  QString preset;
  std::vector<ConversationTurn> turns;
};

// The saved/exported JSON document: {"format": "glance-conversation", "version": 3, ...},
// header fields first and "turns" last, so a reader can stop at "turns" (ConversationStore::
// list). Attention maps are stored compactly (attention_codec.h); version 1 files (float
// arrays) still read. Version 3 adds each turn's "parts" (the message's order: {"text": ...}
// or {"image": k}, k indexing the turn's "images") and "image_attention" (the maps over the
// message's other images, [{"image_index", "attention"}]). A turn with regenerated answers
// adds "alternatives" ([{"answer", "stop_reason", "model", "stats"}], oldest first) and
// "chosen" (the index of the turn's "answer" among them); a reader that predates them reads the
// turn's chosen answer, so the version stays 3. FromJson throws glance::Error naming the field when the document is not
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
// The title an export's heading uses: the automatic title whole (the stored one is cut at 60
// characters for the sidebar, and exports showed "… a medium o…"), a title given by the user as is.
QString ExportTitle(const Conversation& conversation);

// The parts a message of the desktop app has: its images, then its text (empty text: none).
std::vector<MessagePart> ImagesThenText(size_t images, const QString& text);
// A turn's message in order (the legacy layout when `parts` is empty).
std::vector<MessagePart> OrderedParts(const ConversationTurn& turn);

// Markdown for people: title, system prompt, each turn's message in order (text, and each
// image's name, sha256, size and token grid where it stands), answer and a stats line; a message
// with regenerated answers says which one the conversation continues from and lists the others.
// Attention maps are left to the JSON export. `imageLink` gives the link an image is shown by
// (relative to the Markdown file; empty: the image is only named); none: every image is named.
QString ToMarkdown(const Conversation& conversation,
                   const std::function<QString(const ImageInfo&)>& imageLink = {});

// Writes ToMarkdown to `path` (atomically) with the images beside it: copied into the folder
// "<file name without .md>_images" next to it under their own names (two different images of one
// name: "cat.png", "cat (2).png"), and linked by that relative path. So the export works from
// wherever it is saved, and keeps working when the file and its folder are moved or sent
// together, or the originals (temporary files, the app's hidden image folder) go away; links to
// the originals' absolute paths did none of that. `find`: where an image is now (empty when
// gone: it is named but not shown). False + *error when a copy or the file cannot be written.
// *images: how many pictures were copied (0: no folder was made).
bool WriteMarkdownExport(const Conversation& conversation, const QString& path,
                         const std::function<QString(const ImageInfo&)>& find, QString* error = nullptr,
                         int* images = nullptr);

}  // namespace glance::ui
