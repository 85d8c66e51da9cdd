#include "core/vision/image_preprocessor.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/util/error.h"
#include "core/util/json_field.h"
#include "core/util/read_file.h"
#include "core/vision/bicubic_resize.h"
#include "core/vision/image_decode.h"

namespace glance::vision {
namespace {

// Encoded files above this are refused before reading (a 100 MP PNG is far below it).
constexpr std::uintmax_t kMaxImageFileBytes = 1ull << 30;

std::vector<uint8_t> ReadFileBytes(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path p(path);
  const auto status = std::filesystem::status(p, ec);
  // Only a missing file "does not exist"; a link loop, a path through a file or a folder without
  // permission say what they are.
  if (ec && ec != std::errc::no_such_file_or_directory) throw Error("cannot read image " + path + ": " + ec.message());
  if (!std::filesystem::exists(status)) throw Error("image " + path + " does not exist");
  if (!std::filesystem::is_regular_file(status)) throw Error("image " + path + " is not a regular file");
  const std::uintmax_t size = std::filesystem::file_size(p, ec);
  if (ec) throw Error("cannot read image " + path + ": " + ec.message());
  if (size > kMaxImageFileBytes) {
    throw Error("image " + path + " is " + std::to_string(size >> 20) +
                " MiB, larger than the 1024 MiB Glance reads");
  }
  std::ifstream in(p, std::ios::binary);
  if (!in) throw Error("cannot open image " + path);
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size))) {
    throw Error("cannot read image " + path);
  }
  return bytes;
}

std::array<double, 3> Triple(const nlohmann::json& j, const char* key, std::array<double, 3> fallback,
                             const std::string& origin) {
  if (!HasField(j, key)) return fallback;
  const auto& v = j.at(key);
  if (v.is_number()) {
    const double x = v.get<double>();
    return {x, x, x};
  }
  if (!v.is_array() || v.size() != 3 || !v[0].is_number() || !v[1].is_number() || !v[2].is_number()) {
    throw Error(origin + ": field \"" + key + "\" must be 3 numbers, found " + v.dump());
  }
  return {v[0].get<double>(), v[1].get<double>(), v[2].get<double>()};
}

}  // namespace

PreprocessorConfig PreprocessorConfig::FromJsonText(const std::string& json_text, const std::string& origin) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(origin + " is not valid JSON: " + e.what());
  }
  if (!j.is_object()) throw Error(origin + " must hold a JSON object");
  PreprocessorConfig c;
  c.patch_size = OptionalField<int>(j, "patch_size", c.patch_size, origin);
  c.temporal_patch_size = OptionalField<int>(j, "temporal_patch_size", c.temporal_patch_size, origin);
  c.merge_size = OptionalField<int>(j, "merge_size", c.merge_size, origin);
  c.image_mean = Triple(j, "image_mean", c.image_mean, origin);
  c.image_std = Triple(j, "image_std", c.image_std, origin);
  c.rescale_factor = OptionalField<double>(j, "rescale_factor", c.rescale_factor, origin);
  if (j.contains("size") && j.at("size").is_object()) {
    const auto& s = j.at("size");
    c.min_pixels = OptionalField<int64_t>(s, "shortest_edge", c.min_pixels, origin);
    c.max_pixels = OptionalField<int64_t>(s, "longest_edge", c.max_pixels, origin);
  }
  // HF Qwen2VLImageProcessor: explicit min_pixels / max_pixels override `size`.
  c.min_pixels = OptionalField<int64_t>(j, "min_pixels", c.min_pixels, origin);
  c.max_pixels = OptionalField<int64_t>(j, "max_pixels", c.max_pixels, origin);

  auto bad = [&](const std::string& what) { throw Error(origin + ": " + what); };
  if (c.patch_size < 1 || c.patch_size > 64) bad("patch_size must be 1..64");
  if (c.temporal_patch_size < 1 || c.temporal_patch_size > 8) bad("temporal_patch_size must be 1..8");
  if (c.merge_size < 1 || c.merge_size > 8) bad("merge_size must be 1..8");
  if (!(c.rescale_factor > 0.0)) bad("rescale_factor must be positive");
  for (double s : c.image_std) {
    if (!(s > 0.0)) bad("image_std values must be positive");
  }
  if (c.min_pixels < 0 || c.max_pixels < 1 || c.min_pixels > c.max_pixels) {
    bad("need 0 <= size.shortest_edge (min_pixels) <= size.longest_edge (max_pixels)");
  }
  return c;
}

PreprocessorConfig PreprocessorConfig::FromFile(const std::string& path) {
  return FromJsonText(ReadWholeFile(path, "cannot open preprocessor config " + path), path);
}

ImagePreprocessor::ImagePreprocessor(PreprocessorConfig config) : config_(config) {}

ResizeTarget ImagePreprocessor::TargetSize(int height, int width, ImageMode mode) const {
  if (mode == ImageMode::kFast) {
    return SmartResize(kFastModeSide, kFastModeSide, config_.factor(), kFastModeMinPixels,
                       std::max(config_.max_pixels, kFastModeMinPixels));
  }
  return SmartResize(height, width, config_.factor(), config_.min_pixels, config_.max_pixels);
}

