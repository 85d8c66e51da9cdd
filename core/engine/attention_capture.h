#pragma once
// AttentionCapture: turns the softmax rows of the full-attention layers into one map per
// generated token over one image's token grid (docs/design.md "Attention capture").
// The full-attention layers (every 4th in Qwen3.5) give softmax weights; the DeltaNet layers
// give their hidden attention (docs/qwen35.md §2.9), kept in the map's separate linear_*
// arrays. The language model reports rows through its AttentionObserver only when capture is
// on, so capture off costs nothing.
//
// Thread contract: one capture per generation loop; not thread-safe.
#include <cstdint>
#include <vector>

#include "core/engine/events.h"

namespace glance {

class AttentionCapture {
 public:
  // image_positions: the cache positions of the image's tokens in raster order of its
  // merged grid (grid_h × grid_w of them).
  AttentionCapture(int image_index, int grid_h, int grid_w, std::vector<int64_t> image_positions);

  // Starts the map of one generated token.
  void BeginToken(int step);
  // One full-attention layer's softmax row for the query that produced the token:
  // probs[h * key_stride + key] for h < n_heads, key < n_keys. Also its layer × head shares
  // (AttentionMap::shares): the row summed over the image's keys, key 0 (the sink) and the rest.
  void AddLayerRow(int layer, int n_heads, const float* probs, int64_t key_stride, int64_t n_keys);
  // One DeltaNet layer's hidden attention for that query: weights[h * head_stride + i] is the
  // weight of the tracked row at cache position positions[i] (ascending), i < n_keys. A layer
  // that did not track every image row (the image came before capture began) is left out.
  // totals[h * total_stride] (null: unknown) is Σ_j a_{t,j} over every earlier row j, for the
  // shares (AttentionMap::linear_shares, which also need position 0 among the tracked rows).
  void AddHiddenRow(int layer, int n_heads, const int64_t* positions, int64_t n_keys, const float* weights,
                    int64_t head_stride, const float* totals = nullptr, int64_t total_stride = 0);
  // Finishes the current token's map with its id and text; returns it.
  const AttentionMap& EndToken(int32_t token_id, const std::string& token_text);

  bool active() const { return active_; }
  const std::vector<AttentionMap>& maps() const { return maps_; }

 private:
  int image_index_, grid_h_, grid_w_;
  std::vector<int64_t> positions_;
  std::vector<AttentionMap> maps_;
  AttentionMap current_;
  bool active_ = false;
  bool linear_shares_ok_ = true;  // every DeltaNet layer of the current token came with its total
};

}  // namespace glance
