#pragma once
// Where a Q4 matrix keeps each block (issue 14: the speculative verify's multi-row GEMV).
//
// A Q4 block's 16 bytes are the same as ever (quant_formats.h: byte j = element j in its low
// nibble, element j + 16 in its high nibble) and so is its bf16 scale, but the matrix is stored
// in panels of 16 consecutive rows, and inside a panel the blocks are interleaved by 4-byte
// dword: for panel p (rows 16p .. 16p + t − 1, t = 16 except a last panel of rows % 16 rows),
// block b, dword c (bytes 4c .. 4c + 3 of the block) of the panel's row l sits at byte
//     16p·nb·16 + b·t·16 + c·t·4 + l·4,
// and that row's scale of block b at index 16p·nb + b·t + l.
// So the 16 rows' dword c of one block are 64 contiguous bytes: one 512-bit register (or two
// 256-bit ones) whose int32 lane l belongs to row l. A u8×s8 dot product of that register with
// four activation bytes broadcast to every lane sums four products into each row's own lane;
// eight of them (four dwords, low and high nibbles) give every row's whole-block integer sum
// in one register, and the block's scales are applied to 16 rows with one multiply-add per
// activation row (gemv_int8_body.inc, TileQ4Panels). In the row-by-row layout, each activation
// row paid its own per-block reduction and scaling for every weight row, so the GEMV was
// compute-bound from two activation rows (2 rows cost 1.76× one on a 65536 × 2048 matrix).
// The same idea is what llama.cpp's Q4_0 "repack" layouts do (ggml-cpu repack.cpp, block
// interleaving across rows); this layout is Glance's own.
//
// With one row (or 16 rows · 1 block) the layout is the plain row-by-row one. Every reader of
// Q4 data goes through the offsets below; blocks are written with StoreQ4Row.
#include <cstdint>

namespace glance::kernels {

constexpr int64_t kQ4PanelRows = 16;

// First row of r's panel, and the panel's row count.
inline int64_t Q4PanelStart(int64_t r) { return r / kQ4PanelRows * kQ4PanelRows; }
inline int64_t Q4PanelWidth(int64_t rows, int64_t r) {
  const int64_t left = rows - Q4PanelStart(r);
  return left < kQ4PanelRows ? left : kQ4PanelRows;
}

// Byte offset of dword c (0..3) of block b of row r in a Q4 matrix of `rows` rows, nb blocks.
inline int64_t Q4DwordOffset(int64_t rows, int64_t nb, int64_t r, int64_t b, int64_t c) {
  const int64_t p0 = Q4PanelStart(r), t = Q4PanelWidth(rows, r);
  return p0 * nb * 16 + (b * t * 4 + c * t + (r - p0)) * 4;
}

// Index (in bf16 scales) of row r's block b.
inline int64_t Q4ScaleIndex(int64_t rows, int64_t nb, int64_t r, int64_t b) {
  const int64_t p0 = Q4PanelStart(r), t = Q4PanelWidth(rows, r);
  return p0 * nb + b * t + (r - p0);
}

// Row r's block b in the plain 16-byte order (quant_formats.h).
inline void LoadQ4Block(const uint8_t* data, int64_t rows, int64_t nb, int64_t r, int64_t b,
                        uint8_t out[16]) {
  for (int64_t c = 0; c < 4; ++c) {
    const uint8_t* d = data + Q4DwordOffset(rows, nb, r, b, c);
    for (int64_t j = 0; j < 4; ++j) out[c * 4 + j] = d[j];
  }
}

// Writes row r (nb blocks in the plain order, nb bf16 scales) into the panel layout.
inline void StoreQ4Row(const uint8_t* row_blocks, const uint16_t* row_scales, int64_t rows,
                       int64_t nb, int64_t r, uint8_t* data, uint16_t* scales) {
  for (int64_t b = 0; b < nb; ++b) {
    for (int64_t c = 0; c < 4; ++c) {
      uint8_t* d = data + Q4DwordOffset(rows, nb, r, b, c);
      for (int64_t j = 0; j < 4; ++j) d[j] = row_blocks[b * 16 + c * 4 + j];
    }
    scales[Q4ScaleIndex(rows, nb, r, b)] = row_scales[b];
  }
}

}  // namespace glance::kernels