RgbImage CenterCropSquare(const RgbImage& image) {
  const int side = std::min(image.height, image.width);
  if (side == image.height && side == image.width) return image;
  // torchvision center_crop: int(round((H - s) / 2.0)) with Python rounding.
  const int top = static_cast<int>(std::nearbyint((image.height - side) / 2.0));
  const int left = static_cast<int>(std::nearbyint((image.width - side) / 2.0));
  RgbImage out;
  out.height = out.width = side;
  out.pixels.resize(size_t(side) * size_t(side) * 3);
  for (int y = 0; y < side; ++y) {
    const uint8_t* src = image.at(top + y, left);
    std::copy(src, src + size_t(side) * 3, out.pixels.data() + size_t(y) * size_t(side) * 3);
  }
  return out;
}

PreprocessedImage ImagePreprocessor::PreprocessImage(const RgbImage& image, ImageMode mode) const {
  if (mode == ImageMode::kFast) {
    const RgbImage square = CenterCropSquare(image);
    const ResizeTarget t = TargetSize(square.height, square.width, mode);
    PreprocessedImage out = Patchify(ResizeBicubicAntialias(square, t.height, t.width));
    out.source_h = image.height;
    out.source_w = image.width;
    return out;
  }
  const ResizeTarget t = TargetSize(image.height, image.width, mode);
  PreprocessedImage out = Patchify(ResizeBicubicAntialias(image, t.height, t.width));
  out.source_h = image.height;
  out.source_w = image.width;
  return out;
}

PreprocessedImage ImagePreprocessor::Patchify(const RgbImage& img) const {
  const int P = config_.patch_size, T = config_.temporal_patch_size, m = config_.merge_size;
  PreprocessedImage out;
  out.patch_dim = config_.patch_dim();
  out.merge_size = m;
  out.grid_t = 1;
  out.grid_h = img.height / P;
  out.grid_w = img.width / P;
  out.resized_h = img.height;
  out.resized_w = img.width;
  if (out.grid_h * P != img.height || out.grid_w * P != img.width || out.grid_h % m || out.grid_w % m) {
    throw Error("internal: resized image " + std::to_string(img.width) + "x" + std::to_string(img.height) +
                " is not a multiple of patch_size x merge_size");
  }
  // HF torchvision backend fuses rescale + normalize: (x - mean/r) / (std/r) in f32
  // (qwen35.md §4 step 4; for mean = std = 0.5 this is (x - 127.5) / 127.5).
  float mean[3], stdv[3];
  for (int c = 0; c < 3; ++c) {
    mean[c] = static_cast<float>(config_.image_mean[size_t(c)] / config_.rescale_factor);
    stdv[c] = static_cast<float>(config_.image_std[size_t(c)] / config_.rescale_factor);
  }
  const size_t dim = size_t(out.patch_dim), plane = size_t(P) * size_t(P);
  out.pixel_values.resize(size_t(out.n_patches()) * dim);
  float* row = out.pixel_values.data();
  // Rows in merge-window order (br, bc, ir, ic); columns (c, t, y, x) — qwen35.md §4 step 6.
  for (int br = 0; br < out.grid_h / m; ++br) {
    for (int bc = 0; bc < out.grid_w / m; ++bc) {
      for (int ir = 0; ir < m; ++ir) {
        for (int ic = 0; ic < m; ++ic, row += dim) {
          const int y0 = (br * m + ir) * P, x0 = (bc * m + ic) * P;
          for (int c = 0; c < 3; ++c) {
            float* dst = row + size_t(c) * size_t(T) * plane;
            for (int y = 0; y < P; ++y) {
              for (int x = 0; x < P; ++x) {
                dst[size_t(y) * size_t(P) + size_t(x)] =
                    (static_cast<float>(img.at(y0 + y, x0 + x)[c]) - mean[c]) / stdv[c];
              }
            }
            // A still image is its own temporal copies.
            for (int t = 1; t < T; ++t) std::copy(dst, dst + plane, dst + size_t(t) * plane);
          }
        }
      }
    }
  }
  return out;
}

PreprocessedImage ImagePreprocessor::PreprocessFromBytes(std::span<const uint8_t> bytes, ImageMode mode,
                                                         const std::string& source) const {
  return PreprocessImage(DecodeImage(bytes, source), mode);
}

PreprocessedImage ImagePreprocessor::Preprocess(const std::string& path, ImageMode mode) const {
  const std::vector<uint8_t> bytes = ReadFileBytes(path);
  return PreprocessFromBytes(bytes, mode, path);
}

PreprocessedImage ImagePreprocessor::PreprocessFromRgb(int height, int width, const uint8_t* rgb, ImageMode mode,
                                                       int64_t stride) const {
  return PreprocessImage(RgbImageFromBuffer(height, width, rgb, stride), mode);
}

}  // namespace glance::vision
