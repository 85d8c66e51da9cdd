#pragma once
// Where a Q4 or Q8 matrix keeps each block (issue 14: the speculative verify's multi-row GEMV).
//
// A block's bytes and its scale are the same as in the plain row order (quant_formats.h), but
// the matrix is stored in panels of 16 consecutive rows, and inside a panel the rows' blocks
// are interleaved so that one register's int32 lane l holds row l: for panel p (rows
// p0 = 16p .. p0 + t − 1, t = 16 except a last panel of rows % 16 rows) and block b,
//
//   Q4 (16 bytes a block, bf16 scales): dword c (bytes 4c .. 4c + 3) of row l at byte
//       p0·nb·16 + b·t·16 + c·t·4 + l·4
//   Q6 (24 bytes a block, bf16 scales): as Q4 with six dwords a block (4 of nibbles, 2 of top
//       bits): dword c of row l at byte p0·nb·24 + b·t·24 + c·t·4 + l·4
//   Q8 (32 bytes a block, f32 scales):  pair c (elements 2c, 2c + 1) of row l at byte
//       p0·nb·32 + b·t·32 + c·t·2 + l·2
//
// and that row's scale of block b at index p0·nb + b·t + l (both formats).
// So the 16 rows' dword c of one Q4 block are 64 contiguous bytes — one 512-bit register whose
// int32 lane l belongs to row l; a u8×s8 dot product with four activation bytes broadcast to
// every lane adds four products to each row's own lane. The 16 rows' pair c of one Q8 block
// are 32 bytes, which sign-extend to 32 int16 — again lane l = row l's (w[2c], w[2c + 1]) — and
// an int16 dot product (vpdpwssd / vpmaddwd) with the activation pair (x[2c], x[2c + 1])
// broadcast adds two products to each lane. Either way the decoding of the weights (loads,
// nibble masks, sign extension) is shared by every activation row, and a block's scales are
// applied to 16 rows with one multiply-add per activation row (gemv_int8_body.inc,
// TileQ4Panels and TileQ8Panels). In the row-by-row layout each activation row paid its own
// per-block reduction and scaling for every weight row, so the GEMV turned compute-bound from
// two activation rows (Q4: 2 rows cost 1.76× one on a 65536 × 2048 matrix; the Q8 LM head of a
// 2B q4 model 1.46–1.70×).
// The same idea is what llama.cpp's Q4_0 / Q8_0 "repack" layouts do (ggml-cpu repack.cpp,
// block interleaving across rows); these layouts are Glance's own.
//
// With one row the layouts are the plain row-by-row order. Every reader of Q4/Q8 data goes
// through the offsets below; blocks are written with StoreQ4Row / StoreQ8Row.
#include <cstdint>

