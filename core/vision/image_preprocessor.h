#pragma once
// Image -> pixel_values rows for the vision tower, the way HF's Qwen2VLImageProcessor
// (torchvision backend, the AutoImageProcessor default) prepares them (qwen35.md §4):
// decode + RGB (image_decode.h) -> resize (smart_resize.h + bicubic_resize.h) ->
// (x - mean/rescale) / (std/rescale) in f32 -> duplicate the frame T times -> patchify into
// rows of [C·T·P·P] in 2×2-merge-window order (tests/data/tiny-a/README.md "Layouts").
//
// Two modes:
//   kDetail: smart_resize with the config's min/max pixels (HF behaviour).
//   kFast:   centre-crop to a square, resize to 224×224 (min_pixels lowered to 50,176) ->
//            14×14 patches -> 7×7 = 49 tokens, whatever the source size.
//
// Thread contract: immutable after construction; all methods are const and thread-safe.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/vision/rgb_image.h"
#include "core/vision/smart_resize.h"

namespace glance::vision {

// preprocessor_config.json. Defaults are the released Qwen3.5 values (qwen35.md §4).
struct PreprocessorConfig {
  int patch_size = 16;
  int temporal_patch_size = 2;
  int merge_size = 2;
  std::array<double, 3> image_mean = {0.5, 0.5, 0.5};
  std::array<double, 3> image_std = {0.5, 0.5, 0.5};
  double rescale_factor = 1.0 / 255.0;
  int64_t min_pixels = 65536;     // size.shortest_edge (or top-level min_pixels, which wins)
  int64_t max_pixels = 16777216;  // size.longest_edge (or top-level max_pixels, which wins)

  int factor() const { return patch_size * merge_size; }
  int patch_dim() const { return 3 * temporal_patch_size * patch_size * patch_size; }

  // Throws glance::Error naming the file and the field on bad values.
  static PreprocessorConfig FromFile(const std::string& path);
  static PreprocessorConfig FromJsonText(const std::string& json_text, const std::string& origin);
};

enum class ImageMode { kFast, kDetail };

inline constexpr int kFastModeSide = 224;              // fast mode: square side after resize
inline constexpr int64_t kFastModeMinPixels = 50176;   // 224 × 224

struct PreprocessedImage {
  std::vector<float> pixel_values;  // [grid_t·grid_h·grid_w][patch_dim] f32, merge-window order
  int patch_dim = 0;                // C·T·P·P (1536 for Qwen3.5)
  int merge_size = 2;
  int grid_t = 1;                   // in patches (a still image: 1)
  int grid_h = 0;
  int grid_w = 0;
  int resized_h = 0;                // pixels after resize
  int resized_w = 0;
  int source_h = 0;                 // pixels as decoded (after EXIF orientation)
  int source_w = 0;

  int n_patches() const { return grid_t * grid_h * grid_w; }
  int merged_h() const { return grid_h / merge_size; }
  int merged_w() const { return grid_w / merge_size; }
  int tokens() const { return grid_t * merged_h() * merged_w(); }  // <|image_pad|> count
};

class ImagePreprocessor {
 public:
  explicit ImagePreprocessor(PreprocessorConfig config = {});

  const PreprocessorConfig& config() const { return config_; }

  // Reads and decodes a file (PNG, JPEG, WebP, BMP, TIFF). Throws glance::Error naming the path.
  PreprocessedImage Preprocess(const std::string& path, ImageMode mode) const;
  // Encoded bytes; `source` names them in error messages.
  PreprocessedImage PreprocessFromBytes(std::span<const uint8_t> bytes, ImageMode mode,
                                        const std::string& source = "the image data") const;
  // Interleaved 8-bit RGB pixels (e.g. from the GUI); stride 0 = width·3.
  PreprocessedImage PreprocessFromRgb(int height, int width, const uint8_t* rgb, ImageMode mode,
                                      int64_t stride = 0) const;
  PreprocessedImage PreprocessImage(const RgbImage& image, ImageMode mode) const;

  // The size an image of height × width is resized to in `mode` (fast: after the centre crop).
  ResizeTarget TargetSize(int height, int width, ImageMode mode) const;

 private:
  // Normalises and patchifies an already resized image.
  PreprocessedImage Patchify(const RgbImage& resized) const;

  PreprocessorConfig config_;
};

// Square centre crop, torchvision's offsets (round((h - s) / 2), ties to even).
RgbImage CenterCropSquare(const RgbImage& image);

}  // namespace glance::vision
