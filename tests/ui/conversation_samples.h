// Conversations for the ConversationStore tests (test_conversation_store, test_conversation_files):
// a sample with every field set, a two-image one, a field-by-field deep compare, a raw writer.
#pragma once

#include <QFile>
#include <QtTest>

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/engine/events_json.h"
#include "ui/attention_data.h"
#include "ui/conversation_store.h"

namespace conversation_samples {

using glance::AttentionMap;
using glance::ImageInfo;
using glance::ui::Conversation;
using glance::ui::ConversationStore;
using glance::ui::ConversationTurn;

inline Conversation Sample() {
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
inline void ExpectSame(const Conversation& a, const Conversation& b) {
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
        for (size_t c = 0; c < x.attention_by_image[k].maps[m].mean.size(); ++c)
          QVERIFY(std::fabs(x.attention_by_image[k].maps[m].mean[c] - y.attention_by_image[k].maps[m].mean[c]) <=
                  std::max(std::fabs(x.attention_by_image[k].maps[m].mean[c]) * 0.0005f, 3e-8f));
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
        for (size_t c = 0; c < u.size(); ++c)
          if (std::fabs(u[c] - v[c]) > std::max(std::fabs(u[c]) * 0.0005f, 3e-8f)) return false;
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
inline Conversation TwoImageSample() {
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

inline void WriteDoc(const QString& path, const nlohmann::json& doc) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(QByteArray::fromStdString(doc.dump(1)));
}

}  // namespace conversation_samples
