// The saved-conversation writer the crash tests run as a child under io_fault_shim (issue 35),
// through the desktop app's own ConversationStore:
//   crash_conversation_writer save FOLDER IMAGE   keeps IMAGE (copied into FOLDER/images under
//                                                 its sha256) and saves conversation "c1" with one
//                                                 more turn ("question N" / "answer N")
//   crash_conversation_writer check FOLDER        prints the state Glance finds there: "turns N",
//                                                 or "bad: <why>" (a listing error, a torn kept
//                                                 image, a turn that is not whole)
//   crash_conversation_writer export FILE TAG     an export (ui/atomic_save.h, what the timing and
//                                                 attention exports write through): a CSV of 400
//                                                 rows made from TAG
//   crash_conversation_writer export-check FILE   "export TAG" when the file is one whole export,
//                                                 "export none" with no file, else "bad: <why>"
//   crash_conversation_writer settings FILE TAG   the settings file (ui/settings_file.h, what
//                                                 SettingsStore and the window keep their values
//                                                 in): 40 values made from TAG, saved
//   crash_conversation_writer settings-check FILE "settings TAG" when the file reads (the app's
//                                                 reader, ParseSettingsFile) as TAG's values, all of
//                                                 them; "settings none" with no file; else "bad: <why>"
// Errors are one line on stderr; exit 0 or 1.
#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <cstdio>
#include <cstdlib>


#include "core/util/atomic_write.h"
#include "core/util/sha256.h"
#include "ui/atomic_save.h"
#include "ui/conversation_store.h"
#include "ui/settings_file.h"

using glance::ui::Conversation;
using glance::ui::ConversationStore;
using glance::ui::ConversationTurn;

namespace {

int Save(const QString& folder, const QString& image) {
  ConversationStore store(folder);
  QString error;
  Conversation c;
  if (QFile::exists(folder + QStringLiteral("/c1.json"))) {
    auto loaded = store.load(QStringLiteral("c1"), &error);
    if (!loaded) {
      std::fprintf(stderr, "error: %s\n", qPrintable(error));
      return 1;
    }
    c = *loaded;
  } else {
    c.id = QStringLiteral("c1");
    c.title = QStringLiteral("crash test");
  }
  if (store.keepImageFile(image, &error).isEmpty()) {
    std::fprintf(stderr, "error: %s\n", qPrintable(error));
    return 1;
  }
  ConversationTurn t;
  const QString n = QString::number(c.turns.size() + 1);
  t.user_text = QStringLiteral("question ") + n;
  t.answer = QStringLiteral("answer ") + n + QLatin1Char(' ') + QString(2000, QLatin1Char('x'));
  c.turns.push_back(t);
  if (!store.save(c, &error)) {
    std::fprintf(stderr, "error: %s\n", qPrintable(error));
    return 1;
  }
  return 0;
}

int Check(const QString& folder) {
  ConversationStore store(folder);
  QStringList errors;
  const auto entries = store.list(&errors);
  if (!errors.isEmpty()) return std::printf("bad: %s\n", qPrintable(errors.join(QStringLiteral("; ")))), 0;
  // Every kept image is whole: the sha256 of its bytes names its folder (images/<sha256>/<its
  // own name>) or starts its name (images/<sha256>.<suffix>, kept before). A kill before the
  // rename leaves a hidden .<name>.glance-tmp-XXXXXX (atomic_write.h): litter, removed by the next
  // save there, never taken for an image; an empty <sha256> folder is litter too.
  QDirIterator it(store.imagesFolder(), QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QFileInfo f(it.next());
    if (glance::IsAtomicWriteLeftover(f.fileName().toStdString())) continue;
    const QString sha = QString::fromStdString(glance::Sha256File(f.absoluteFilePath().toStdString()));
    const bool in_own_folder = QDir(f.absolutePath()) != QDir(store.imagesFolder());
    if (in_own_folder ? f.dir().dirName() != sha : !f.fileName().startsWith(sha))
      return std::printf("bad: %s is not a whole kept image\n", qPrintable(f.filePath())), 0;
  }
  if (entries.isEmpty()) return std::printf("turns 0\n"), 0;
  QString error;
  const auto c = store.load(QStringLiteral("c1"), &error);
  if (!c) return std::printf("bad: %s\n", qPrintable(error)), 0;
  for (size_t i = 0; i < c->turns.size(); ++i) {
    const QString n = QString::number(i + 1);
    if (c->turns[i].user_text != QStringLiteral("question ") + n ||
        c->turns[i].answer != QStringLiteral("answer ") + n + QLatin1Char(' ') + QString(2000, QLatin1Char('x')))
      return std::printf("bad: turn %zu is not whole\n", i + 1), 0;
  }
  return std::printf("turns %zu\n", c->turns.size()), 0;
}

QByteArray ExportBytes(const QString& tag) {
  QByteArray csv = "turn,kind,name,value\n";
  for (int i = 0; i < 400; ++i) csv += QStringLiteral("%1,stage,%2,%3\n").arg(i).arg(tag).arg(i * 7).toUtf8();
  return csv;
}

int Export(const QString& file, const QString& tag) {
  QString error;
  if (!glance::ui::SaveFileAtomically(file, ExportBytes(tag), &error)) {
    std::fprintf(stderr, "error: %s\n", qPrintable(error));
    return 1;
  }
  return 0;
}

int ExportCheck(const QString& file) {
  if (!QFile::exists(file)) return std::printf("export none\n"), 0;
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly)) return std::printf("bad: cannot read\n"), 0;
  const QByteArray bytes = f.readAll();
  for (const QString& tag : {QStringLiteral("old"), QStringLiteral("new")})
    if (bytes == ExportBytes(tag)) return std::printf("export %s\n", qPrintable(tag)), 0;
  return std::printf("bad: not one whole export (%lld bytes)\n", static_cast<long long>(bytes.size())), 0;
}

