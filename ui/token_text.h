// A generated token as the attention panel shows it: on a word chip, and in the live caption.
#pragma once

#include <QString>
#include <string>

namespace glance::ui {

// The token's text trimmed, or an open box for a whitespace-only token (a chip must show something).
QString ChipText(const std::string& text);

// The token as one line: newlines and tabs drawn as arrows (a newline token broke the live caption
// over two lines), an open box for a whitespace-only token.
QString VisibleToken(const std::string& text);

}  // namespace glance::ui
