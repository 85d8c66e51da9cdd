#include "ui/attention_codec.h"

#include <QByteArray>
#include <algorithm>
#include <QFloat16>
#include <QtEndian>
#include <cstring>
#include <string>
#include <utility>

#include "core/engine/attention_aggregate.h"
#include "core/util/error.h"

namespace glance::ui {
namespace {

using nlohmann::json;

enum class Detail { kHeads, kLayers, kMean };

const char* DetailName(Detail d) {
  return d == Detail::kHeads ? "heads" : d == Detail::kLayers ? "layers" : "mean";
}

size_t Cells(const AttentionMap& m) {
  return static_cast<size_t>(m.grid_h) * static_cast<size_t>(m.grid_w);
}

// Floats per map at a detail level (the mean is always kept).
size_t FloatsPerMap(const AttentionMap& m, Detail d) {
  const size_t cells = Cells(m);
  const size_t layers = m.layers.size();
  const size_t heads = static_cast<size_t>(std::max(m.n_heads, 0));
  if (d == Detail::kHeads) return cells * (1 + layers * heads);
  if (d == Detail::kLayers) return cells * (1 + layers);
  return cells;
}

void AppendHalf(QByteArray& out, float v) {
  const qfloat16 h(v);
  quint16 bits = 0;
  std::memcpy(&bits, &h, sizeof bits);
  bits = qToLittleEndian(bits);
  out.append(reinterpret_cast<const char*>(&bits), sizeof bits);
}

float ReadHalf(const char* p) {
  quint16 bits = 0;
  std::memcpy(&bits, p, sizeof bits);
  bits = qFromLittleEndian(bits);
  qfloat16 h;
  std::memcpy(static_cast<void*>(&h), &bits, sizeof bits);  // qfloat16 is trivially copyable: its bits are the half
  return static_cast<float>(h);
}

// The float16 values of one base64 field, read in order; a field shorter or longer than its
// entries need is refused, naming `what`.
class HalfReader {
 public:
  HalfReader(const json& j, const char* field, std::string what)
      : data_(QByteArray::fromBase64(QByteArray::fromStdString(j.at(field).get<std::string>()))),
        what_(std::move(what)) {}
  void Take(size_t n, std::vector<float>& out) {
    if (at_ + 2 * n > static_cast<size_t>(data_.size()))
      throw Error("attention: " + what_ + " ends before its entries do");
    out.resize(n);
    for (size_t k = 0; k < n; ++k) out[k] = ReadHalf(data_.constData() + at_ + 2 * k);
    at_ += 2 * n;
  }
  void ExpectEnd() const {
    if (at_ != static_cast<size_t>(data_.size())) throw Error("attention: " + what_ + " goes on past its entries");
  }

