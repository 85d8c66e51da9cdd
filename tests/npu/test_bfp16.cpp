// bfp16ebs8 codec and the packed layouts against small vectors worked out by hand from IRON's
// published layout (amd/IRON iron/operators/flm/packing.py, flm/gemm/design.py) and the taconite
// qwen35 runtime's GEMV head reader — each expected byte is derived in the comment next to it,
// not taken from our own packer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu/numeric.h"
#include "kernels/npu/bfp16.h"
#include "kernels/npu/packed_weight.h"

namespace glance::kernels::npu {
namespace {

std::vector<uint8_t> Encode(std::vector<float> in, Rounding r) {
  std::vector<uint8_t> b(9);
  EncodeBlock(in.data(), b.data(), r);
  return b;
}

uint8_t U(int m) { return static_cast<uint8_t>(static_cast<int8_t>(m)); }

TEST(Bfp16, ExponentByteFirstThenMantissasByTheBlockMax) {
  // Largest magnitude 3.0 = 1.5·2^1: biased exponent 128 = 0x80, the step 2^(128-133) = 1/32,
  // so a mantissa is value·32: 1 → 32, -0.5 → -16, 0.25 → 8, 3 → 96, -3 → -96,
  // 1e-3 → 0.032 → 0 either way, 2.9999 → 95.9968 → 96 to nearest, 95 toward −∞.
  const std::vector<float> in = {1.0f, -0.5f, 0.25f, 3.0f, 0.0f, -3.0f, 1e-3f, 2.9999f};
  EXPECT_EQ(Encode(in, Rounding::kConvEven),
            (std::vector<uint8_t>{0x80, 32, U(-16), 8, 96, 0, U(-96), 0, 96}));
  EXPECT_EQ(Encode(in, Rounding::kFloor), (std::vector<uint8_t>{0x80, 32, U(-16), 8, 96, 0, U(-96), 0, 95}));
  float out[8];
  const auto b = Encode(in, Rounding::kConvEven);
  DecodeBlock(b.data(), out);
  EXPECT_EQ(out[3], 3.0f);
  EXPECT_EQ(out[2], 0.25f);
  // Negative control: the old order (mantissas first) reads a different block.
  std::vector<uint8_t> swapped(b.begin() + 1, b.end());
  swapped.push_back(b[0]);
  DecodeBlock(swapped.data(), out);
  EXPECT_NE(out[3], 3.0f);
}

TEST(Bfp16, AMaxThatRoundsTo128SaturatesInsteadOfBumpingTheExponent) {
  // 255.5 = 1.99609375·2^7: exponent 134, step 2; 255.5/2 = 127.75 rounds to 128 → clipped to
  // 127 (IRON clips; the exponent stays 134). Toward −∞: 127. −255.5/2 = −127.75 → −128 to
  // nearest (fits), −128 toward −∞. 1.0/2 = 0.5: a tie, to even 0; toward −∞ 0.
  const std::vector<float> in = {255.5f, -255.5f, 1.0f, 0, 0, 0, 0, 0};
  EXPECT_EQ(Encode(in, Rounding::kConvEven), (std::vector<uint8_t>{134, 127, U(-128), 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(Encode(in, Rounding::kFloor), (std::vector<uint8_t>{134, 127, U(-128), 0, 0, 0, 0, 0, 0}));
  // 3.0/2 = 1.5 to nearest even is 2, toward −∞ 1; −3/2 = −1.5: −2 either way.
  const std::vector<float> ties = {255.0f, 3.0f, -3.0f, 0, 0, 0, 0, 0};
  EXPECT_EQ(Encode(ties, Rounding::kConvEven), (std::vector<uint8_t>{134, 127, 2, U(-2), 0, 0, 0, 0, 0}));
  EXPECT_EQ(Encode(ties, Rounding::kFloor), (std::vector<uint8_t>{134, 127, 1, U(-2), 0, 0, 0, 0, 0}));
}

TEST(Bfp16, ValuesThirtyTwoBinadesBelowTheMaxBecomeZeroOrMinusOne) {
  // 1.0 has exponent 127; 1e-12 ≈ 2^-39.9 has 87: 40 binades below → 0, and its negative → −1
  // (packing.py: `np.where(shift >= 32, np.where(sign, -1, 0), v8)`), in both roundings.
  const std::vector<float> in = {1.0f, -1e-12f, 1e-12f, 0, 0, 0, 0, 0};
  for (Rounding r : {Rounding::kConvEven, Rounding::kFloor})
    EXPECT_EQ(Encode(in, r), (std::vector<uint8_t>{127, 64, U(-1), 0, 0, 0, 0, 0, 0}));
}

TEST(Bfp16, TheCodecEqualsTheValueRuleOnRandomBlocks) {
  std::mt19937 rng(5);
  std::normal_distribution<float> d(0.0f, 1.0f);
  for (Rounding r : {Rounding::kConvEven, Rounding::kFloor})
    for (int t = 0; t < 2000; ++t) {
      float in[8], out[8];
      int e = 0;
      for (float& v : in) {
        v = std::ldexp(d(rng), static_cast<int>(rng() % 40) - 20);
        e = std::max(e, BiasedExponent(v));
      }
      uint8_t b[9];
      EncodeBlock(in, b, r);
      DecodeBlock(b, out);
      for (int i = 0; i < 8; ++i) ASSERT_EQ(out[i], QuantizeInBlock(in[i], e, r)) << t << "," << i;
    }
}

TEST(Bfp16, Bf16StoreRoundsToNearestEvenOrTowardMinusInfinity) {
  // bf16 has 8 significant bits: at 1.0 the step is 2^-7. 1 + 2^-8 is a tie (→ 1.0 to even);
  // 1 + 3·2^-9 is 0.75 of a step (→ 1 + 2^-7 to nearest, 1.0 toward −∞); its negative goes
  // to −(1 + 2^-7) toward −∞.
  const float tie = 1.0f + std::ldexp(1.0f, -8), three_quarters = 1.0f + 3.0f * std::ldexp(1.0f, -9);
  EXPECT_EQ(bf16_to_f32(F32ToBf16(tie, Rounding::kConvEven)), 1.0f);
  EXPECT_EQ(bf16_to_f32(F32ToBf16(three_quarters, Rounding::kConvEven)), 1.0f + std::ldexp(1.0f, -7));
  EXPECT_EQ(bf16_to_f32(F32ToBf16(three_quarters, Rounding::kFloor)), 1.0f);
  EXPECT_EQ(bf16_to_f32(F32ToBf16(-three_quarters, Rounding::kFloor)), -(1.0f + std::ldexp(1.0f, -7)));
  EXPECT_EQ(bf16_to_f32(F32ToBf16(-1.0f, Rounding::kFloor)), -1.0f);
}

TEST(PackedLayout, TileNAndCtKPerShape) {
  // op.py: tile_n 128 when K fits one 512 k tile (NPU2), else 64. design.py CT_MAX_K_FOR_N.
  const PackedWeight a = PackedShape(100, 64, PackedLayout::kGemmTiles);
  EXPECT_EQ(a.k_pad, 512);
  EXPECT_EQ(a.tile_n, 128);
  EXPECT_EQ(a.n_pad, 128);
  const PackedWeight b = PackedShape(100, 1030, PackedLayout::kGemmTiles);
  EXPECT_EQ(b.k_pad, 1536);
  EXPECT_EQ(b.tile_n, 64);
  EXPECT_EQ(b.n_pad, 128);
  EXPECT_EQ(CtKForTileN(16), 16);
  EXPECT_EQ(CtKForTileN(32), 32);
  EXPECT_EQ(CtKForTileN(64), 128);
  EXPECT_EQ(CtKForTileN(128), 32);
  EXPECT_EQ(CtKForTileN(256), 16);
  EXPECT_EQ(CtKForTileN(48), 0);
}

TEST(PackedLayout, GemmBlockOrderFollowsPackB) {
  // pack_b views B (K × N) as (kb, kslice, i, s_in, cb, tb, t_in) with sizes (K/512, 512/ct_k,
  // ct_k/8, 8, N/tile_n, tile_n/8, 8), permutes to (cb, kb, kslice, tb, i, t_in, s_in) and cuts
  // blocks of 8 (the s_in axis). So, in blocks, the strides are t_in 1, i 8, tb 8·ct_k/8,
  // kslice tile_n/8 · that, kb 512·tile_n/8, cb (K/512)·512·tile_n/8.
  // tile_n 64 (ct_k 128), K 512: t_in 1, i 8, tb 128, kslice 1024.
  PackedWeight p = PackedShape(64, 512, PackedLayout::kGemmTiles, 64);
  auto blk = [&](int64_t n, int64_t k0) { return BlockOffset(n, k0, p) / 9; };
  EXPECT_EQ(blk(0, 0), 0);
  EXPECT_EQ(blk(1, 0), 1);       // t_in
  EXPECT_EQ(blk(0, 8), 8);       // i
  EXPECT_EQ(blk(8, 0), 128);     // tb
  EXPECT_EQ(blk(0, 128), 1024);  // kslice
  EXPECT_EQ(blk(63, 504), 3 * 1024 + 7 * 128 + 15 * 8 + 7);  // the last block, 4095
  // tile_n 128 (ct_k 32), K 512: t_in 1, i 8, tb 32, kslice 16·32 = 512.
  p = PackedShape(128, 512, PackedLayout::kGemmTiles);
  EXPECT_EQ(blk(9, 8), 32 + 8 + 1);
  EXPECT_EQ(blk(0, 32), 512);
  EXPECT_EQ(blk(0, 40), 512 + 8);
  // tile_n 64, K 1024, N 128: kb 512·64/8 = 4096, cb 2·4096 = 8192.
  p = PackedShape(128, 1024, PackedLayout::kGemmTiles);
  EXPECT_EQ(p.tile_n, 64);
  EXPECT_EQ(blk(0, 512), 4096);
  EXPECT_EQ(blk(64, 0), 8192);
  EXPECT_EQ(blk(65, 520), 8192 + 4096 + 8 + 1);
}

TEST(PackedLayout, PackWeightPutsEachBlockWhereTheLayoutSays) {
  // W 16 × 64 (K pads to 512, tile_n 128) with one non-zero block: W[9][8..15] = 2.0.
  // Block (n 9, k0 8): tb 1 → 32, i 1 → 8, t_in 1 → 1: block 41, byte 369. 2.0 has exponent
  // 128, mantissa 2·2^5 = 64. Every other byte is 0 (zero blocks and padding).
  std::vector<float> w(16 * 64, 0.0f);
  for (int k = 8; k < 16; ++k) w[9 * 64 + k] = 2.0f;
  const PackedWeight p = PackWeight(w.data(), 16, 64);
  ASSERT_EQ(p.bytes.size(), 128u * 512 / 8 * 9);
  std::vector<uint8_t> want(p.bytes.size(), 0);
  want[369] = 128;
  for (int i = 1; i <= 8; ++i) want[369 + static_cast<size_t>(i)] = 64;
  EXPECT_EQ(p.bytes, want);
}

TEST(PackedLayout, GemvHeadLayoutIsPerEightRowsTheirKBlocksOf72Bytes) {
  // taconite model.rs `embed`: row r's block b is at (r/8)·(K/8·72) + b·72 + (r%8)·9.
  // 16 rows × K 16: row 9, block 1 (k 8..15) → 1·144 + 72 + 9 = 225.
  std::vector<float> w(16 * 16, 0.0f);
  for (int k = 8; k < 16; ++k) w[9 * 16 + k] = -1.0f;  // exponent 127, mantissa −64
  const PackedWeight p = PackWeight(w.data(), 16, 16, PackedLayout::kGemvRows);
  ASSERT_EQ(p.bytes.size(), 16u * 16 / 8 * 9);
  EXPECT_EQ(BlockOffset(9, 8, p), 225);
  std::vector<uint8_t> want(p.bytes.size(), 0);
  want[225] = 127;
  for (int i = 1; i <= 8; ++i) want[225 + static_cast<size_t>(i)] = U(-64);
  EXPECT_EQ(p.bytes, want);
}

TEST(PackedLayout, BlockOffsetIsABijectionForEveryTileN) {
  for (int64_t tn : {16, 32, 64, 128, 256}) {
    const PackedWeight p = PackedShape(2 * tn, 1024, PackedLayout::kGemmTiles, tn);
    std::vector<int> seen(static_cast<size_t>(p.n_pad * p.k_pad / 8), 0);
    for (int64_t n = 0; n < p.n_pad; ++n)
      for (int64_t k0 = 0; k0 < p.k_pad; k0 += 8) ++seen[static_cast<size_t>(BlockOffset(n, k0, p) / 9)];
    for (int s : seen) ASSERT_EQ(s, 1) << tn;
  }
}

TEST(PackedLayout, NonFiniteWeightsAreAnError) {
  std::vector<float> w(64 * 8, 0.5f);
  w[17] = NAN;
  EXPECT_THROW(PackWeight(w.data(), 64, 8), std::runtime_error);
}

}  // namespace
}  // namespace glance::kernels::npu
