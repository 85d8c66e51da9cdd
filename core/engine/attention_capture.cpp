#include "core/engine/attention_capture.h"

#include <algorithm>
#include <cassert>
#include <cctype>

#include "core/engine/session.h"

namespace glance {

AttentionCapture::AttentionCapture(int image_index, int grid_h, int grid_w,
                                   std::vector<int64_t> image_positions)
    : image_index_(image_index), grid_h_(grid_h), grid_w_(grid_w), positions_(std::move(image_positions)) {
  assert(static_cast<int64_t>(positions_.size()) == int64_t{grid_h} * grid_w);
}

void AttentionCapture::BeginToken(int step) {
  current_ = AttentionMap{};
  current_.step = step;
  current_.image_index = image_index_;
  current_.grid_h = grid_h_;
  current_.grid_w = grid_w_;
  active_ = true;
  linear_shares_ok_ = true;
}

void AttentionCapture::AddLayerRow(int layer, int n_heads, const float* probs, int64_t key_stride,
                                   int64_t n_keys) {
  if (!active_) return;
  if (current_.n_heads == 0) current_.n_heads = n_heads;
  if (n_heads != current_.n_heads) return;  // all full-attention layers share one head count
  current_.layers.push_back(layer);
  // The sink is key 0 unless it is one of the image's own tokens (never, in a chat prompt).
  const bool sink_is_image = !positions_.empty() && positions_.front() == 0;
  for (int h = 0; h < n_heads; ++h) {
    const float* row = probs + static_cast<int64_t>(h) * key_stride;
    double image = 0.0, all = 0.0;
    for (int64_t p : positions_) {
      current_.weights.push_back(p < n_keys ? row[p] : 0.0f);
      if (p < n_keys) image += static_cast<double>(row[p]);
    }
    for (int64_t k = 0; k < n_keys; ++k) all += static_cast<double>(row[k]);
    const double sink = n_keys > 0 && !sink_is_image ? static_cast<double>(row[0]) : 0.0;
    current_.shares.insert(current_.shares.end(), {static_cast<float>(image), static_cast<float>(all - image - sink),
                                                   static_cast<float>(sink)});
  }
}

void AttentionCapture::AddHiddenRow(int layer, int n_heads, const int64_t* positions, int64_t n_keys,
                                    const float* weights, int64_t head_stride, const float* totals,
                                    int64_t total_stride) {
  if (!active_ || (current_.linear_heads != 0 && n_heads != current_.linear_heads)) return;
  std::vector<int64_t> index;  // image cell -> tracked row
  index.reserve(positions_.size());
  for (int64_t p : positions_) {
    const int64_t* at = std::lower_bound(positions, positions + n_keys, p);
    if (at == positions + n_keys || *at != p) return;
    index.push_back(at - positions);
  }
  current_.linear_heads = n_heads;
  current_.linear_layers.push_back(layer);
  // The sink's tracked row (position 0), when it was tracked and is not an image token.
  const bool sink_tracked = n_keys > 0 && positions[0] == 0 && positions_.front() != 0;
  if (!totals || !sink_tracked) linear_shares_ok_ = false;
  for (int h = 0; h < n_heads; ++h) {
    const float* row = weights + static_cast<int64_t>(h) * head_stride;
    double image = 0.0;
    for (int64_t i : index) {
      current_.linear_weights.push_back(row[i]);
      image += static_cast<double>(row[i]);
    }
    if (!linear_shares_ok_) continue;
    // Fractions of the signed total: they add up to 1, but a_{t,j} is signed (qwen35.md §2.9).
    const double total = static_cast<double>(totals[static_cast<int64_t>(h) * total_stride]);
    const double sink = static_cast<double>(row[0]);
    const double inv = total != 0.0 ? 1.0 / total : 0.0;
    current_.linear_shares.insert(current_.linear_shares.end(),
                                  {static_cast<float>(image * inv), static_cast<float>((total - image - sink) * inv),
                                   static_cast<float>(sink * inv)});
  }
}

const AttentionMap& AttentionCapture::EndToken(int32_t token_id, const std::string& token_text) {
  current_.token_id = token_id;
  current_.token_text = token_text;
  if (!linear_shares_ok_) current_.linear_shares.clear();
  // Mean over every layer and head.
  const size_t cells = positions_.size();
  current_.mean.assign(cells, 0.0f);
  const size_t rows = cells ? current_.weights.size() / cells : 0;
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cells; ++c) current_.mean[c] += current_.weights[r * cells + c];
  if (rows)
    for (auto& v : current_.mean) v /= static_cast<float>(rows);
  active_ = false;
  maps_.push_back(std::move(current_));
  return maps_.back();
}

static bool StartsWithSpace(const std::string& s) {
  return !s.empty() && std::isspace(static_cast<unsigned char>(s[0]));
}

static bool IsWordChar(unsigned char c) { return std::isalnum(c) || c >= 0x80 || c == '\'' || c == '-'; }

std::vector<AttentionWord> GroupWords(const std::vector<AttentionMap>& maps) {
  std::vector<AttentionWord> words;
  bool prev_joinable = false;
  for (const auto& m : maps) {
    const std::string& t = m.token_text;
    const bool starts_word = t.empty() || StartsWithSpace(t) || !prev_joinable ||
                             !IsWordChar(static_cast<unsigned char>(t[0]));
    if (words.empty() || starts_word) {
      words.push_back({t, m.step, m.step});
    } else {
      words.back().text += t;
      words.back().last_step = m.step;
    }
    prev_joinable = !t.empty() && IsWordChar(static_cast<unsigned char>(t.back()));
  }
  // Trim the whitespace a word carries from its first token (" cat" -> "cat"); tokens that
  // are only whitespace (a newline) make no chip.
  std::vector<AttentionWord> out;
  for (auto& w : words) {
    size_t b = 0, e = w.text.size();
    while (b < e && std::isspace(static_cast<unsigned char>(w.text[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(w.text[e - 1]))) --e;
    if (b == e) continue;
    w.text = w.text.substr(b, e - b);
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace glance
