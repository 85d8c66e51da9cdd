// ConversationStore: save/reload is lossless (deep compare, field by field), corrupt files are
// skipped and reported, writes are atomic, exports carry images, hashes, stats and attention.
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/conversation_store.h"

using glance::AttentionMap;
using glance::ImageInfo;
using glance::ui::Conversation;
using glance::ui::ConversationStore;
using glance::ui::ConversationTurn;

namespace {

Conversation Sample() {
  Conversation c;
  c.title = QStringLiteral("A cat on a mat — “quoted”");
  c.system_prompt = QStringLiteral("You are terse.");
  ConversationTurn t;
  t.user_text = QStringLiteral("What is in the image?\nBe brief.");
  t.images.push_back(ImageInfo{"/home/u/Pictures/cat é.png", std::string(64, 'a'), 640, 480, 224, 224, 7, 7, "fast"});
  t.answer = QStringLiteral("A cat. 🐈");
  t.stats.image_tokens = 49;
  t.stats.prompt_tokens = 70;
  t.stats.context_tokens = 75;
  t.stats.generated_tokens = 5;
  t.stats.prefill_s = 0.123456789;
  t.stats.prefill_tokens_per_s = 567.8;
  t.stats.ttft_s = 0.2;
  t.stats.decode_s = 0.05;
  t.stats.decode_tokens_per_s = 80;
  t.stats.total_s = 0.3;
  t.stats.backend = "cpu";
  t.stats.backend_reason = "no NPU device";
  t.stats.threads = 4;
  t.stats.stages = {{"vision", 0.01, 1}, {"decode", 0.04, 4}};
  t.stats.token_latencies_s = {0.2, 0.011, 0.012, 0.0125, 0.0131};
  for (int step = 0; step < 3; ++step) {
    AttentionMap m;
    m.step = step;
    m.token_id = 100 + step;
    m.token_text = step == 0 ? "A" : " cat";
    m.grid_h = 7;
    m.grid_w = 7;
    m.layers = {3, 7};
    m.n_heads = 2;
    for (int i = 0; i < 2 * 2 * 49; ++i) m.weights.push_back(static_cast<float>(i + step) / 197.0f);
    for (int i = 0; i < 49; ++i) m.mean.push_back(static_cast<float>(i) / 49.0f + 1e-8f);
    t.attention.push_back(m);
  }
  t.words = {{"A", 0, 0}, {" cat.", 1, 2}};
  c.turns.push_back(t);
  ConversationTurn t2;
  t2.user_text = QStringLiteral("And the colour?");
  t2.answer = QStringLiteral("Grey.");
  c.turns.push_back(t2);
  return c;
}

// Field-by-field comparison, independent of the JSON code under test.
void ExpectSame(const Conversation& a, const Conversation& b) {
  QCOMPARE(a.id, b.id);
  QCOMPARE(a.title, b.title);
  QCOMPARE(a.created, b.created);
  QCOMPARE(a.updated, b.updated);
  QCOMPARE(a.system_prompt, b.system_prompt);
  QCOMPARE(a.turns.size(), b.turns.size());
  for (size_t i = 0; i < a.turns.size(); ++i) {
    const ConversationTurn &x = a.turns[i], &y = b.turns[i];
    QCOMPARE(x.user_text, y.user_text);
    QCOMPARE(x.answer, y.answer);
    QCOMPARE(x.images.size(), y.images.size());
    for (size_t k = 0; k < x.images.size(); ++k) {
      const ImageInfo &p = x.images[k], &q = y.images[k];
      QCOMPARE(p.path, q.path);
      QCOMPARE(p.sha256, q.sha256);
      QCOMPARE(p.source_w, q.source_w);
      QCOMPARE(p.source_h, q.source_h);
      QCOMPARE(p.resized_w, q.resized_w);
      QCOMPARE(p.resized_h, q.resized_h);
      QCOMPARE(p.grid_w, q.grid_w);
      QCOMPARE(p.grid_h, q.grid_h);
      QCOMPARE(p.mode, q.mode);
    }
    const auto &s = x.stats, &r = y.stats;
    QCOMPARE(s.image_tokens, r.image_tokens);
    QCOMPARE(s.prompt_tokens, r.prompt_tokens);
    QCOMPARE(s.context_tokens, r.context_tokens);
    QCOMPARE(s.generated_tokens, r.generated_tokens);
    QCOMPARE(s.prefill_s, r.prefill_s);
    QCOMPARE(s.prefill_tokens_per_s, r.prefill_tokens_per_s);
    QCOMPARE(s.ttft_s, r.ttft_s);
    QCOMPARE(s.decode_s, r.decode_s);
    QCOMPARE(s.decode_tokens_per_s, r.decode_tokens_per_s);
    QCOMPARE(s.total_s, r.total_s);
    QCOMPARE(s.backend, r.backend);
    QCOMPARE(s.backend_reason, r.backend_reason);
    QCOMPARE(s.threads, r.threads);
    QCOMPARE(s.stages.size(), r.stages.size());
    for (size_t k = 0; k < s.stages.size(); ++k) {
      QCOMPARE(s.stages[k].name, r.stages[k].name);
      QCOMPARE(s.stages[k].seconds, r.stages[k].seconds);
      QCOMPARE(s.stages[k].calls, r.stages[k].calls);
    }
    QVERIFY(s.token_latencies_s == r.token_latencies_s);
    QCOMPARE(x.attention.size(), y.attention.size());
    for (size_t k = 0; k < x.attention.size(); ++k) {
      const AttentionMap &m = x.attention[k], &n = y.attention[k];
      QCOMPARE(m.step, n.step);
      QCOMPARE(m.token_id, n.token_id);
      QCOMPARE(m.token_text, n.token_text);
      QCOMPARE(m.image_index, n.image_index);
      QCOMPARE(m.grid_h, n.grid_h);
      QCOMPARE(m.grid_w, n.grid_w);
      QVERIFY(m.layers == n.layers);
      QCOMPARE(m.n_heads, n.n_heads);
      QVERIFY(m.weights == n.weights);  // bit-exact floats
      QVERIFY(m.mean == n.mean);
    }
    QCOMPARE(x.words.size(), y.words.size());
    for (size_t k = 0; k < x.words.size(); ++k) {
      QCOMPARE(x.words[k].text, y.words[k].text);
      QCOMPARE(x.words[k].first_step, y.words[k].first_step);
      QCOMPARE(x.words[k].last_step, y.words[k].last_step);
    }
  }
}

}  // namespace

class ConversationStoreTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString Folder() const { return dir_.filePath(QStringLiteral("conversations")); }

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
  void cleanup() { QDir(Folder()).removeRecursively(); }

  void defaultFolderIsAppData() {
    QVERIFY(ConversationStore::DefaultFolder().startsWith(
        QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)));
  }

  void savedConversationReloadsIdentically() {
    ConversationStore store(Folder());
    Conversation c = Sample();
    QString error;
    QVERIFY2(store.save(c, &error), qPrintable(error));
    QVERIFY(!c.id.isEmpty());
    QVERIFY(c.created.isValid() && c.updated.isValid());
    const auto loaded = store.load(c.id, &error);
    QVERIFY2(loaded, qPrintable(error));
    ExpectSame(c, *loaded);
  }

  void deepCompareDetectsADifference() {
    // Negative control: the comparison above must be able to fail.
    ConversationStore store(Folder());
    Conversation c = Sample();
    QVERIFY(store.save(c));
    Conversation changed = *store.load(c.id);
    changed.turns[0].attention[1].weights[5] = std::nextafter(changed.turns[0].attention[1].weights[5], 2.0f);
    QVERIFY(changed.turns[0].attention[1].weights != c.turns[0].attention[1].weights);
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
    QVERIFY(text.contains(QString::fromStdString(c.turns[0].images[0].path)));
    QVERIFY(text.contains(QStringLiteral("A cat. 🐈")));
    QVERIFY(text.contains(QStringLiteral("70 prompt tokens (49 image)")));
    QFile jf(js);
    QVERIFY(jf.open(QIODevice::ReadOnly));
    const auto doc = nlohmann::json::parse(jf.readAll().toStdString());
    ExpectSame(c, glance::ui::ConversationFromJson(doc));
    QCOMPARE(doc["turns"][0]["attention"].size(), size_t{3});
    QCOMPARE(doc["turns"][0]["images"][0]["sha256"].get<std::string>(), std::string(64, 'a'));
  }
};

QTEST_GUILESS_MAIN(ConversationStoreTest)
#include "test_conversation_store.moc"
