#pragma once
// Writes the chat's messages into the transcript's QTextDocument, safely (issue 34):
//  * the user's text is inserted as plain text, exactly as typed, never parsed as Markdown or
//    HTML ("What does the <div> tag do?" used to show as "What does the" and blank every
//    later message, because the whole transcript went through QTextDocument::setMarkdown);
//  * an answer is Markdown (GitHub dialect: tables, strike-through, task lists) with raw HTML
//    switched off, so "<img src=…>" or "<b>" show as text; a Markdown image becomes its alt
//    text in brackets (a document image makes the view load a local file); each code block is
//    monospace on a shaded background, its comments, strings, numbers and keywords coloured
//    (code_highlight.h), and followed by a "Copy code" link.
// The app's own actions travel as links with the scheme "glance" (TranscriptLink); the view
// (SafeTextBrowser) never follows a link or loads a resource by itself.
#include <QColor>
#include <QImage>
#include <QPalette>
#include <QString>
#include <QStringList>
#include <QTextCursor>
#include <QUrl>
#include <vector>

namespace glance::ui {

// What a link in the transcript asks for.
struct TranscriptLink {
  enum Kind { kNone, kCopyCode, kCopyAnswer, kImage, kExternal };
  Kind kind = kNone;
  int message = -1;  // the message's index in the chat
  int index = -1;    // kCopyCode: the code block; kImage: the image of the message
};
QUrl CopyCodeUrl(int message, int block);
QUrl CopyAnswerUrl(int message);
QUrl ImageUrl(int message, int image);  // also the document resource name of its thumbnail
// kExternal only for http, https and mailto (opened by the desktop on a click); other links
// (relative paths, file:, javascript:, …) are kNone and do nothing.
TranscriptLink ParseTranscriptLink(const QUrl& url);

// a·(1-t) + b·t, per channel: tints that follow the palette (light and dark themes).
QColor MixColors(const QColor& a, const QColor& b, float t);

// The text of the code blocks of an answer, in order (what "Copy code" copies).
using CodeBlocks = QStringList;

// Inserts `text` at the cursor as typed: plain text in the cursor's block, line breaks as new
// blocks, nothing interpreted.
void InsertPlainText(QTextCursor& cursor, const QString& text, const QTextCharFormat& format);

// Inserts the answer's Markdown at the cursor (see the top of this file); the k-th code block
// is followed by a link to CopyCodeUrl(message, k). Returns the code blocks' text.
CodeBlocks InsertAnswerMarkdown(QTextCursor& cursor, const QString& markdown, int message,
                                const QPalette& palette);

// Inserts the thumbnails of a user message's images at the cursor, on one line, each a link
// to ImageUrl(message, k) and registered with the document under that name (so nothing is
// loaded from disk by the view). `height` is the thumbnails' height in pixels.
void InsertThumbnails(QTextCursor& cursor, const std::vector<QImage>& images, int message,
                      int height);

}  // namespace glance::ui