 private:
  QByteArray data_;
  std::string what_;
  size_t at_ = 0;  // bytes
};

// The mean of each word's token maps (those over the same grid as its first), one map per
// word whose step is the word's first step, so WordMap finds exactly it.
std::vector<AttentionMap> WordMeans(const std::vector<AttentionMap>& maps,
                                    const std::vector<AttentionWord>& words) {
  std::vector<AttentionMap> out;
  for (const AttentionWord& w : words) {
    const AttentionMap* first = nullptr;
    std::vector<float> sum;
    int count = 0;
    for (const AttentionMap& m : maps) {
      if (m.step < w.first_step || m.step > w.last_step) continue;
      if (first == nullptr) {
        first = &m;
        sum.assign(Cells(m), 0.0f);
      }
      if (Cells(m) != sum.size()) continue;
      const std::vector<float> mean = m.Select(-1, -1);
      for (size_t i = 0; i < sum.size(); ++i) sum[i] += mean[i];
      ++count;
    }
    if (first == nullptr) continue;
    for (float& v : sum) v /= static_cast<float>(count);
    AttentionMap word;
    word.step = w.first_step;
    word.token_id = first->token_id;
    word.token_text = w.text;
    word.image_index = first->image_index;
    word.grid_h = first->grid_h;
    word.grid_w = first->grid_w;
    word.mean = std::move(sum);
    out.push_back(std::move(word));
  }
  return out;
}

// Averages p×p blocks of cells (edge blocks over the cells they have).
AttentionMap Pooled(const AttentionMap& m, int p) {
  AttentionMap out = m;
  out.grid_h = (m.grid_h + p - 1) / p;
  out.grid_w = (m.grid_w + p - 1) / p;
  out.mean.assign(Cells(out), 0.0f);
  std::vector<int> counts(out.mean.size(), 0);
  for (int y = 0; y < m.grid_h; ++y)
    for (int x = 0; x < m.grid_w; ++x) {
      const size_t to = static_cast<size_t>(y / p) * out.grid_w + static_cast<size_t>(x / p);
      out.mean[to] += m.mean[static_cast<size_t>(y) * m.grid_w + x];
      ++counts[to];
    }
  for (size_t i = 0; i < out.mean.size(); ++i) out.mean[i] /= static_cast<float>(std::max(counts[i], 1));
  return out;
}

// The DeltaNet layers' hidden attention (AttentionMap::linear_*), floats per map: every value
// head (heads) or each layer's mean over heads (layers).
size_t LinearFloats(const AttentionMap& m, Detail d) {
  const size_t per_layer = Cells(m) * (d == Detail::kHeads ? static_cast<size_t>(std::max(m.linear_heads, 0)) : 1);
  return m.linear_weights.empty() ? 0 : m.linear_layers.size() * per_layer;
}


// The layer × head shares saved with a turn (AttentionMap::shares / linear_shares): one entry
// per stored step, the mean of the maps' shares over [first, last] (core LayerHeadShares).
struct ShareEntry {
  int step = 0;
  std::vector<HeadShare> cells;
};

enum class ShareForm { kTokens, kWords, kWordsSoftmax, kTokensSoftmax };

const char* ShareFormName(ShareForm f) {
  return f == ShareForm::kTokens ? "tokens" : f == ShareForm::kWords ? "words" : f == ShareForm::kWordsSoftmax ? "words-softmax" : "tokens-softmax";
}

std::vector<ShareEntry> ShareEntries(const std::vector<AttentionMap>& maps, const std::vector<AttentionWord>& words,
                                     ShareForm form) {
  std::vector<ShareEntry> out;
  auto add = [&](int step, int first, int last) {
    std::vector<HeadShare> cells = LayerHeadShares(maps, first, last);
    if (form == ShareForm::kWordsSoftmax || form == ShareForm::kTokensSoftmax)
      cells.erase(std::remove_if(cells.begin(), cells.end(), [](const HeadShare& c) { return c.kind != MapKind::kSoftmax; }),
                  cells.end());
    if (!cells.empty()) out.push_back({step, std::move(cells)});
  };
  if (form == ShareForm::kTokens || form == ShareForm::kTokensSoftmax) {
    for (const AttentionMap& m : maps)
      if (!m.shares.empty() || !m.linear_shares.empty()) add(m.step, m.step, m.step);
  } else {
    for (const AttentionWord& w : words) add(w.first_step, w.first_step, w.last_step);
  }
  return out;
}

size_t ShareBytes(const std::vector<ShareEntry>& entries) {
  size_t bytes = 0;
  for (const ShareEntry& e : entries) bytes += 2 * 3 * e.cells.size();
  return bytes;
}

// One kind's cells of an entry as (layer indices in order, heads per layer); LayerHeadShares
// lists each layer's heads together, in order.
std::pair<std::vector<int>, int> ShareLayout(const std::vector<HeadShare>& cells, MapKind kind) {
  std::vector<int> layers;
  size_t count = 0;
  for (const HeadShare& c : cells) {
    if (c.kind != kind) continue;
    if (layers.empty() || layers.back() != c.layer) layers.push_back(c.layer);
    ++count;
  }
  return {layers, layers.empty() ? 0 : static_cast<int>(count / layers.size())};
}

// Adds "share_form", "share_maps" and "share_data" to `out` when `maps` have shares: every
// token's when they fit in budget_bytes, else each word's mean, else the words' softmax layers
// alone, else the tokens' softmax layers alone (an answer without words), else nothing.
void EncodeShares(const std::vector<AttentionMap>& maps, const std::vector<AttentionWord>& words, bool per_word,
                  size_t budget_bytes, json& out) {
  const bool any = std::any_of(maps.begin(), maps.end(),
                               [](const AttentionMap& m) { return !m.shares.empty() || !m.linear_shares.empty(); });
  if (!any) return;
  std::vector<ShareEntry> entries;
  ShareForm form = ShareForm::kTokens;
  for (const ShareForm f : {ShareForm::kTokens, ShareForm::kWords, ShareForm::kWordsSoftmax, ShareForm::kTokensSoftmax}) {
    const bool tokens = f == ShareForm::kTokens || f == ShareForm::kTokensSoftmax;
    if ((tokens && per_word) || (!tokens && words.empty())) continue;
    entries = ShareEntries(maps, words, f);
    form = f;
    if (ShareBytes(entries) <= budget_bytes) break;
    entries.clear();
  }
  if (entries.empty()) return;
  QByteArray data;
  json items = json::array();
  for (const ShareEntry& e : entries) {
    const auto [layers, heads] = ShareLayout(e.cells, MapKind::kSoftmax);
    const auto [linear_layers, linear_heads] = ShareLayout(e.cells, MapKind::kHidden);
    for (const MapKind kind : {MapKind::kSoftmax, MapKind::kHidden})
      for (const HeadShare& c : e.cells)
        if (c.kind == kind)
          for (float v : {c.image, c.text, c.sink}) AppendHalf(data, v);
    items.push_back({{"step", e.step}, {"layers", layers}, {"heads", heads}, {"linear_layers", linear_layers},
                     {"linear_heads", linear_heads}});
  }
  out["share_form"] = ShareFormName(form);
  out["share_maps"] = std::move(items);
  out["share_data"] = data.toBase64().toStdString();
}

// Reads what EncodeShares wrote onto the maps of the same steps.
void DecodeShares(const json& j, std::vector<AttentionMap>& maps) {
  HalfReader data(j, "share_data", "the layer x head shares");
  const json& items = j.at("share_maps");
  if (!items.is_array()) throw Error("attention: 'share_maps' is not a list");
  for (const json& item : items) {
    const int step = item.at("step").get<int>();
    const auto map = std::find_if(maps.begin(), maps.end(), [&](const AttentionMap& m) { return m.step == step; });
    if (map == maps.end()) throw Error("attention: layer x head shares for step " + std::to_string(step) + ", which has no map");
    std::vector<int> layers = item.at("layers").get<std::vector<int>>();
    std::vector<int> linear_layers = item.at("linear_layers").get<std::vector<int>>();
    const int heads = item.at("heads").get<int>(), linear_heads = item.at("linear_heads").get<int>();
    if (heads < 0 || linear_heads < 0) throw Error("attention: negative head count in the layer x head shares");
    data.Take(3 * layers.size() * static_cast<size_t>(heads), map->shares);
    data.Take(3 * linear_layers.size() * static_cast<size_t>(linear_heads), map->linear_shares);
    map->share_layers = std::move(layers);
    map->share_heads = heads;
    map->linear_share_layers = std::move(linear_layers);
    map->linear_share_heads = linear_heads;
  }
  data.ExpectEnd();
}

}  // namespace

json EncodeAttention(const std::vector<AttentionMap>& maps, const std::vector<AttentionWord>& words,
                     size_t budget_bytes) {
  auto bytes_at = [](const std::vector<AttentionMap>& ms, Detail d) {
    size_t bytes = 0;
    for (const AttentionMap& m : ms) bytes += 2 * FloatsPerMap(m, d);
    return bytes;
  };
  std::vector<AttentionMap> stored;  // only for the "words" forms
  const std::vector<AttentionMap>* source = &maps;
  Detail detail = Detail::kMean;
  int pool = 1;
  bool per_word = false;
  for (Detail d : {Detail::kHeads, Detail::kLayers, Detail::kMean}) {
    detail = d;
    if (bytes_at(maps, d) <= budget_bytes) break;
  }
  if (bytes_at(maps, detail) > budget_bytes && !words.empty()) {
    per_word = true;
    stored = WordMeans(maps, words);
    const std::vector<AttentionMap> full = stored;
    while (bytes_at(stored, Detail::kMean) > budget_bytes) {
      ++pool;
      stored.clear();
      for (const AttentionMap& m : full) stored.push_back(Pooled(m, pool));
      if (pool > 64) break;  // a 1x1 grid: nothing smaller to try
    }
    source = &stored;
  }
  QByteArray data;
  json items = json::array();
  for (const AttentionMap& m : *source) {
    const size_t cells = Cells(m);
    const std::vector<float> mean = m.Select(-1, -1);
    for (size_t i = 0; i < cells; ++i) AppendHalf(data, i < mean.size() ? mean[i] : 0.0f);
    const int n_layers = static_cast<int>(m.layers.size());
    if (detail == Detail::kHeads && !per_word) {
      for (size_t i = 0; i < cells * n_layers * static_cast<size_t>(m.n_heads); ++i)
        AppendHalf(data, i < m.weights.size() ? m.weights[i] : 0.0f);
    } else if (detail == Detail::kLayers && !per_word) {
      for (int l = 0; l < n_layers; ++l)
        for (float v : m.Select(l, -1)) AppendHalf(data, v);
    }
    items.push_back({{"step", m.step}, {"token_id", m.token_id}, {"token_text", m.token_text},
                     {"image_index", m.image_index}, {"grid_h", m.grid_h}, {"grid_w", m.grid_w},
                     {"layers", m.layers}, {"n_heads", m.n_heads}});
  }
  json out = {{"encoding", "f16-base64"},
              {"detail", per_word ? "words" : DetailName(detail)},
              {"pool", pool},
              {"maps", std::move(items)},
              {"data", data.toBase64().toStdString()}};
  // The layer × head shares, in a budget of their own (half the maps'): small next to the maps
  // (3 numbers a layer and head, not a grid's), but kept whatever detail the maps fit at.
  EncodeShares(maps, words, per_word, budget_bytes / 2, out);
  // The DeltaNet layers' hidden attention, in what the budget leaves: every head, else each
  // layer's head mean, else none. Apart from "data" (its own field), so readers that predate it
  // read the softmax maps as before.
  if (per_word) return out;
  const size_t used = static_cast<size_t>(data.size());
  auto linear_bytes = [&](Detail d) {
    size_t bytes = 0;
    for (const AttentionMap& m : maps) bytes += 2 * LinearFloats(m, d);
    return bytes;
  };
  if (linear_bytes(Detail::kHeads) == 0) return out;
  Detail linear = Detail::kHeads;
  if (used + linear_bytes(Detail::kHeads) > budget_bytes) linear = Detail::kLayers;
  if (linear == Detail::kLayers && used + linear_bytes(Detail::kLayers) > budget_bytes) return out;
  QByteArray linear_data;
  json linear_maps = json::array();
  for (const AttentionMap& m : maps) {
    const size_t cells = Cells(m);
    const bool has = LinearFloats(m, Detail::kHeads) > 0 &&
                     m.linear_weights.size() == m.linear_layers.size() * static_cast<size_t>(m.linear_heads) * cells;
    linear_maps.push_back({{"linear_layers", has ? m.linear_layers : std::vector<int>{}},
                           {"linear_heads", has ? (linear == Detail::kHeads ? m.linear_heads : 1) : 0}});
    if (!has) continue;
    if (linear == Detail::kHeads) {
      for (float v : m.linear_weights) AppendHalf(linear_data, v);
    } else {
      for (size_t l = 0; l < m.linear_layers.size(); ++l)
        for (float v : m.SelectLinear(static_cast<int>(l), -1)) AppendHalf(linear_data, v);
    }
  }
  out["linear_detail"] = DetailName(linear);
  out["linear_maps"] = std::move(linear_maps);
  out["linear_data"] = linear_data.toBase64().toStdString();
  return out;
}

std::vector<AttentionMap> DecodeAttention(const json& j) {
  try {
    if (j.at("encoding").get<std::string>() != "f16-base64")
      throw Error("attention: unknown encoding '" + j.at("encoding").get<std::string>() + "'");
    const std::string name = j.at("detail").get<std::string>();
    const Detail detail = name == "heads" ? Detail::kHeads
                          : name == "layers" ? Detail::kLayers
                          : name == "mean" || name == "words" ? Detail::kMean
                                           : throw Error("attention: unknown detail '" + name + "'");
    HalfReader data(j, "data", "the data");
    std::vector<AttentionMap> maps;
    for (const json& item : j.at("maps")) {
      AttentionMap m;
      m.step = item.at("step").get<int>();
      m.token_id = item.at("token_id").get<int32_t>();
      m.token_text = item.at("token_text").get<std::string>();
      m.image_index = item.at("image_index").get<int>();
      m.grid_h = item.at("grid_h").get<int>();
      m.grid_w = item.at("grid_w").get<int>();
      m.layers = item.at("layers").get<std::vector<int>>();
      m.n_heads = item.at("n_heads").get<int>();
      if (m.grid_h < 0 || m.grid_w < 0 || m.n_heads < 0)
        throw Error("attention: negative grid or head count");
      const size_t cells = Cells(m);
      data.Take(cells, m.mean);
      if (detail == Detail::kHeads) {
        data.Take(cells * m.layers.size() * static_cast<size_t>(m.n_heads), m.weights);
      } else if (detail == Detail::kLayers) {
        data.Take(cells * m.layers.size(), m.weights);
        m.n_heads = m.layers.empty() ? 0 : 1;
      } else {
        m.layers.clear();
        m.n_heads = 0;
      }
      maps.push_back(std::move(m));
    }
    data.ExpectEnd();
    if (j.contains("linear_data")) {  // the DeltaNet layers' hidden attention (heads or layer means)
      HalfReader linear(j, "linear_data", "the DeltaNet data");
      const json& items = j.at("linear_maps");
      if (!items.is_array() || items.size() != maps.size())
        throw Error("attention: 'linear_maps' does not have one entry per map");
      for (size_t i = 0; i < maps.size(); ++i) {
        AttentionMap& m = maps[i];
        m.linear_layers = items[i].at("linear_layers").get<std::vector<int>>();
        m.linear_heads = items[i].at("linear_heads").get<int>();
        if (m.linear_heads < 0) throw Error("attention: negative DeltaNet head count");
        const size_t n = m.linear_layers.size() * static_cast<size_t>(m.linear_heads) * Cells(m);
        linear.Take(n, m.linear_weights);
        if (n == 0) {
          m.linear_layers.clear();
          m.linear_heads = 0;
        }
      }
      linear.ExpectEnd();
    }
    if (j.contains("share_data")) DecodeShares(j, maps);
    return maps;
  } catch (const json::exception& e) {
    throw Error(std::string("attention: missing or mistyped field: ") + e.what());
  }
}

}  // namespace glance::ui
