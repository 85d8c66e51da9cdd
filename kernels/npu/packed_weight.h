#pragma once
// Packed weights: nn.Linear's W [N][K] as the NPU kernels read it, in bfp16ebs8 blocks of the
// 8 consecutive k of one output n (bfp16.h). Two layouts, both from the public sources:
//
// kGemmTiles — IRON's flm.GEMM B stream (amd/IRON iron/operators/flm/packing.py `pack_b`,
//   flm/gemm/design.py). B = Wᵀ (K × N), zero-padded to K_pad = ⌈K/512⌉·512 and
//   N_pad = ⌈N/tile_n⌉·tile_n. pack_b views B as (K/512, 512/ct_k, ct_k/8, 8, N/tile_n,
//   tile_n/8, 8) = (kb, kslice, i, s_in, cb, tb, t_in) and emits it permuted to
//   (cb, kb, kslice, tb, i, t_in, s_in): s_in (8 consecutive k) is one block, so blocks go
//       column tile n / tile_n, k tile k / 512, then inside the 512 × tile_n tile
//       ((k % 512) / ct_k, (n % tile_n) / 8, (k % ct_k) / 8, n % 8).
//   ct_k, the k slice a compute tile holds, depends on tile_n (design.py CT_MAX_K_FOR_N):
//   16→16, 32→32, 64→128, 128→32, 256→16. tile_n is chosen per shape (op.py): 128 when K
//   fits one 512 k tile (NPU2), else 64. The decode GEMVs read these same streams.
//
// kGemvRows — the GEMVbfp16 LM-head layout (the taconite crate's qwen35 model.rs `embed`):
//   rows in groups of 8; per group its K/8 blocks in k order, each 72 bytes = the group's
//   8 rows × [exponent, 8 mantissas]. N_pad = ⌈N/8⌉·8, K_pad = ⌈K/8⌉·8.
#include <cstdint>
#include <vector>

#include "kernels/npu/bfp16.h"

namespace glance::kernels {
struct WeightRef;
}

namespace glance::kernels::npu {

inline constexpr int64_t kKTile = 512;   // flm.GEMM K tile: K % 512 == 0
inline constexpr int64_t kMChunk = 256;  // flm.GEMM rows per chunk: M % 256 == 0
// Largest N or K a bundle may declare (bounds every size computed from a file).
inline constexpr int64_t kMaxDim = int64_t{1} << 24;

enum class PackedLayout : uint8_t { kGemmTiles, kGemvRows };

inline int64_t RoundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// ct_k for a tile_n (0 when flm.GEMM has no such tile_n).
int64_t CtKForTileN(int64_t tile_n);
// flm.GEMM's tile_n for a padded K on NPU2 (op.py): 128 for one k tile, else 64.
inline int64_t TileNForK(int64_t k_pad) { return k_pad <= kKTile ? 128 : 64; }

struct PackedWeight {
  int64_t n = 0, k = 0;          // logical out and in features (W is [n][k])
  int64_t n_pad = 0, k_pad = 0;  // padded as the layout requires
  int64_t tile_n = 0;            // kGemmTiles only
  PackedLayout layout = PackedLayout::kGemmTiles;
  std::vector<uint8_t> bytes;    // n_pad·k_pad/8 blocks of 9 bytes
};

// The shape fields of a packed n × k weight (bytes left empty). tile_n 0: TileNForK.
// Throws glance::Error on a bad shape or tile_n.
PackedWeight PackedShape(int64_t n, int64_t k, PackedLayout layout, int64_t tile_n = 0);
inline int64_t PackedBytes(int64_t n_pad, int64_t k_pad) {
  return n_pad * k_pad / kBfpGroup * kBfpBlockBytes;
}
inline int64_t PackedBytes(const PackedWeight& p) { return PackedBytes(p.n_pad, p.k_pad); }

// Byte offset of the block holding W[n][k0..k0+7] (k0 % 8 == 0) for the layout's geometry.
int64_t BlockOffset(int64_t n, int64_t k0, const PackedWeight& p);

// Packs W [n][k] (f32, row-major) with zero padding. Throws glance::Error on non-finite values.
PackedWeight PackWeight(const float* w, int64_t n, int64_t k, PackedLayout layout = PackedLayout::kGemmTiles,
                        Rounding rounding = Rounding::kConvEven, int64_t tile_n = 0);
// Packs a WeightRef (any dtype it can widen). `what` names it in errors.
PackedWeight PackWeight(const WeightRef& w, const char* what, PackedLayout layout = PackedLayout::kGemmTiles,
                        Rounding rounding = Rounding::kConvEven, int64_t tile_n = 0);
// W [n][k] as the NPU sees it (the padding dropped).
std::vector<float> UnpackWeight(const PackedWeight& p);
// Checks a packed buffer's size against its shape; throws glance::Error naming `what`.
void ValidatePacked(const PackedWeight& p, const char* what);

}  // namespace glance::kernels::npu
