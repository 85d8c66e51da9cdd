// Saved conversations (ui/conversation_store.h): a conversation file from disk, possibly
// hand-edited or damaged, listed and loaded the way the sidebar does; whatever loads is
// exported again (JSON and Markdown), as "Export" would.
#include <QString>
#include <QStringList>
#include <filesystem>

#include "tests/fuzz/fuzz_util.h"
#include "ui/conversation_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const QString folder = QString::fromStdString((glance::fuzz::ScratchDir() / "conversations").string());
  std::filesystem::create_directories(folder.toStdString());
  glance::fuzz::WriteScratch("conversations/fuzz.json", glance::fuzz::AsText(data, size));
  glance::ui::ConversationStore store(folder);
  QStringList errors;
  (void)store.list(&errors);
  QString error;
  if (auto c = store.load(QStringLiteral("fuzz"), &error)) {
    const QString out = QString::fromStdString((glance::fuzz::ScratchDir() / "export").string());
    (void)glance::ui::ConversationStore::ExportJson(*c, out + QStringLiteral(".json"), &error);
    (void)glance::ui::ConversationStore::ExportMarkdown(*c, out + QStringLiteral(".md"), &error);
  }
  return 0;
}
