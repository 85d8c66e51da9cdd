// ConversationStore's format: save/reload is lossless (deep compare, field by field), attention
// kept within its budget, alternatives and message order kept, older versions still open, bad
// parts refused naming the field. Files, listing and exports: test_conversation_files.cpp.

#include <QDir>
#include <QFile>
#include <QCoreApplication>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>

#include "core/engine/attention_aggregate.h"
#include "core/engine/events_json.h"
#include "core/util/error.h"
#include "ui/attention_codec.h"
#include "ui/attention_data.h"
#include "ui/conversation_store.h"
#include "tests/ui/conversation_samples.h"

using namespace conversation_samples;

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

  void layerHeadSharesAreSavedPerTokenElsePerWord() {
    // Four tokens in two words over an 8x8 grid, with their layer x head shares: softmax layers
    // {3, 7} x 2 heads, DeltaNet layers {0, 1, 2} x 4 heads (signed), 48 numbers = 96 bytes a
    // token as float16. The maps take 640 bytes each with every head, 384 as layer means.
    std::vector<AttentionMap> maps(4);
    for (int k = 0; k < 4; ++k) {
      AttentionMap& m = maps[static_cast<size_t>(k)];
      m.step = k;
      m.grid_h = m.grid_w = 8;
      m.layers = {3, 7};
      m.n_heads = 2;
      for (int i = 0; i < 2 * 2 * 64; ++i) m.weights.push_back(static_cast<float>((i + k) % 16) / 64.0f);
      m.mean = m.Select(-1, -1);
      m.linear_layers = {0, 1, 2};
      m.linear_heads = 4;
      for (int i = 0; i < 2 * 2 * 3; ++i) m.shares.push_back(static_cast<float>((i * 5 + k) % 17) / 32.0f);
      for (int i = 0; i < 3 * 4 * 3; ++i) m.linear_shares.push_back(static_cast<float>((i * 3 + k) % 23) / 16.0f - 0.5f);
    }
    const std::vector<glance::AttentionWord> words = {{"a", 0, 1}, {"b", 2, 3}};
    auto same = [](const std::vector<glance::HeadShare>& a, const std::vector<glance::HeadShare>& b, float tol) {
      if (a.size() != b.size() || a.empty()) return false;
      for (size_t i = 0; i < a.size(); ++i)
        if (a[i].kind != b[i].kind || a[i].layer != b[i].layer || a[i].head != b[i].head ||
            std::fabs(a[i].image - b[i].image) > tol || std::fabs(a[i].text - b[i].text) > tol ||
            std::fabs(a[i].sink - b[i].sink) > tol)
          return false;
      return true;
    };
    using glance::LayerHeadShares;
    // Room for every token's: each step's chart as captured (exact: the values fit float16),
    // though the maps' weights were saved as layer means.
    nlohmann::json doc = glance::ui::EncodeAttention(maps, words, 2000);
    QCOMPARE(doc["share_form"].get<std::string>(), std::string("tokens"));
    QCOMPARE(doc["detail"].get<std::string>(), std::string("layers"));
    auto tokens = glance::ui::DecodeAttention(doc);
    for (int k = 0; k < 4; ++k) QVERIFY(same(LayerHeadShares(tokens, k, k), LayerHeadShares(maps, k, k), 0.0f));
    QCOMPARE(LayerHeadShares(tokens, 0, 3).size(), size_t{2 * 2 + 3 * 4});
    // Room for two entries, not four (the maps kept per word too): each word's mean, which is
    // what the chart shows for the word.
    doc = glance::ui::EncodeAttention(maps, words, 2 * 200);
    QCOMPARE(doc["detail"].get<std::string>(), std::string("words"));
    QCOMPARE(doc["share_form"].get<std::string>(), std::string("words"));
    auto perWord = glance::ui::DecodeAttention(doc);
    QVERIFY(same(LayerHeadShares(perWord, 0, 1), LayerHeadShares(maps, 0, 1), 1e-3f));
    QVERIFY(same(LayerHeadShares(perWord, 2, 3), LayerHeadShares(maps, 2, 3), 1e-3f));
    QVERIFY(!same(LayerHeadShares(perWord, 2, 3), LayerHeadShares(maps, 0, 1), 1e-3f));  // control
    // Less room: the words' softmax layers alone.
    doc = glance::ui::EncodeAttention(maps, words, 2 * 60);
    QCOMPARE(doc["share_form"].get<std::string>(), std::string("words-softmax"));
    auto softmax = LayerHeadShares(glance::ui::DecodeAttention(doc), 0, 1);
    QCOMPARE(softmax.size(), size_t{4});
    QVERIFY(std::all_of(softmax.begin(), softmax.end(), [](const glance::HeadShare& c) { return c.kind == glance::MapKind::kSoftmax; }));
    // An answer without words (only spaces): the tokens' softmax layers when all of them do not fit.
    doc = glance::ui::EncodeAttention(maps, {}, 2 * 100);
    QCOMPARE(doc["share_form"].get<std::string>(), std::string("tokens-softmax"));
    auto firstFour = LayerHeadShares(maps, 3, 3);
    firstFour.resize(4);  // the softmax layers come first
    QVERIFY(same(LayerHeadShares(glance::ui::DecodeAttention(doc), 3, 3), firstFour, 0.0f));
    // None fits: none saved, the maps read as before.
    doc = glance::ui::EncodeAttention(maps, words, 2 * 40);
    QVERIFY(!doc.contains("share_data"));
    QVERIFY(LayerHeadShares(glance::ui::DecodeAttention(doc), 0, 3).empty());
    // Maps captured without shares write no share fields.
    std::vector<AttentionMap> bare = maps;
    for (AttentionMap& m : bare) m.shares.clear(), m.linear_shares.clear();
    QVERIFY(!glance::ui::EncodeAttention(bare, words).contains("share_form"));
    // Cut-off shares, or shares for a step without a map, are refused, not read short.
    for (int bad = 0; bad < 2; ++bad) {
      nlohmann::json broken = glance::ui::EncodeAttention(maps, words);
      if (bad == 0) {
        const std::string data = broken["share_data"].get<std::string>();
        broken["share_data"] = QByteArray::fromBase64(QByteArray::fromStdString(data)).left(50).toBase64().toStdString();
      } else {
        broken["share_maps"][1]["step"] = 9;
      }
      bool refused = false;
      try {
        glance::ui::DecodeAttention(broken);
      } catch (const glance::Error& e) {
        refused = std::string(e.what()).find("shares") != std::string::npos;
      }
      QVERIFY2(refused, bad == 0 ? "cut" : "step");
    }
    // Through a saved conversation: the reopened answer's chart is the captured one.
    ConversationStore store(Folder());
    Conversation c = Sample();
    c.turns[0].attention = maps;
    c.turns[0].words = words;
    QVERIFY(store.save(c));
    const auto reopened = store.load(c.id)->turns[0].attention;
    QVERIFY(same(LayerHeadShares(reopened, 2, 2), LayerHeadShares(maps, 2, 2), 0.0f));
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
};

QTEST_GUILESS_MAIN(ConversationStoreTest)
#include "test_conversation_store.moc"
