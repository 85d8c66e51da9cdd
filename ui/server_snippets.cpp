#include "ui/server_snippets.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

namespace glance::ui {
namespace {

// A JSON string literal, which is also a valid Python and JavaScript string literal.
QString Quoted(const QString& s) {
  const QByteArray array = QJsonDocument(QJsonArray{s}).toJson(QJsonDocument::Compact);
  return QString::fromUtf8(array.mid(1, array.size() - 2));
}

// One single-quoted shell word.
QString ShellWord(const QString& s) {
  QString out = s;
  out.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
  return QLatin1Char('\'') + out + QLatin1Char('\'');
}

}  // namespace

QString ClientBaseUrl(const QString& url) {
  QUrl u(url);
  if (!u.isValid()) return url;  // "http://127.0.0.1:PORT": a port not chosen yet, kept as written
  if (u.host() == QStringLiteral("0.0.0.0")) u.setHost(QStringLiteral("127.0.0.1"));
  if (u.host() == QStringLiteral("::")) u.setHost(QStringLiteral("::1"));
  return u.toString(QUrl::StripTrailingSlash);
}

ServerSnippets MakeServerSnippets(const QString& url, const QString& model, const QString& apiKey) {
  const QString base = ClientBaseUrl(url);
  const QString key = apiKey.isEmpty() ? QStringLiteral("not-needed") : apiKey;
  ServerSnippets s;

  const QJsonObject body{{QStringLiteral("model"), model},
                         {QStringLiteral("messages"),
                          QJsonArray{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                                 {QStringLiteral("content"), QStringLiteral("Say hello.")}}}}};
  s.curl = QStringLiteral("curl %1 \\\n  -H 'Content-Type: application/json' \\\n")
               .arg(ShellWord(base + QStringLiteral("/v1/chat/completions")));
  if (!apiKey.isEmpty()) s.curl += QStringLiteral("  -H %1 \\\n").arg(ShellWord(QStringLiteral("Authorization: Bearer ") + apiKey));
  s.curl += QStringLiteral("  -d %1\n").arg(ShellWord(QString::fromUtf8(QJsonDocument(body).toJson(QJsonDocument::Compact))));

  s.python = QStringLiteral(
                 "# pip install openai\n"
                 "import base64\n"
                 "from openai import OpenAI\n"
                 "\n"
                 "client = OpenAI(\n"
                 "    base_url=%1,\n"
                 "    api_key=%2,\n"
                 ")\n"
                 "with open(\"photo.png\", \"rb\") as f:\n"
                 "    image = \"data:image/png;base64,\" + base64.b64encode(f.read()).decode()\n"
                 "stream = client.chat.completions.create(\n"
                 "    model=%3,\n"
                 "    messages=[{\"role\": \"user\", \"content\": [\n"
                 "        {\"type\": \"image_url\", \"image_url\": {\"url\": image}},\n"
                 "        {\"type\": \"text\", \"text\": \"Describe this image.\"}]}],\n"
                 "    stream=True,\n"
                 ")\n"
                 "for chunk in stream:\n"
                 "    print(chunk.choices[0].delta.content or \"\", end=\"\", flush=True)\n"
                 "print()\n")
                 .arg(Quoted(base + QStringLiteral("/v1")), Quoted(key), Quoted(model));

  s.javascript = QStringLiteral(
                     "// npm install openai\n"
                     "import OpenAI from 'openai';\n"
                     "import fs from 'node:fs';\n"
                     "\n"
                     "const client = new OpenAI({\n"
                     "  baseURL: %1,\n"
                     "  apiKey: %2,\n"
                     "});\n"
                     "const image = `data:image/png;base64,${fs.readFileSync('photo.png').toString('base64')}`;\n"
                     "const stream = await client.chat.completions.create({\n"
                     "  model: %3,\n"
                     "  stream: true,\n"
                     "  messages: [{ role: 'user', content: [\n"
                     "    { type: 'image_url', image_url: { url: image } },\n"
                     "    { type: 'text', text: 'Describe this image.' }] }],\n"
                     "});\n"
                     "for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? '');\n")
                     .arg(Quoted(base + QStringLiteral("/v1")), Quoted(key), Quoted(model));
  return s;
}

}  // namespace glance::ui
