// ConversationStore: save/reload is lossless (deep compare, field by field), corrupt files are
// skipped and reported, writes are atomic, exports carry images, hashes, stats and attention.
#include <sys/stat.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QCoreApplication>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>

#include <cmath>

#include "core/engine/events_json.h"
#include "core/util/error.h"
#include "core/util/sha256.h"
#include "ui/attention_codec.h"
#include "ui/attention_data.h"
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
  t.images.push_back(ImageInfo{"/home/u/Pictures/cat é.png", std::string(64, 'a'), 640, 480, 224, 224, 7, 7, glance::ImageMode::kFast});
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
  t.model = QStringLiteral("demo");
  t.stats.precision = glance::Precision::kQ8;
  c.turns.push_back(t);
  ConversationTurn t2;
  t2.user_text = QStringLiteral("And the colour?");
  t2.answer = QStringLiteral("Grey.");
  t2.model = QStringLiteral("demo");
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
    QCOMPARE(x.model, y.model);
    QCOMPARE(x.stats.precision, y.stats.precision);
    QCOMPARE(x.answer, y.answer);
    QVERIFY(glance::ui::OrderedParts(x) == glance::ui::OrderedParts(y));
    QCOMPARE(x.attention_by_image.size(), y.attention_by_image.size());
    for (size_t k = 0; k < x.attention_by_image.size(); ++k) {
      QCOMPARE(x.attention_by_image[k].image_index, y.attention_by_image[k].image_index);
      QCOMPARE(x.attention_by_image[k].maps.size(), y.attention_by_image[k].maps.size());
      for (size_t m = 0; m < x.attention_by_image[k].maps.size(); ++m)
        for (size_t i = 0; i < x.attention_by_image[k].maps[m].mean.size(); ++i)
          QVERIFY(std::fabs(x.attention_by_image[k].maps[m].mean[i] - y.attention_by_image[k].maps[m].mean[i]) <=
                  std::max(std::fabs(x.attention_by_image[k].maps[m].mean[i]) * 0.0005f, 3e-8f));
    }
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
      // Stored as float16: each weight within half a float16 step (relative 2^-11, or 2^-25
      // absolute below float16's normal range).
      auto close = [](const std::vector<float>& u, const std::vector<float>& v) {
        if (u.size() != v.size()) return false;
        for (size_t i = 0; i < u.size(); ++i)
          if (std::fabs(u[i] - v[i]) > std::max(std::fabs(u[i]) * 0.0005f, 3e-8f)) return false;
        return true;
      };
      QVERIFY(close(m.weights, n.weights));
      QVERIFY(close(m.mean, n.mean));
    }
    QCOMPARE(x.words.size(), y.words.size());
    for (size_t k = 0; k < x.words.size(); ++k) {
      QCOMPARE(x.words[k].text, y.words[k].text);
      QCOMPARE(x.words[k].first_step, y.words[k].first_step);
      QCOMPARE(x.words[k].last_step, y.words[k].last_step);
    }
  }
}

// A message "Compare <image> with <image> please": text around and between two images, and the
// answer's maps over each (image 0's differ from image 1's).
Conversation TwoImageSample() {
  Conversation c = Sample();
  c.turns.resize(1);
  ConversationTurn& t = c.turns[0];
  t.images.push_back(ImageInfo{"/home/u/Pictures/dog.png", std::string(64, 'b'), 320, 240, 112, 112, 4, 4,
                               glance::ImageMode::kDetail});
  t.parts = {glance::MessagePart::Text("Compare "), glance::MessagePart::Image(0),
             glance::MessagePart::Text(" with "), glance::MessagePart::Image(1),
             glance::MessagePart::Text(" please")};
  t.user_text = QStringLiteral("Compare  with  please");
  for (AttentionMap& m : t.attention) m.image_index = 1;  // the last image's
  std::vector<AttentionMap> first = t.attention;
  for (AttentionMap& m : first) {
    m.image_index = 0;
    for (float& w : m.mean) w = 0.5f - w / 4.0f;
    for (float& w : m.weights) w = 0.25f;
  }
  t.attention_by_image = {{0, first}, {1, t.attention}};
  return c;
}

