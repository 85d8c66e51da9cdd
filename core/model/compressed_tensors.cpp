#include "core/model/compressed_tensors.h"

#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/model/safetensors.h"
#include "core/util/error.h"
#include "core/util/read_file.h"
#include "kernels/cpu/numeric.h"
#include "kernels/cpu/weight_panels.h"
#include "kernels/cpu/quant_formats.h"

namespace glance {

CompressedTensorsConfig ReadCompressedTensorsConfig(const std::string& path) {
  CompressedTensorsConfig c;
  std::string text;
  try {
    text = ReadWholeFile(path, "cannot open " + path);
  } catch (const Error&) {
    return c;  // config.json's own reader reports what is wrong with it
  }
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("quantization_config")) return c;
  const auto& q = j["quantization_config"];
  if (!q.is_object() || q.value("quant_method", "") != "compressed-tensors") return c;
  c.present = true;
  if (q.contains("ignore") && q["ignore"].is_array())
    for (const auto& e : q["ignore"])
      if (e.is_string()) c.ignore.push_back(e.get<std::string>());
  if (q.contains("config_groups") && q["config_groups"].is_object()) {
    for (const auto& [name, g] : q["config_groups"].items()) {
      if (!g.is_object() || !g.contains("weights") || !g["weights"].is_object()) continue;
      const auto& w = g["weights"];
      const int bits = w.value("num_bits", 4), group = w.value("group_size", 32);
      const bool sym = w.value("symmetric", true);
      if (bits != 4 || group != 32 || !sym)
        throw Error(path + ": quantization_config.config_groups." + name + ".weights is " +
                    std::to_string(bits) + "-bit, group " + std::to_string(group) +
                    (sym ? ", symmetric" : ", asymmetric") +
                    "; only symmetric 4-bit with group_size 32 is supported");
    }
  }
  return c;
}

bool IsIgnored(const std::vector<std::string>& ignore, const std::string& module) {
  for (const std::string& e : ignore) {
    if (e.rfind("re:", 0) == 0) {
      try {
        if (std::regex_match(module, std::regex(e.substr(3)))) return true;
      } catch (const std::regex_error&) {
        throw Error("quantization_config.ignore entry \"" + e + "\" is not a valid regex");
      }
    } else if (e == module) {
      return true;
    }
  }
  return false;
}

namespace {
struct PackedStorage {
  std::vector<uint8_t> data;
  std::vector<uint16_t> scales;
};
}  // namespace

std::optional<kernels::WeightRef> LoadPackedInt4(const TensorStore& store, const std::string& module,
                                                 int64_t rows, int64_t cols) {
  const TensorView* packed = store.Find(module + ".weight_packed");
  if (!packed) return std::nullopt;
  const int64_t words = (cols + 7) / 8, nb = kernels::QuantBlocks(cols);
  if (packed->dtype != DType::I32)
    throw Error("tensor " + module + ".weight_packed in " + packed->file + " has dtype " +
                DTypeName(packed->dtype) + "; compressed-tensors int4 packs into I32");
  store.Get(module + ".weight_packed", {rows, words});  // throws naming both shapes
  const TensorView& scale = store.Get(module + ".weight_scale", {rows, nb});
  if (scale.dtype != DType::BF16 && scale.dtype != DType::F16 && scale.dtype != DType::F32)
    throw Error("tensor " + module + ".weight_scale in " + scale.file + " has dtype " +
                DTypeName(scale.dtype) + "; expected BF16, F16 or F32");
  if (const TensorView* shp = store.Find(module + ".weight_shape")) {
    const std::vector<int64_t> want = {rows, cols};
    bool ok = shp->dtype == DType::I64 && shp->shape == std::vector<int64_t>{2};
    if (ok) {
      int64_t v[2];
      std::memcpy(v, shp->data, sizeof v);
      ok = v[0] == rows && v[1] == cols;
    }
    if (!ok)
      throw Error("tensor " + module + ".weight_shape in " + shp->file + " is not int64 [2] = [" +
                  std::to_string(rows) + ", " + std::to_string(cols) + "]");
  }
  auto st = std::make_shared<PackedStorage>();
  st->data.resize(static_cast<size_t>(rows * nb * 16));
  st->scales.resize(static_cast<size_t>(rows * nb));
  std::vector<int32_t> row_words(static_cast<size_t>(words));
  std::vector<uint8_t> row_blocks(static_cast<size_t>(nb * 16));
  std::vector<uint16_t> row_scales(static_cast<size_t>(nb));
  const std::vector<float> scales_f32 = scale.dtype == DType::BF16 ? std::vector<float>{} : scale.ToF32();
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(row_words.data(), packed->data + r * words * 4, static_cast<size_t>(words * 4));
    kernels::RepackCompressedTensorsQ4Row(row_words.data(), cols, row_blocks.data());
    if (scale.dtype == DType::BF16) {  // taken as they are
      std::memcpy(row_scales.data(), scale.data + r * nb * 2, static_cast<size_t>(nb * 2));
    } else {  // Q4 keeps bf16 scales: F16/F32 scales are rounded to nearest bf16
      for (int64_t b = 0; b < nb; ++b)
        row_scales[static_cast<size_t>(b)] = kernels::f32_to_bf16(scales_f32[static_cast<size_t>(r * nb + b)]);
    }
    // Q4 matrices are stored in panels of rows (kernels/cpu/weight_panels.h).
    kernels::StoreQ4Row(row_blocks.data(), row_scales.data(), rows, nb, r, st->data.data(), st->scales.data());
  }
  kernels::WeightRef w;
  w.type = kernels::WeightType::Q4;
  w.rows = rows;
  w.cols = cols;
  w.data = st->data.data();
  w.scales = st->scales.data();
  w.owner = st;
  return w;
}

}  // namespace glance
