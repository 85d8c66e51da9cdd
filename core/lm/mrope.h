#pragma once
// Text M-RoPE of Qwen3.5 (qwen35.md §2.6): position ids for a token sequence with images, and
// the interleaved, partial rotary tables.
//
// Position ids (HF Qwen3_5Model.get_rope_index): a run of text tokens advances one position per
// token on all three axes (t, h, w); an image of merged grid mh × mw occupies mh·mw tokens in
// raster order, token (r, c) at (cur, cur + r, cur + c), and advances `cur` by max(mh, mw).
// rope_delta = max position + 1 − T; a later token at cache index s sits at s + rope_delta.
//
// Thread contract: plain values; RopeTable is immutable after construction.
#include <cstdint>
#include <span>
#include <vector>

namespace glance {
struct TextConfig;
}

namespace glance::lm {

// Merged token grid of one image (patch grid / spatial_merge_size), t = 1.
struct ImageGrid {
  int64_t h = 0;  // token rows
  int64_t w = 0;  // token columns
};

struct MropePositions {
  int64_t n_tokens = 0;
  std::vector<int64_t> pos;  // [3][n_tokens]: rows t, h, w
  int64_t rope_delta = 0;    // max position + 1 - n_tokens (<= 0 with images)

  const int64_t* t() const { return pos.data(); }
  const int64_t* h() const { return pos.data() + n_tokens; }
  const int64_t* w() const { return pos.data() + 2 * n_tokens; }
};

// One image's placeholder rows in a token stream: grid.h·grid.w rows from `begin`.
struct ImageRun {
  int64_t begin = 0;
  ImageGrid grid;
  int64_t length() const { return grid.h * grid.w; }
};

// The placeholder runs of `ids`, one per grid: `grids` lists the images in the order their
// runs appear; each run must hold exactly h·w `image_token_id` tokens. The one place the
// placeholders are found. Throws glance::Error when the ids and grids disagree.
std::vector<ImageRun> FindImageRuns(std::span<const int64_t> ids, int64_t image_token_id,
                                    std::span<const ImageGrid> grids);

// Positions of a stream of n_tokens whose image rows are `runs` (in order, not overlapping).
MropePositions ComputeMropePositions(int64_t n_tokens, std::span<const ImageRun> runs);

// FindImageRuns then ComputeMropePositions.
MropePositions ComputeMropePositions(std::span<const int64_t> ids, int64_t image_token_id,
                                     std::span<const ImageGrid> grids);

// Positions [3][n] for n text tokens appended to a cache of `cache_len` tokens:
// cache_len + rope_delta + i on all three axes (HF decode / continuation).
std::vector<int64_t> TextPositions(int64_t cache_len, int64_t rope_delta, int64_t n);

// cos/sin for the rotary part of a head (rotary_dim = head_dim · partial_rotary_factor).
// Frequency j in [0, rotary_dim/2) takes its angle from axis H if j%3==1 and j < 3·section[1],
// W if j%3==2 and j < 3·section[2], else T (HF apply_interleaved_mrope). The angle vector is
// duplicated: ang[j] = ang[j + rotary_dim/2] (rotate-half layout).
class RopeTable {
 public:
  explicit RopeTable(const TextConfig& cfg);

  int rotary_dim() const { return rotary_dim_; }
  // Which axis (0 = t, 1 = h, 2 = w) feeds frequency j.
  int axis_of(int j) const { return axis_[static_cast<size_t>(j)]; }
  float inv_freq(int j) const { return inv_freq_[static_cast<size_t>(j)]; }

  // positions [3][n] with row stride `stride` (>= n) -> cos, sin [n][rotary_dim] f32.
  void Compute(const int64_t* positions, int64_t n, int64_t stride, float* cos,
               float* sin) const;

 private:
  int rotary_dim_ = 0;
  std::vector<float> inv_freq_;  // [rotary_dim/2]
  std::vector<int> axis_;        // [rotary_dim/2]
};

// Rotates the first rotary_dim entries of one head vector in place (rotate-half / NeoX):
// x' = x·cos + [−x2 | x1]·sin; the remaining dims pass through. cos/sin: [rotary_dim].
void ApplyRope(float* x, const float* cos, const float* sin, int rotary_dim);

}  // namespace glance::lm
