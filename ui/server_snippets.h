#pragma once
// Copy-paste examples for the local server panel, filled with the real address, model and key:
// curl, Python's `openai` package and JavaScript's `openai` package. Values are quoted for the
// language they land in (a key or model name with quotes or backslashes stays one string).
#include <QString>

namespace glance::ui {

struct ServerSnippets {
  QString curl, python, javascript;
};

// `url`: the server's ("http://127.0.0.1:8080"; one bound to every address, 0.0.0.0 or ::, is
// reached through this machine's loopback address). `apiKey` empty: no key header (the openai
// packages get a placeholder, as they insist on one).
ServerSnippets MakeServerSnippets(const QString& url, const QString& model, const QString& apiKey);

// The address a program on this machine uses for a server listening at `url`; a `url` that is
// not one (a "PORT" stand-in) as it is.
QString ClientBaseUrl(const QString& url);

}  // namespace glance::ui