namespace glance::kernels {

constexpr int64_t kPanelRows = 16;

// First row of r's panel, and the panel's row count.
inline int64_t PanelStart(int64_t r) { return r / kPanelRows * kPanelRows; }
inline int64_t PanelWidth(int64_t rows, int64_t r) {
  const int64_t left = rows - PanelStart(r);
  return left < kPanelRows ? left : kPanelRows;
}

// Index (in scales) of row r's block b, Q4 and Q8 alike.
inline int64_t PanelScaleIndex(int64_t rows, int64_t nb, int64_t r, int64_t b) {
  const int64_t p0 = PanelStart(r), t = PanelWidth(rows, r);
  return p0 * nb + b * t + (r - p0);
}

// Byte offset of chunk c of block b of row r, for blocks of kBlockBytes bytes moved in chunks
// of kChunkBytes: p0·nb·B + b·t·B + c·t·C + l·C (B = kBlockBytes, C = kChunkBytes).
template <int64_t kBlockBytes, int64_t kChunkBytes>
inline int64_t PanelChunkOffset(int64_t rows, int64_t nb, int64_t r, int64_t b, int64_t c) {
  const int64_t p0 = PanelStart(r), t = PanelWidth(rows, r);
  return p0 * nb * kBlockBytes + b * t * kBlockBytes + (c * t + (r - p0)) * kChunkBytes;
}

// Row r's block b in the plain order.
template <int64_t kBlockBytes, int64_t kChunkBytes, class T>
inline void LoadPanelBlock(const T* data, int64_t rows, int64_t nb, int64_t r, int64_t b, T* out) {
  for (int64_t c = 0; c < kBlockBytes / kChunkBytes; ++c) {
    const T* d = data + PanelChunkOffset<kBlockBytes, kChunkBytes>(rows, nb, r, b, c);
    for (int64_t j = 0; j < kChunkBytes; ++j) out[c * kChunkBytes + j] = d[j];
  }
}

// Writes row r (nb blocks in the plain order, nb scales) into the panel layout.
template <int64_t kBlockBytes, int64_t kChunkBytes, class T, class S>
inline void StorePanelRow(const T* row_blocks, const S* row_scales, int64_t rows, int64_t nb, int64_t r,
                          T* data, S* scales) {
  for (int64_t b = 0; b < nb; ++b) {
    for (int64_t c = 0; c < kBlockBytes / kChunkBytes; ++c) {
      T* d = data + PanelChunkOffset<kBlockBytes, kChunkBytes>(rows, nb, r, b, c);
      for (int64_t j = 0; j < kChunkBytes; ++j) d[j] = row_blocks[b * kBlockBytes + c * kChunkBytes + j];
    }
    scales[PanelScaleIndex(rows, nb, r, b)] = row_scales[b];
  }
}

// ---- Q4: 16-byte blocks moved by dword; bf16 scales ----

// Byte offset of dword c (0..3) of block b of row r in a Q4 matrix of `rows` rows, nb blocks.
inline int64_t Q4DwordOffset(int64_t rows, int64_t nb, int64_t r, int64_t b, int64_t c) {
  return PanelChunkOffset<16, 4>(rows, nb, r, b, c);
}
inline void LoadQ4Block(const uint8_t* data, int64_t rows, int64_t nb, int64_t r, int64_t b,
                        uint8_t out[16]) {
  LoadPanelBlock<16, 4>(data, rows, nb, r, b, out);
}
inline void StoreQ4Row(const uint8_t* row_blocks, const uint16_t* row_scales, int64_t rows,
                       int64_t nb, int64_t r, uint8_t* data, uint16_t* scales) {
  StorePanelRow<16, 4>(row_blocks, row_scales, rows, nb, r, data, scales);
}

// ---- Q6: 24-byte blocks moved by dword (0..3 nibbles as Q4, 4..5 the top bits); bf16 scales ----

inline int64_t Q6DwordOffset(int64_t rows, int64_t nb, int64_t r, int64_t b, int64_t c) {
  return PanelChunkOffset<24, 4>(rows, nb, r, b, c);
}
inline void LoadQ6Block(const uint8_t* data, int64_t rows, int64_t nb, int64_t r, int64_t b,
                        uint8_t out[24]) {
  LoadPanelBlock<24, 4>(data, rows, nb, r, b, out);
}
inline void StoreQ6Row(const uint8_t* row_blocks, const uint16_t* row_scales, int64_t rows,
                       int64_t nb, int64_t r, uint8_t* data, uint16_t* scales) {
  StorePanelRow<24, 4>(row_blocks, row_scales, rows, nb, r, data, scales);
}

// ---- Q8: 32-byte blocks moved by pair (elements 2c, 2c + 1); f32 scales ----

inline int64_t Q8PairOffset(int64_t rows, int64_t nb, int64_t r, int64_t b, int64_t c) {
  return PanelChunkOffset<32, 2>(rows, nb, r, b, c);
}
inline void LoadQ8Block(const int8_t* data, int64_t rows, int64_t nb, int64_t r, int64_t b,
                        int8_t out[32]) {
  LoadPanelBlock<32, 2>(data, rows, nb, r, b, out);
}
inline void StoreQ8Row(const int8_t* row_blocks, const float* row_scales, int64_t rows, int64_t nb,
                       int64_t r, int8_t* data, float* scales) {
  StorePanelRow<32, 2>(row_blocks, row_scales, rows, nb, r, data, scales);
}

}  // namespace glance::kernels
