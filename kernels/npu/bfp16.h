#pragma once
// bfp16ebs8, the block format AMD's XDNA2 (AIE2P) NPU multiplies weights in, and the layout
// IRON's flm.GEMM reads them in (prior art: mlir-aie/IRON's flm gemm design and exporter).
//
// One block = 8 values sharing one exponent byte: 8 int8 mantissas, then the exponent, 9 bytes.
//   value[i] = mantissa[i] · 2^(E − 133)          (E: the block exponent byte, 133 = 127 + 6)
// E is the IEEE biased exponent of the block's largest |value|, so that value's mantissa lands
// in [64, 128): 7 significant bits plus the sign. Mantissas round to nearest, ties to even;
// a mantissa that rounds up to 128 bumps E by one. An all-zero block has E = 0.
//
// Packed weight layout ("glance-tiles-v1"): nn.Linear's W[N][K] is B = Wᵀ (K × N), zero-padded
// to K_pad = ⌈K/512⌉·512 and N_pad = ⌈N/tile_n⌉·tile_n, cut into 512 × tile_n tiles ordered by
// column stripe then k-tile (each fill one contiguous read), and inside a tile by
// (n / 8, k / 8, n % 8) with the block holding the 8 consecutive k of column n. BlockIndex is
// the single source of truth for that order: the packer, the unpacker and the emulator all
// use it. NOTE: the within-tile order and the byte order inside a block are our reading of
// IRON's flm.GEMM; they are not verified against a device (see kernels/npu/README.md).
#include <cstdint>
#include <vector>

namespace glance::kernels {
class ThreadPool;
struct WeightRef;
}

namespace glance::kernels::npu {

inline constexpr int kBfpGroup = 8;       // values per block
inline constexpr int kBfpBlockBytes = 9;  // 8 mantissas + 1 exponent
inline constexpr int64_t kKTile = 512;    // flm.GEMM K tile: K % 512 == 0
inline constexpr int64_t kMChunk = 256;   // flm.GEMM row chunk: M % 256 == 0
inline constexpr int64_t kDefaultTileN = 64;

inline int64_t RoundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// The 8 values `in` encoded as one block (out[0..7] mantissas, out[8] exponent).
// Non-finite input is the caller's error to report; here it encodes as zero.
void EncodeBlock(const float* in, uint8_t* out);
// The 8 values a block stands for (exact in f32).
void DecodeBlock(const uint8_t* block, float* out);
// The scalar definition of the quantization, written independently of the byte codec (the
// test oracle): what value v becomes in a block whose largest magnitude is `block_max_abs`.
float QuantizeInBlock(float v, float block_max_abs);

struct PackedWeight {
  int64_t n = 0, k = 0;          // logical out and in features (W is [n][k])
  int64_t n_pad = 0, k_pad = 0;  // padded to tile_n and 512
  int64_t tile_n = kDefaultTileN;
  std::vector<uint8_t> bytes;    // n_pad·k_pad/8 blocks of 9 bytes
};

inline int64_t PackedBytes(int64_t n_pad, int64_t k_pad) {
  return n_pad * k_pad / kBfpGroup * kBfpBlockBytes;
}

// Index of the block holding B[k0..k0+7][n] (k0 % 8 == 0) in the packed buffer.
inline int64_t BlockIndex(int64_t n, int64_t k0, int64_t k_pad, int64_t tile_n) {
  const int64_t k_tiles = k_pad / kKTile;
  const int64_t tile = (n / tile_n) * k_tiles + k0 / kKTile;
  const int64_t nn = n % tile_n, kk = k0 % kKTile;
  const int64_t in_tile = ((nn / 8) * (kKTile / kBfpGroup) + kk / kBfpGroup) * 8 + nn % 8;
  return tile * (kKTile * tile_n / kBfpGroup) + in_tile;
}

// Packs W [n][k] (f32, row-major) with zero padding. Throws glance::Error on non-finite values.
PackedWeight PackWeight(const float* w, int64_t n, int64_t k, int64_t tile_n = kDefaultTileN);
// Packs a WeightRef (any dtype it can widen). `what` names it in errors.
PackedWeight PackWeight(const WeightRef& w, const char* what, int64_t tile_n = kDefaultTileN);
// W [n][k] as the NPU sees it (the padding dropped).
std::vector<float> UnpackWeight(const PackedWeight& p);
// Checks a packed buffer's size against its shape; throws glance::Error naming `what`.
void ValidatePacked(const PackedWeight& p, const char* what);

// The NPU's GEMM over whole chunks: c[m][n_pad] = bf16_rne(Σ_k a[m][k]·B[k][n]), a [m][k_pad]
// bf16, f32 accumulation in ascending k (each product is exact in f32). m may be any count;
// the caller chunks and pads. Parallel over column stripes.
void EmulateGemm(const uint16_t* a, int64_t m, const PackedWeight& w, uint16_t* c,
                 ThreadPool* pool);

// The scalar reference the emulator must equal bit for bit: x [m][k] f32 rounded to bf16,
// W [n][k] f32 quantized by QuantizeInBlock over groups of 8 along k, f32 sum ascending k,
// bf16 round-to-nearest-even, widened back: y [m][n] f32.
void ReferenceBfpMatmul(const float* x, int64_t m, const float* w, int64_t n, int64_t k, float* y);

}  // namespace glance::kernels::npu
