#include "ui/attention_data.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

namespace glance::ui {
namespace {

QJsonArray FloatArray(const std::vector<float>& values) {
  QJsonArray out;
  for (float v : values) out.append(static_cast<double>(v));
  return out;
}

}  // namespace

std::vector<float> WordMap(const std::vector<AttentionMap>& maps, const AttentionWord& word,
                           int layer_slot, int head) {
  std::vector<float> sum;
  int count = 0;
  for (const AttentionMap& m : maps) {
    if (m.step < word.first_step || m.step > word.last_step) continue;
    const std::vector<float> one = m.Select(layer_slot, head);
    if (sum.empty()) sum.assign(one.size(), 0.0f);
    if (one.size() != sum.size()) continue;  // a different image's grid: not comparable
    for (size_t i = 0; i < one.size(); ++i) sum[i] += one[i];
    ++count;
  }
  if (count > 1)
    for (float& v : sum) v /= static_cast<float>(count);
  return sum;
}

std::vector<AttentionWord> TokensAsWords(const std::vector<AttentionMap>& maps) {
  std::vector<AttentionWord> words;
  words.reserve(maps.size());
  for (const AttentionMap& m : maps) words.push_back({m.token_text, m.step, m.step});
  return words;
}

QByteArray AttentionToJson(const std::vector<AttentionMap>& maps,
                           const std::vector<AttentionWord>& words, const QString& model,
                           const QString& precision) {
  QJsonObject root;
  if (!model.isEmpty()) root.insert(QStringLiteral("model"), model);
  if (!precision.isEmpty()) root.insert(QStringLiteral("precision"), precision);
  if (!maps.empty()) {
    root.insert(QStringLiteral("grid_h"), maps.front().grid_h);
    root.insert(QStringLiteral("grid_w"), maps.front().grid_w);
    QJsonArray layers;
    for (int l : maps.front().layers) layers.append(l);
    root.insert(QStringLiteral("layers"), layers);
    root.insert(QStringLiteral("n_heads"), maps.front().n_heads);
  }
  QJsonArray tokens;
  for (const AttentionMap& m : maps) {
    QJsonObject t;
    t.insert(QStringLiteral("step"), m.step);
    t.insert(QStringLiteral("token_id"), static_cast<qint64>(m.token_id));
    t.insert(QStringLiteral("text"), QString::fromStdString(m.token_text));
    t.insert(QStringLiteral("image_index"), m.image_index);
    t.insert(QStringLiteral("grid_h"), m.grid_h);
    t.insert(QStringLiteral("grid_w"), m.grid_w);
    t.insert(QStringLiteral("mean"), FloatArray(m.Select(-1, -1)));
    t.insert(QStringLiteral("weights"), FloatArray(m.weights));
    tokens.append(t);
  }
  root.insert(QStringLiteral("tokens"), tokens);
  QJsonArray ws;
  for (const AttentionWord& w : words) {
    QJsonObject o;
    o.insert(QStringLiteral("text"), QString::fromStdString(w.text));
    o.insert(QStringLiteral("first_step"), w.first_step);
    o.insert(QStringLiteral("last_step"), w.last_step);
    ws.append(o);
  }
  root.insert(QStringLiteral("words"), ws);
  return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

}  // namespace glance::ui
