#pragma once
// Qwen2-VL / Qwen3.5 `smart_resize` (qwen35.md §4 step 2, HF-IP image_processing_qwen2_vl.py):
// the target size of the detail-mode resize, a multiple of `factor` (= patch × merge = 32) in both
// directions, with h·w inside [min_pixels, max_pixels] and the aspect ratio kept as well as the
// grid allows.
#include <cstdint>

namespace glance::vision {

struct ResizeTarget {
  int height = 0;
  int width = 0;
};

// Evaluated in double precision in exactly HF's order, with Python's round-half-to-even.
// Throws glance::Error when the aspect ratio exceeds 200 (HF raises too) or a side is < 1.
// Current HF no longer rejects sides < factor: they round up through the min_pixels branch
// (e.g. 17×3000 → 32×3008, 1×1 → 256×256 under the released limits); we follow that.
ResizeTarget SmartResize(int64_t height, int64_t width, int64_t factor, int64_t min_pixels,
                         int64_t max_pixels);

}  // namespace glance::vision