QVariantMap SettingsValues(const QString& tag) {
  QVariantMap values;
  values.insert(QStringLiteral("crash/tag"), tag);
  for (int i = 0; i < 40; ++i)
    values.insert(QStringLiteral("crash/k%1").arg(i, 2, 10, QLatin1Char('0')),
                  i % 3 == 0 ? QVariant(QByteArray(64, static_cast<char>(i))) :
                  i % 3 == 1 ? QVariant(tag + QString(60, QLatin1Char('a' + i % 26))) : QVariant(i * 1000 + tag.size()));
  return values;
}

int Settings(const QString& file, const QString& tag) {
  const auto settings = glance::ui::SettingsFile::Open(file);
  if (!settings->loadNotice().isEmpty()) std::fprintf(stderr, "notice: %s\n", qPrintable(settings->loadNotice()));
  const QVariantMap values = SettingsValues(tag);
  for (auto it = values.begin(); it != values.end(); ++it) settings->setValue(it.key(), it.value());
  QString error;
  if (!settings->save(&error)) {
    std::fprintf(stderr, "error: %s\n", qPrintable(error));
    std::fflush(stderr);
    // The app keeps the values and tries again (at the latest when it closes); this writer stops.
    std::_Exit(1);
  }
  return 0;
}

int SettingsCheck(const QString& file) {
  if (!QFile::exists(file)) return std::printf("settings none\n"), 0;
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly)) return std::printf("bad: cannot read\n"), 0;
  QVariantMap values;
  QString error;
  if (!glance::ui::ParseSettingsFile(f.readAll(), &values, &error)) return std::printf("bad: %s\n", qPrintable(error)), 0;
  const QString tag = values.value(QStringLiteral("crash/tag")).toString();
  const QVariantMap want = SettingsValues(tag);
  if (values.size() != want.size()) return std::printf("bad: %lld values\n", static_cast<long long>(values.size())), 0;
  for (auto it = want.begin(); it != want.end(); ++it)
    if (values.value(it.key()) != it.value()) return std::printf("bad: %s differs\n", qPrintable(it.key())), 0;
  return std::printf("settings %s\n", qPrintable(tag)), 0;
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  const QStringList args = app.arguments();
  if (args.size() == 4 && args[1] == QStringLiteral("save")) return Save(args[2], args[3]);
  if (args.size() == 3 && args[1] == QStringLiteral("check")) return Check(args[2]);
  if (args.size() == 4 && args[1] == QStringLiteral("export")) return Export(args[2], args[3]);
  if (args.size() == 3 && args[1] == QStringLiteral("export-check")) return ExportCheck(args[2]);
  if (args.size() == 4 && args[1] == QStringLiteral("settings")) return Settings(args[2], args[3]);
  if (args.size() == 3 && args[1] == QStringLiteral("settings-check")) return SettingsCheck(args[2]);
  std::fprintf(stderr,
               "usage: crash_conversation_writer save FOLDER IMAGE | check FOLDER | export FILE TAG |\n"
               "       export-check FILE | settings FILE TAG | settings-check FILE\n");
  return 2;
}
