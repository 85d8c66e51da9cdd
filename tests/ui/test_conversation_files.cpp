// ConversationStore on disk: listing, delete and undo, kept images, corrupt and special files
// skipped and reported, atomic writes, and exports that carry images, hashes, stats and attention.
#include <sys/stat.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>

#include "core/engine/events_json.h"
#include "core/util/sha256.h"
#include "ui/attention_data.h"
#include "ui/conversation_store.h"
#include "tests/ui/conversation_samples.h"

using namespace conversation_samples;

class ConversationFilesTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString Folder() const { return dir_.filePath(QStringLiteral("conversations")); }

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
  void cleanup() { QDir(Folder()).removeRecursively(); }

  void listingStopsAtTheTurns() {
    // A file whose turns are cut off mid-way still lists: list() reads only the header.
    ConversationStore store(Folder());
    Conversation c = Sample();
    QVERIFY(store.save(c));
    const QString path = Folder() + QLatin1Char('/') + c.id + QStringLiteral(".json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray bytes = f.readAll();
    f.close();
    bytes.truncate(bytes.indexOf("\"turns\"") + 12);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
    f.close();
    QStringList errors;
    const auto entries = store.list(&errors);
    QCOMPARE(entries.size(), 1);
    QCOMPARE(entries[0].title, c.title);
    QVERIFY(errors.isEmpty());
    QVERIFY(!store.load(c.id));  // opening it reads the turns and says they are broken
  }

  void deleteCanBeUndone() {
    ConversationStore store(Folder());
    Conversation c = Sample();
    QVERIFY(store.save(c));
    QVERIFY(store.remove(c.id));
    QCOMPARE(store.list().size(), 0);
    QVERIFY(store.restore(c.id));
    QCOMPARE(store.list().size(), 1);
    QVERIFY(!store.restore(c.id));  // nothing left in the trash
  }

  void pastedImagesAreKeptAndFoundBySha() {
    ConversationStore store(Folder());
    QImage image(16, 12, QImage::Format_RGB32);
    image.fill(Qt::blue);
    QString error;
    const QString kept = store.keepImage(image, &error);
    QVERIFY2(!kept.isEmpty(), qPrintable(error));
    QVERIFY(kept.startsWith(store.imagesFolder()));
    QCOMPARE(store.keepImage(image), kept);  // same pixels, same file
    const QString sha = QFileInfo(kept).completeBaseName();
    QCOMPARE(sha.size(), 64);
    QCOMPARE(store.findImage(QStringLiteral("/gone/away.png"), sha), kept);  // by sha256
    QCOMPARE(store.findImage(kept, sha), kept);                                // by path
    QVERIFY(store.findImage(kept, QString(64, QLatin1Char('0'))).isEmpty());   // wrong sha
    // A file in a folder that may vanish is copied under its sha256.
    const QString copy = store.keepImageFile(kept);
    QCOMPARE(copy, kept);
  }

  // A kept file keeps its own name (in a folder named by its sha256), so after a restart the
  // image area, the transcript and the exports call it by that name, not by its hash (issue 34).
  // Two different files of one name get two copies; the same file kept twice, one; each is found
  // by its sha256 once the original is gone.
  void keptFilesKeepTheirNames() {
    ConversationStore store(Folder());
    QTemporaryDir source;
    auto write = [&](const QString& sub, const QByteArray& bytes) {
      QDir().mkpath(source.filePath(sub));
      QFile f(source.filePath(sub + QStringLiteral("/cat photo.jpg")));
      f.open(QIODevice::WriteOnly);
      f.write(bytes);
      return f.fileName();
    };
    const QString a = write(QStringLiteral("a"), QByteArray("first image bytes"));
    const QString b = write(QStringLiteral("b"), QByteArray("second image bytes"));
    QString error;
    const QString keptA = store.keepImageFile(a, &error);
    QVERIFY2(!keptA.isEmpty(), qPrintable(error));
    QCOMPARE(QFileInfo(keptA).fileName(), QStringLiteral("cat photo.jpg"));
    QVERIFY(keptA.startsWith(store.imagesFolder()));
    const QString keptB = store.keepImageFile(b);
    QCOMPARE(QFileInfo(keptB).fileName(), QStringLiteral("cat photo.jpg"));
    QVERIFY(keptA != keptB);
    QCOMPARE(store.keepImageFile(a), keptA);
    const QString sha = QString::fromStdString(glance::Sha256File(a.toStdString()));
    QVERIFY(QFile::remove(a));
    QCOMPARE(store.findImage(a, sha), keptA);
    // The Markdown export names the image by its own name.
    Conversation c;
    c.title = QStringLiteral("kept");
    ConversationTurn t;
    t.user_text = QStringLiteral("Describe this image.");
    t.answer = QStringLiteral("A cat.");
    glance::ImageInfo info;
    info.path = keptA.toStdString();
    info.sha256 = sha.toStdString();
    t.images = {info};
    c.turns = {t};
    const QString md = glance::ui::ToMarkdown(c);
    QVERIFY2(md.contains(QStringLiteral("`cat photo.jpg`")), qPrintable(md));
    QVERIFY(!md.contains(sha + QStringLiteral(".jpg")));
  }

  void exportNamesAndAutomaticTitles() {
    Conversation c;
    c.title = QStringLiteral("Describe this image.");
    QCOMPARE(glance::ui::ExportFileName(c, QStringLiteral(".md")), QStringLiteral("Describe this image.md"));
    c.title = QStringLiteral("a/b: c?");
    QCOMPARE(glance::ui::ExportFileName(c, QStringLiteral(".json")), QStringLiteral("a b c.json"));
    c.title.clear();
    QCOMPARE(glance::ui::ExportFileName(c, QStringLiteral(".md")), QStringLiteral("conversation.md"));
    QCOMPARE(glance::ui::AutoTitle(QStringLiteral("What breed is it?"), QStringLiteral("A cat.")),
             QStringLiteral("What breed is it?"));
    QCOMPARE(glance::ui::AutoTitle(QStringLiteral("Describe this image."),
                                   QStringLiteral("A tabby cat sleeps on a red mat. It is warm.")),
             QStringLiteral("A tabby cat sleeps on a red mat"));

    // An export's heading has the automatic title whole; a renamed chat keeps its own title.
    ConversationTurn t;
    t.user_text = QStringLiteral("Describe this image.");
    t.answer = QStringLiteral("A small yellow square in the top left corner and a medium orange diamond at the bottom, "
                              "on a white and green background. Nothing else.");
    Conversation longOne;
    longOne.turns = {t};
    longOne.title = glance::ui::AutoTitle(t.user_text, t.answer);
    QVERIFY(longOne.title.endsWith(QChar(0x2026)));  // the stored one is cut
    const QString whole = QStringLiteral("A small yellow square in the top left corner and a medium orange diamond at the "
                                         "bottom, on a white and green background");
    QCOMPARE(glance::ui::ExportTitle(longOne), whole);
    QVERIFY2(glance::ui::ToMarkdown(longOne).startsWith(QStringLiteral("# ") + whole + QStringLiteral("\n")),
             qPrintable(glance::ui::ToMarkdown(longOne).left(200)));
    longOne.title = QStringLiteral("Shapes");
    QVERIFY(glance::ui::ToMarkdown(longOne).startsWith(QStringLiteral("# Shapes\n")));
  }

  void listDeleteAndOrder() {
    ConversationStore store(Folder());
    Conversation a = Sample(), b = Sample();
    a.title = QStringLiteral("first");
    b.title = QStringLiteral("second");
    QVERIFY(store.save(a));
    QTest::qWait(5);
    QVERIFY(store.save(b));
    auto entries = store.list();
    QCOMPARE(entries.size(), 2);
    QCOMPARE(entries[0].title, QStringLiteral("second"));  // newest first
    QCOMPARE(entries[1].id, a.id);
    QCOMPARE(entries[1].updated, a.updated);
    QVERIFY(store.remove(a.id));
    QString error;
    QVERIFY(!store.remove(a.id, &error));
    QVERIFY(!error.isEmpty());
    QCOMPARE(store.list().size(), 1);
    QVERIFY(!store.load(a.id));
    QVERIFY(!store.load(QStringLiteral("../escape")));
  }

  void corruptFileIsSkippedAndReported() {
    ConversationStore store(Folder());
    Conversation good = Sample();
    QVERIFY(store.save(good));
    auto write = [this](const char* name, const QByteArray& bytes) {
      QFile f(Folder() + QLatin1Char('/') + QLatin1String(name));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(bytes);
    };
    write("truncated.json", "{\"format\": \"glance-conversation\", \"version\": 1, \"title\": \"x");
    write("other.json", "{\"hello\": 1}");
    write("badtime.json",
          "{\"format\":\"glance-conversation\",\"version\":1,\"id\":\"badtime\",\"title\":\"t\","
          "\"created\":\"yesterday\",\"updated\":\"x\",\"system_prompt\":\"\",\"turns\":[]}");
    QSignalSpy reported(&store, &ConversationStore::errorOccurred);
    QStringList errors;
    const auto entries = store.list(&errors);
    QCOMPARE(entries.size(), 1);
    QCOMPARE(entries[0].id, good.id);
    QCOMPARE(errors.size(), 3);
    QCOMPARE(reported.count(), 3);
    QVERIFY(errors.join(QLatin1Char('\n')).contains(QStringLiteral("truncated.json")));
    QString error;
    QVERIFY(!store.load(QStringLiteral("truncated"), &error));
    QVERIFY2(error.contains(QStringLiteral("truncated.json")), qPrintable(error));
  }

  // A FIFO or a link to a device among the saved chats (or opened by name) must not block or
  // fill memory: listing skips them, opening one is an error naming the file.
  void fifoAndDeviceFilesDoNotBlock() {
    ConversationStore store(Folder());
    Conversation good = Sample();
    QVERIFY(store.save(good));
    const QString fifo = Folder() + QStringLiteral("/fifo.json");
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    QVERIFY(QFile::link(QStringLiteral("/dev/zero"), Folder() + QStringLiteral("/zero.json")));
    QElapsedTimer timer;
    timer.start();
    const auto entries = store.list();
    QCOMPARE(entries.size(), 1);
    QCOMPARE(entries[0].id, good.id);
    QString error;
    QVERIFY(!store.load(QStringLiteral("fifo"), &error).has_value());
    QVERIFY2(error.contains(QStringLiteral("fifo.json")), qPrintable(error));
    QVERIFY(!store.load(QStringLiteral("zero"), &error).has_value());
    QVERIFY2(error.contains(QStringLiteral("zero.json")), qPrintable(error));
    QVERIFY(timer.elapsed() < 5000);
    QVERIFY(store.load(good.id, &error).has_value());  // the negative control still opens
  }

  void atomicWriteLeavesNoPartialFile() {
    ConversationStore store(Folder());
    Conversation c = Sample();
    QVERIFY(store.save(c));
    const QString path = Folder() + QLatin1Char('/') + c.id + QStringLiteral(".json");
    QFile before(path);
    QVERIFY(before.open(QIODevice::ReadOnly));
    const QByteArray old_bytes = before.readAll();
    before.close();
    // Saving into a folder we cannot write fails without touching the existing file and without
    // leaving temporaries behind.
    QVERIFY(QFile::setPermissions(Folder(), QFileDevice::ReadOwner | QFileDevice::ExeOwner));
    c.title = QStringLiteral("changed");
    QString error;
    const bool saved = store.save(c, &error);
    QVERIFY(QFile::setPermissions(Folder(), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                QFileDevice::ExeOwner));
    if (saved) QSKIP("running as root: directory permissions are not enforced");
    QVERIFY(error.contains(path));
    QFile after(path);
    QVERIFY(after.open(QIODevice::ReadOnly));
    QCOMPARE(after.readAll(), old_bytes);
    QCOMPARE(QDir(Folder()).entryList(QDir::Files | QDir::Hidden),
             QStringList{c.id + QStringLiteral(".json")});
  }

  void failedWriteLeavesNoTemporaryFile() {
    // Root-proof failure: the target name is taken by a folder, so the write cannot complete;
    // the store must report it and leave no temporary or half-written file behind.
    ConversationStore store(Folder());
    Conversation c = Sample();
    c.id = QStringLiteral("blocked");
    QVERIFY(QDir().mkpath(Folder() + QStringLiteral("/blocked.json")));
    QString error;
    QVERIFY(!store.save(c, &error));
    QVERIFY2(error.contains(QStringLiteral("blocked.json")), qPrintable(error));
    QCOMPARE(QDir(Folder()).entryList(QDir::Files | QDir::Hidden), QStringList());
    QStringList errors;
    QCOMPARE(store.list(&errors).size(), 0);  // a folder named *.json is not listed
  }

  void successfulSaveLeavesOnlyTheFile() {
    ConversationStore store(Folder());
    Conversation c = Sample();
    QVERIFY(store.save(c));
    c.title = QStringLiteral("renamed");
    QVERIFY(store.save(c));
    QCOMPARE(QDir(Folder()).entryList(QDir::Files | QDir::Hidden),
             QStringList{c.id + QStringLiteral(".json")});
    QCOMPARE(store.load(c.id)->title, QStringLiteral("renamed"));
  }

  // Issue 34: a Markdown export pointed at the images' absolute (often hidden) paths. The images
  // are copied beside it, under their own names, and linked relatively: every link resolves from
  // the file's folder, also after the file and its folder are moved elsewhere.
  void markdownExportCarriesItsImagesBesideIt() {
    QTemporaryDir src;
    QVERIFY(QDir().mkpath(src.filePath(QStringLiteral("b"))));
    const QString red = src.filePath(QStringLiteral("cat photo.png"));
    const QString blue = src.filePath(QStringLiteral("b/cat photo.png"));  // another picture, same name
    QImage image(8, 8, QImage::Format_RGB32);
    image.fill(Qt::red);
    QVERIFY(image.save(red));
    image.fill(Qt::blue);
    QVERIFY(image.save(blue));
    auto info = [](const QString& path) {
      ImageInfo i;
      i.path = path.toStdString();
      i.sha256 = QFile::exists(path) ? glance::Sha256File(path.toStdString()) : std::string(64, 'c');
      return i;
    };
    Conversation c;
    c.title = QStringLiteral("Two cats");
    ConversationTurn t;
    t.user_text = QStringLiteral("Compare.");
    t.answer = QStringLiteral("Red and blue.");
    t.images = {info(red), info(blue)};
    c.turns.push_back(t);
    t.images = {info(red)};  // the same picture again: one copy
    c.turns.push_back(t);
    t.images = {info(src.filePath(QStringLiteral("gone.png")))};  // no longer anywhere
    c.turns.push_back(t);

    QTemporaryDir out;
    QVERIFY(QDir().mkpath(out.filePath(QStringLiteral("my exports"))));
    const QString md = out.filePath(QStringLiteral("my exports/Two cats (final).md"));
    QString error;
    QVERIFY2(ConversationStore::ExportMarkdown(c, md, &error), qPrintable(error));
    const QDir images(out.filePath(QStringLiteral("my exports/Two cats (final)_images")));
    QCOMPARE(images.entryList(QDir::Files, QDir::Name),
             (QStringList{QStringLiteral("cat photo (2).png"), QStringLiteral("cat photo.png")}));
    QCOMPARE(QImage(images.filePath(QStringLiteral("cat photo.png"))).pixelColor(0, 0), QColor(Qt::red));
    QCOMPARE(QImage(images.filePath(QStringLiteral("cat photo (2).png"))).pixelColor(0, 0), QColor(Qt::blue));

    // Moved with its folder: every link still resolves, and none names where the originals were.
    const QString moved = out.filePath(QStringLiteral("elsewhere"));
    QVERIFY(QDir().rename(out.filePath(QStringLiteral("my exports")), moved));
    QFile f(moved + QStringLiteral("/Two cats (final).md"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    QVERIFY2(!text.contains(src.path()), qPrintable(text));
    const QRegularExpression linkRe(QStringLiteral("!\\[[^\\]]*\\]\\(([^)\\s]+)\\)"));
    QStringList targets;
    for (auto it = linkRe.globalMatch(text); it.hasNext();) {
      const QString target = QUrl::fromPercentEncoding(it.next().captured(1).toUtf8());
      QVERIFY2(QFileInfo(target).isRelative(), qPrintable(target));
      QVERIFY2(QFileInfo::exists(moved + QLatin1Char('/') + target), qPrintable(target));
      targets << target;
    }
    QCOMPARE(targets, (QStringList{QStringLiteral("Two cats (final)_images/cat photo.png"),
                                   QStringLiteral("Two cats (final)_images/cat photo (2).png"),
                                   QStringLiteral("Two cats (final)_images/cat photo.png")}));
    QVERIFY(text.contains(QStringLiteral("`gone.png`")));  // named, not shown

    // Not writable next to the file: the export fails and says why.
    QVERIFY(!ConversationStore::ExportMarkdown(c, out.filePath(QStringLiteral("no/such/folder/x.md")), &error));
    QVERIFY(!error.isEmpty());
  }

  void exportsCarryImagesHashesStatsAndAttention() {
    ConversationStore store(Folder());
    Conversation c = Sample();
    QVERIFY(store.save(c));
    const QString md = dir_.filePath(QStringLiteral("export.md"));
    const QString js = dir_.filePath(QStringLiteral("export.json"));
    QVERIFY(ConversationStore::ExportMarkdown(c, md));
    QVERIFY(ConversationStore::ExportJson(c, js));
    QFile mf(md);
    QVERIFY(mf.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(mf.readAll());
    QVERIFY(text.contains(QStringLiteral("# ") + c.title));
    QVERIFY(text.contains(QString::fromStdString(c.turns[0].images[0].sha256)));
    QVERIFY(text.contains(QStringLiteral("`cat é.png`")));  // named; the file is not on this machine
    QVERIFY(!text.contains(QStringLiteral("](")));           // so not shown
    QVERIFY(text.contains(QStringLiteral("A cat. 🐈")));
    QVERIFY(text.contains(QStringLiteral("70 prompt tokens (49 image)")));
    QFile jf(js);
    QVERIFY(jf.open(QIODevice::ReadOnly));
    const auto doc = nlohmann::json::parse(jf.readAll().toStdString());
    ExpectSame(c, glance::ui::ConversationFromJson(doc));
    QCOMPARE(doc["turns"][0]["attention"]["maps"].size(), size_t{3});
    QCOMPARE(doc["turns"][0]["model"].get<std::string>(), "demo");
    QCOMPARE(doc["model"].get<std::string>(), "demo");
    QCOMPARE(doc["turns"][0]["stats"]["precision"].get<std::string>(), "q8");
    QCOMPARE(doc["turns"][0]["images"][0]["sha256"].get<std::string>(), std::string(64, 'a'));
  }
};

QTEST_GUILESS_MAIN(ConversationFilesTest)
#include "test_conversation_files.moc"