void WriteDoc(const QString& path, const nlohmann::json& doc) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(QByteArray::fromStdString(doc.dump(1)));
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

  // Not AppDataLocation: with organisation and application both "Glance" that doubled the
  // folder (~/.local/share/Glance/Glance).
  void defaultFolderIsTheDataFolder() {
    QCOMPARE(ConversationStore::DefaultFolder(),
             QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QLatin1Char('/') +
                 QCoreApplication::applicationName() + QStringLiteral("/conversations"));
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
    // Negative control: the tolerance above must still catch a real change.
    ConversationStore store(Folder());
    Conversation c = Sample();
    QVERIFY(store.save(c));
    const Conversation loaded = *store.load(c.id);
    const float saved = loaded.turns[0].attention[1].weights[5];
    const float original = c.turns[0].attention[1].weights[5];
    QVERIFY(std::fabs(saved - original) <= std::fabs(original) * 0.0005f);
    QVERIFY(std::fabs(saved * 1.01f - original) > std::fabs(original) * 0.0005f);
  }

  // One turn of `tokens` maps over a grid_h x grid_w grid, 6 layers x 16 heads, with a word per
  // two tokens. Returns its size on disk.
  qint64 SaveTurn(ConversationStore& store, Conversation& c, int tokens, int grid_h, int grid_w) {
    c.turns.resize(1);
    ConversationTurn& t = c.turns[0];
    t.attention.clear();
    t.words.clear();
    for (int step = 0; step < tokens; ++step) {
      AttentionMap m;
      m.step = step;
      m.token_text = "w";
      m.grid_h = grid_h;
      m.grid_w = grid_w;
      m.layers = {3, 7, 11, 15, 19, 23};
      m.n_heads = 16;
      m.weights.resize(size_t{6} * 16 * grid_h * grid_w);
      for (size_t i = 0; i < m.weights.size(); ++i)
        m.weights[i] = static_cast<float>((i * 7919 + step) % 1000) / 1e5f;
      m.mean = m.Select(-1, -1);
      t.attention.push_back(std::move(m));
      if (step % 2 == 1) t.words.push_back({"word", step - 1, step});
    }
    if (!store.save(c)) return -1;
    return QFileInfo(Folder() + QLatin1Char('/') + c.id + QStringLiteral(".json")).size();
  }

  void aTurnCostsKilobytes() {
    ConversationStore store(Folder());
    // Fast mode (7x7 grid), 200 tokens: per-layer maps of every token fit.
    Conversation fast = Sample();
    const qint64 fastBytes = SaveTurn(store, fast, 200, 7, 7);
    QVERIFY2(fastBytes > 0 && fastBytes < 250'000, qPrintable(QString::number(fastBytes)));
    const Conversation fastLoaded = *store.load(fast.id);
    QCOMPARE(fastLoaded.turns[0].attention.size(), size_t{200});
    QCOMPARE(fastLoaded.turns[0].attention[5].layers.size(), size_t{6});  // layers kept
    // Detail mode (45x60 grid), 200 tokens — ~500 MB as JSON floats before: word maps over a
    // pooled grid, within the budget.
    Conversation detail = Sample();
    const qint64 detailBytes = SaveTurn(store, detail, 200, 45, 60);
    QVERIFY2(detailBytes > 0 && detailBytes < 450'000, qPrintable(QString::number(detailBytes)));
    const Conversation loaded = *store.load(detail.id);
    const ConversationTurn& turn = loaded.turns[0];
    QCOMPARE(turn.attention.size(), size_t{100});  // one per word
    const AttentionMap& m = turn.attention[17];
    QCOMPARE(m.step, 34);
    QCOMPARE(m.grid_h, 23);  // pooled 2x2
    QCOMPARE(m.grid_w, 30);
    // Cell (0,0) is the word's mean over the 2x2 block of the original grid.
    const ConversationTurn& orig = detail.turns[0];
    const std::vector<float> word = glance::ui::WordMap(orig.attention, orig.words[17], -1, -1);
    const float want = (word[0] + word[1] + word[60] + word[61]) / 4.0f;
    QVERIFY(std::fabs(m.mean[0] - want) <= want * 0.001f + 3e-8f);
    QCOMPARE(glance::ui::WordMap(turn.attention, turn.words[17], -1, -1), m.mean);  // found by word
  }

  void encodingKeepsHeadsWhenTheyFitAndLayersWhenNot() {
    std::vector<AttentionMap> maps(2);
    for (AttentionMap& m : maps) {
      m.grid_h = m.grid_w = 4;
      m.layers = {1, 2};
      m.n_heads = 2;
      for (int i = 0; i < 2 * 2 * 16; ++i) m.weights.push_back(static_cast<float>(i) / 64.0f);
      m.mean = m.Select(-1, -1);
    }
    const auto heads = glance::ui::DecodeAttention(glance::ui::EncodeAttention(maps, {}));
    QCOMPARE(heads[1].n_heads, 2);
    QCOMPARE(heads[1].Select(1, 1), maps[1].Select(1, 1));  // exact: these values fit float16
    // A budget too small for heads keeps per-layer means.
    const auto layers = glance::ui::DecodeAttention(glance::ui::EncodeAttention(maps, {}, 2 * 2 * 16 * 3));
    QCOMPARE(layers[0].n_heads, 1);
    QCOMPARE(layers[0].Select(1, -1), maps[0].Select(1, -1));
    const auto mean = glance::ui::DecodeAttention(glance::ui::EncodeAttention(maps, {}, 10));
    QVERIFY(mean[0].layers.empty());
    QCOMPARE(mean[0].Select(-1, -1), maps[0].mean);
  }

  void deltaNetMapsAreKeptInWhatTheBudgetLeaves() {
    // Two tokens over a 4x4 grid: softmax 2 layers x 2 heads, hidden attention 3 layers x 4
    // value heads (signed).
    std::vector<AttentionMap> maps(2);
    for (AttentionMap& m : maps) {
      m.grid_h = m.grid_w = 4;
      m.layers = {3, 7};
      m.n_heads = 2;
      for (int i = 0; i < 2 * 2 * 16; ++i) m.weights.push_back(static_cast<float>(i) / 64.0f);
      m.mean = m.Select(-1, -1);
      m.linear_layers = {0, 1, 2};
      m.linear_heads = 4;
      for (int i = 0; i < 3 * 4 * 16; ++i) m.linear_weights.push_back(static_cast<float>(i % 37) / 32.0f - 0.5f);
    }
    maps[1].step = 1;
    const size_t softmax_heads = 2 * 2 * (16 + 2 * 2 * 16), linear_heads = 2 * 2 * 3 * 4 * 16;
    // Room for everything: every head, exact here (the values fit float16).
    auto all = glance::ui::DecodeAttention(glance::ui::EncodeAttention(maps, {}));
    QCOMPARE(all[1].linear_layers, maps[1].linear_layers);
    QCOMPARE(all[1].linear_heads, 4);
    QVERIFY(all[1].linear_weights == maps[1].linear_weights);
    QVERIFY(all[1].weights == maps[1].weights);  // the softmax maps as before
    // Room for the softmax heads but not the hidden heads: each DeltaNet layer's head mean.
    auto layers = glance::ui::DecodeAttention(glance::ui::EncodeAttention(maps, {}, softmax_heads + linear_heads - 2));
    QCOMPARE(layers[0].n_heads, 2);
    QCOMPARE(layers[0].linear_heads, 1);
    QCOMPARE(layers[0].SelectLinear(2, 0), maps[0].SelectLinear(2, -1));
    // No room left: the softmax maps alone, no DeltaNet entries.
    auto none = glance::ui::DecodeAttention(glance::ui::EncodeAttention(maps, {}, softmax_heads));
    QVERIFY(none[0].linear_layers.empty() && none[0].linear_weights.empty());
    QCOMPARE(none[0].n_heads, 2);
    // A reader that predates the fields (they removed) reads the softmax maps unchanged.
    nlohmann::json doc = glance::ui::EncodeAttention(maps, {});
    doc.erase("linear_data");
    doc.erase("linear_maps");
    doc.erase("linear_detail");
    auto old = glance::ui::DecodeAttention(doc);
    QVERIFY(old[1].weights == maps[1].weights && old[1].linear_weights.empty());
    // A cut-off DeltaNet block is refused, not read short.
    nlohmann::json cut = glance::ui::EncodeAttention(maps, {});
    std::string data = cut["linear_data"].get<std::string>();
    cut["linear_data"] = QByteArray::fromBase64(QByteArray::fromStdString(data)).left(100).toBase64().toStdString();
    bool refused = false;
    try {
      glance::ui::DecodeAttention(cut);
    } catch (const glance::Error& e) {
      refused = std::string(e.what()).find("DeltaNet") != std::string::npos;
    }
    QVERIFY(refused);
    // Through a saved conversation too.
    ConversationStore store(Folder());
    Conversation c = Sample();
    c.turns[0].attention = maps;
    QVERIFY(store.save(c));
    QVERIFY(store.load(c.id)->turns[0].attention[1].linear_weights == maps[1].linear_weights);
  }

  void alternativesAreSavedAndOldFilesStillOpen() {
    // Regenerate twice: three answers, the newest shown.
    Conversation c = Sample();
    ConversationTurn& t = c.turns[0];
    const QString first = t.answer;
    glance::ui::AnswerAlternative second{QStringLiteral("A dog."), QStringLiteral("eos"), t.stats, QStringLiteral("m2"), {}, {}, {}};
    second.stats.generated_tokens = 3;
    glance::ui::AnswerAlternative third{QStringLiteral("A bird."), QStringLiteral("max_tokens"), t.stats, QStringLiteral("m3"), {}, {}, {}};
    glance::ui::AddAlternative(t, second);
    glance::ui::AddAlternative(t, third);
    QCOMPARE(t.alternatives.size(), size_t{3});
    QCOMPARE(t.chosen, 2);
    QCOMPARE(t.answer, QStringLiteral("A bird."));
    QVERIFY(t.attention.empty());  // the new answer's (none), not the first one's maps
    // Back to the first: its text, stats and maps.
    QVERIFY(glance::ui::ChooseAlternative(t, 0));
    QCOMPARE(t.answer, first);
    QCOMPARE(t.attention.size(), Sample().turns[0].attention.size());
    QVERIFY(!glance::ui::ChooseAlternative(t, 0));  // already shown
    QVERIFY(glance::ui::ChooseAlternative(t, 1));
    QCOMPARE(t.answer, QStringLiteral("A dog."));
    QCOMPARE(t.stats.generated_tokens, 3);
    QCOMPARE(t.model, QStringLiteral("m2"));
    // Saved and reopened: the three answers, the one shown, its stats.
    ConversationStore store(Folder());
    QVERIFY(store.save(c));
    const auto loaded = store.load(c.id);
    QVERIFY(loaded);
    const ConversationTurn& l = loaded->turns[0];
    QCOMPARE(l.alternatives.size(), size_t{3});
    QCOMPARE(l.chosen, 1);
    QCOMPARE(l.answer, QStringLiteral("A dog."));
    QCOMPARE(l.alternatives[0].answer, first);
    QCOMPARE(l.alternatives[2].answer, QStringLiteral("A bird."));
    QCOMPARE(l.alternatives[2].stop_reason, QStringLiteral("max_tokens"));
    QCOMPARE(l.alternatives[0].stats.generated_tokens, Sample().turns[0].stats.generated_tokens);
    // The Markdown export names the answer shown and lists the others.
    const QString md = glance::ui::ToMarkdown(*loaded);
    QVERIFY(md.contains(QStringLiteral("*Answer 2 of 3; the conversation continues from it.*")));
    QVERIFY(md.contains(QStringLiteral("### Other answer (1 of 3)\n\n") + first));
    QVERIFY(md.contains(QStringLiteral("### Other answer (3 of 3)\n\nA bird.")));
    QVERIFY(!md.contains(QStringLiteral("Other answer (2 of 3)")));
    QVERIFY(!glance::ui::ToMarkdown(Sample()).contains(QStringLiteral("Other answer")));
    // Still version 3: a reader that predates alternatives reads the shown answer.
    nlohmann::json doc = nlohmann::json::parse(glance::ui::ToJson(*loaded).dump());
    QCOMPARE(doc["version"].get<int>(), 3);
    QCOMPARE(doc["turns"][0]["answer"].get<std::string>(), std::string("A dog."));
    // A version 3 file without them opens with the one answer.
    doc["turns"][0].erase("alternatives");
    doc["turns"][0].erase("chosen");
    const Conversation plain = glance::ui::ConversationFromJson(doc);
    QVERIFY(plain.turns[0].alternatives.empty());
    QCOMPARE(plain.turns[0].answer, QStringLiteral("A dog."));
    // A chosen index that names no alternative is refused.
    nlohmann::json bad = nlohmann::json::parse(glance::ui::ToJson(*loaded).dump());
    bad["turns"][0]["chosen"] = 3;
    bool refused = false;
    try {
      glance::ui::ConversationFromJson(bad);
    } catch (const std::exception& e) {
      refused = QString::fromUtf8(e.what()).contains(QStringLiteral("chosen"));
    }
    QVERIFY(refused);
  }

  void versionOneFilesStillOpen() {
    // A conversation as Glance wrote it before: keys in alphabetical order, maps as floats.
    QVERIFY(QDir().mkpath(Folder()));
    const Conversation c = Sample();
    nlohmann::json turn = {{"user", "Old question"}, {"images", nlohmann::json::array()},
                           {"answer", "Old answer"}, {"stats", glance::ToJson(c.turns[0].stats)},
                           {"attention", nlohmann::json::array({glance::ToJson(c.turns[0].attention[0])})},
                           {"words", nlohmann::json::array()}};
    turn["stats"].erase("precision");
    const nlohmann::json doc = {{"format", "glance-conversation"}, {"version", 1}, {"id", "old-1"},
                                {"title", "Old chat"}, {"created", "2025-01-31T12:00:00.000Z"},
                                {"updated", "2025-02-01T12:00:00.000Z"}, {"system_prompt", ""},
                                {"turns", {turn}}};
    QFile f(Folder() + QStringLiteral("/old-1.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::fromStdString(doc.dump(1)));
    f.close();
    ConversationStore store(Folder());
    const auto entries = store.list();
    QCOMPARE(entries.size(), 1);
    QCOMPARE(entries[0].title, QStringLiteral("Old chat"));
    QCOMPARE(entries[0].updated, QDateTime::fromString(QStringLiteral("2025-02-01T12:00:00.000Z"), Qt::ISODateWithMs));
    const auto loaded = store.load(QStringLiteral("old-1"));
    QVERIFY(loaded);
    QCOMPARE(loaded->turns[0].answer, QStringLiteral("Old answer"));
    QVERIFY(loaded->turns[0].attention[0].weights == c.turns[0].attention[0].weights);
    QCOMPARE(loaded->turns[0].stats.precision, glance::Precision::kF32);
  }

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

  void messageOrderAndEachImagesMapsAreKept() {
    ConversationStore store(Folder());
    Conversation c = TwoImageSample();
    QString error;
    QVERIFY2(store.save(c, &error), qPrintable(error));
    const auto loaded = store.load(c.id, &error);
    QVERIFY2(loaded, qPrintable(error));
    ExpectSame(c, *loaded);
    QVERIFY(loaded->turns[0].parts == c.turns[0].parts);  // the order itself, not the legacy one
    const float want = 0.5f - (3.0f / 49.0f) / 4.0f;  // image 0's own maps, not the last image's
    QVERIFY(std::fabs(loaded->turns[0].attention_by_image[0].maps[2].mean[3] - want) < want * 0.001f);
    // What Session::Continue is given for it: the same order.
    glance::SavedTurn saved;
    saved.parts = loaded->turns[0].parts;
    QCOMPARE(saved.OrderedParts()[1], glance::MessagePart::Image(0));
    // Markdown keeps the order: the text before the first image comes first.
    const QString md = glance::ui::ToMarkdown(c);
    const qsizetype compare = md.indexOf(QStringLiteral("Compare")), cat = md.indexOf(QStringLiteral("cat é.png"));
    const qsizetype with = md.indexOf(QStringLiteral(" with")), dog = md.indexOf(QStringLiteral("dog.png"));
    const qsizetype please = md.indexOf(QStringLiteral(" please"));
    QVERIFY2(compare >= 0 && compare < cat && cat < with && with < dog && dog < please, qPrintable(md));
  }

  void versionTwoFilesOpenAsImagesThenText() {
    ConversationStore store(Folder());
    Conversation c = TwoImageSample();
    QVERIFY(store.save(c));
    const QString path = Folder() + QLatin1Char('/') + c.id + QStringLiteral(".json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    nlohmann::json doc = nlohmann::json::parse(f.readAll().toStdString());
    f.close();
    doc["version"] = 2;
    doc["turns"][0].erase("parts");
    doc["turns"][0].erase("image_attention");
    WriteDoc(path, doc);
    const auto loaded = store.load(c.id);
    QVERIFY(loaded);
    QVERIFY(loaded->turns[0].parts.empty());
    QVERIFY(loaded->turns[0].attention_by_image.empty());
    const std::vector<glance::MessagePart> legacy = {glance::MessagePart::Image(0), glance::MessagePart::Image(1),
                                                     glance::MessagePart::Text("Compare  with  please")};
    QVERIFY(glance::ui::OrderedParts(loaded->turns[0]) == legacy);
    QCOMPARE(loaded->turns[0].attention.size(), size_t{3});  // the last image's maps, as before
  }

  void badPartsAreRefusedNamingTheField() {
    ConversationStore store(Folder());
    Conversation c = TwoImageSample();
    QVERIFY(store.save(c));
    const QString path = Folder() + QLatin1Char('/') + c.id + QStringLiteral(".json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const nlohmann::json good = nlohmann::json::parse(f.readAll().toStdString());
    f.close();
    const std::vector<std::pair<nlohmann::json, QString>> cases = {
        {nlohmann::json::array({{{"image", 0}}, {{"image", 2}}}), QStringLiteral("names image 2")},
        {nlohmann::json::array({{{"image", 0}}, {{"image", 0}}, {{"image", 1}}}), QStringLiteral("names image 0")},
        {nlohmann::json::array({{{"image", 1}}}), QStringLiteral("leaves out image 0")},
        {nlohmann::json::array({{{"image", 0}}, {{"image", 1}}, {{"video", 1}}}), QStringLiteral("neither")},
        {nlohmann::json("text"), QStringLiteral("not an array")}};
    for (const auto& [parts, why] : cases) {
      nlohmann::json doc = good;
      doc["turns"][0]["parts"] = parts;
      WriteDoc(path, doc);
      QString error;
      QVERIFY(!store.load(c.id, &error));
      QVERIFY2(error.contains(QStringLiteral("'parts'")) && error.contains(why), qPrintable(error));
    }
    WriteDoc(path, good);  // control: the untouched document loads
    QVERIFY(store.load(c.id));
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

QTEST_GUILESS_MAIN(ConversationStoreTest)
#include "test_conversation_store.moc"
