#pragma once
// Lexical colouring of a code block in an answer (issue 34: "code blocks (monospace,
// highlighted, a copy button)"): comments, string literals, numbers and the language's keywords,
// found by one pass over the block's text. Not a parser: enough for the eye, as the web UIs'
// highlighters are; an unknown or missing language gets C-style comments and the union of the
// common languages' keywords. The comment syntax follows the fence's language name ("py",
// "bash", "sql", ...).
//
// Thread contract: pure functions.
#include <QColor>
#include <QPalette>
#include <QString>
#include <vector>

namespace glance::ui {

enum class CodeTokenKind { kKeyword, kString, kComment, kNumber };

struct CodeToken {
  int start = 0;   // offset in the code's text
  int length = 0;
  CodeTokenKind kind = CodeTokenKind::kKeyword;
  bool operator==(const CodeToken&) const = default;
};

// The coloured spans of `code` (the block's lines joined with '\n'), in order, not overlapping.
// `language`: the fence's info string ("cpp", "Python", ""), case-insensitive.
std::vector<CodeToken> HighlightCode(const QString& code, const QString& language);

// The colour of a kind, readable on `palette`'s base colour (light and dark themes).
QColor CodeTokenColor(CodeTokenKind kind, const QPalette& palette);

}  // namespace glance::ui
