#include "kernels/npu/packed_weight.h"

#include <cmath>
#include <string>

#include "kernels/cpu/matmul.h"
#include "kernels/kernel_error.h"

namespace glance::kernels::npu {

int64_t CtKForTileN(int64_t tile_n) {
  switch (tile_n) {
    case 16: return 16;
    case 32: return 32;
    case 64: return 128;
    case 128: return 32;
    case 256: return 16;
    default: return 0;
  }
}

PackedWeight PackedShape(int64_t n, int64_t k, PackedLayout layout, int64_t tile_n) {
  if (n <= 0 || k <= 0 || n > kMaxDim || k > kMaxDim)
    throw Error("NPU weight: bad shape " + std::to_string(n) + "×" + std::to_string(k) + " (each side 1.." +
                std::to_string(kMaxDim) + ")");
  PackedWeight p;
  p.n = n;
  p.k = k;
  p.layout = layout;
  if (layout == PackedLayout::kGemvRows) {
    p.n_pad = RoundUp(n, kBfpGroup);
    p.k_pad = RoundUp(k, kBfpGroup);
    return p;
  }
  p.k_pad = RoundUp(k, kKTile);
  p.tile_n = tile_n ? tile_n : TileNForK(p.k_pad);
  if (!CtKForTileN(p.tile_n))
    throw Error("NPU weight: tile_n " + std::to_string(p.tile_n) + " is not one flm.GEMM builds (16, 32, 64, 128, 256)");
  p.n_pad = RoundUp(n, p.tile_n);
  return p;
}

int64_t BlockOffset(int64_t n, int64_t k0, const PackedWeight& p) {
  int64_t block;
  if (p.layout == PackedLayout::kGemvRows) {
    // group n/8: K/8 blocks of 8 rows × 9 bytes
    block = ((n / 8) * (p.k_pad / 8) + k0 / 8) * 8 + n % 8;
  } else {
    const int64_t tn = p.tile_n, ct_k = CtKForTileN(tn);
    const int64_t tile = (n / tn) * (p.k_pad / kKTile) + k0 / kKTile;
    const int64_t kk = k0 % kKTile, nn = n % tn;
    const int64_t in_tile = (((kk / ct_k) * (tn / 8) + nn / 8) * (ct_k / 8) + (kk % ct_k) / 8) * 8 + nn % 8;
    block = tile * (kKTile * tn / kBfpGroup) + in_tile;
  }
  return block * kBfpBlockBytes;
}

// Encodes one W row (= one column n of B) into its blocks.
static void PackRow(PackedWeight& p, int64_t n, const float* row, Rounding rounding, const char* what) {
  float group[kBfpGroup];
  for (int64_t k0 = 0; k0 < p.k; k0 += kBfpGroup) {
    for (int i = 0; i < kBfpGroup; ++i) {
      const int64_t k = k0 + i;
      group[i] = k < p.k ? row[k] : 0.0f;
      if (!std::isfinite(group[i]))
        throw Error(std::string("NPU weight packing: ") + what + " has a non-finite value at [" +
                    std::to_string(n) + "][" + std::to_string(k) + "]");
    }
    EncodeBlock(group, p.bytes.data() + BlockOffset(n, k0, p), rounding);
  }
}

PackedWeight PackWeight(const float* w, int64_t n, int64_t k, PackedLayout layout, Rounding rounding,
                        int64_t tile_n) {
  PackedWeight p = PackedShape(n, k, layout, tile_n);
  p.bytes.assign(static_cast<size_t>(PackedBytes(p)), 0);  // zero blocks = padding (E 0, m 0)
  for (int64_t r = 0; r < n; ++r) PackRow(p, r, w + r * k, rounding, "weight");
  return p;
}

PackedWeight PackWeight(const WeightRef& w, const char* what, PackedLayout layout, Rounding rounding,
                        int64_t tile_n) {
  PackedWeight p = PackedShape(w.rows, w.cols, layout, tile_n);
  p.bytes.assign(static_cast<size_t>(PackedBytes(p)), 0);
  std::vector<float> row(static_cast<size_t>(w.cols));
  for (int64_t r = 0; r < w.rows; ++r) {
    w.row_to_f32(r, row.data());
    PackRow(p, r, row.data(), rounding, what);
  }
  return p;
}

std::vector<float> UnpackWeight(const PackedWeight& p) {
  std::vector<float> w(static_cast<size_t>(p.n * p.k));
  float vals[kBfpGroup];
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t k0 = 0; k0 < p.k; k0 += kBfpGroup) {
      DecodeBlock(p.bytes.data() + BlockOffset(n, k0, p), vals);
      for (int i = 0; i < kBfpGroup && k0 + i < p.k; ++i) w[static_cast<size_t>(n * p.k + k0 + i)] = vals[i];
    }
  return w;
}

void ValidatePacked(const PackedWeight& p, const char* what) {
  bool shape_ok = false;
  int64_t want = 0;
  try {
    const PackedWeight s = PackedShape(p.n, p.k, p.layout, p.tile_n);
    shape_ok = s.n_pad == p.n_pad && s.k_pad == p.k_pad && s.tile_n == p.tile_n;
    want = PackedBytes(s);
  } catch (const Error&) {
  }
  if (!shape_ok || static_cast<int64_t>(p.bytes.size()) != want)
    throw Error(std::string("NPU bundle: packed weight ") + what + " has " + std::to_string(p.bytes.size()) +
                " bytes, expected " + std::to_string(want) + " for " + std::to_string(p.n) + "×" +
                std::to_string(p.k) + (p.layout == PackedLayout::kGemmTiles ? " at tile_n " + std::to_string(p.tile_n) : " (GEMV rows)") +
                " (re-export the bundle)");
}

}  // namespace glance::kernels::npu
