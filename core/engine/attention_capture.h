#pragma once
// AttentionCapture: turns the softmax rows of the full-attention layers into one map per
// generated token over one image's token grid (docs/design.md "Attention capture").
// Only full-attention layers (every 4th in Qwen3.5) have softmax weights; the DeltaNet
// layers have none. The language model reports rows through its AttentionObserver only when
// capture is on, so capture off costs nothing.
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
  // probs[h * key_stride + key] for h < n_heads, key < n_keys.
  void AddLayerRow(int layer, int n_heads, const float* probs, int64_t key_stride, int64_t n_keys);
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
};

}  // namespace glance
