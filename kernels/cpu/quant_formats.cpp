#include "kernels/cpu/quant_formats.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "kernels/cpu/numeric.h"
#include "kernels/cpu/weight_panels.h"
#include "kernels/cpu/thread_pool.h"

namespace glance::kernels {

void QuantizeRowQ8(const float* src, int64_t cols, int8_t* q, float* scales) {
  const int64_t nb = QuantBlocks(cols);
  for (int64_t b = 0; b < nb; ++b) {
    const int64_t k0 = b * kQuantBlock, n = std::min(kQuantBlock, cols - k0);
    scales[b] = QuantizeBlockAbsmax<int8_t, 127, Rounding::kHalfAwayFromZero, Reciprocal::kOfScale>(
        src + k0, n, q + k0);
  }
}

namespace {

// Q4 and Q6: the element of largest magnitude m maps to −kHalf exactly (scale = bf16(m / −kHalf)),
// the rest round to nearest and clamp to [−kHalf, kHalf − 1]; u = q + kHalf per element.
template <int kHalf>
uint16_t QuantizeBlockSigned(const float* x, int64_t n, uint8_t u[kQuantBlock]) {
  float m = 0.0f;  // signed value of largest magnitude
  for (int64_t j = 0; j < n; ++j)
    if (std::fabs(x[j]) > std::fabs(m)) m = x[j];
  const uint16_t d16 = f32_to_bf16(m / -static_cast<float>(kHalf));
  const float d = bf16_to_f32(d16);
  const float inv = d != 0.0f ? 1.0f / d : 0.0f;
  for (int64_t j = 0; j < kQuantBlock; ++j) {
    const float v = j < n ? x[j] * inv : 0.0f;
    u[j] = static_cast<uint8_t>(std::clamp(std::lround(v), -static_cast<long>(kHalf), kHalf - 1L) + kHalf);
  }
  return d16;
}

}  // namespace

void QuantizeRowQ4(const float* src, int64_t cols, uint8_t* packed, uint16_t* scales_bf16) {
  const int64_t nb = QuantBlocks(cols);
  for (int64_t b = 0; b < nb; ++b) {
    const int64_t k0 = b * kQuantBlock, n = std::min(kQuantBlock, cols - k0);
    uint8_t nib[kQuantBlock];
    scales_bf16[b] = QuantizeBlockSigned<8>(src + k0, n, nib);
    for (int64_t j = 0; j < 16; ++j)
      packed[b * 16 + j] = static_cast<uint8_t>(nib[j] | (nib[j + 16] << 4));
  }
}

void QuantizeRowQ6(const float* src, int64_t cols, uint8_t* packed, uint16_t* scales_bf16) {
  const int64_t nb = QuantBlocks(cols);
  for (int64_t b = 0; b < nb; ++b) {
    const int64_t k0 = b * kQuantBlock, n = std::min(kQuantBlock, cols - k0);
    uint8_t u[kQuantBlock];
    scales_bf16[b] = QuantizeBlockSigned<32>(src + k0, n, u);
    uint8_t* blk = packed + b * 24;
    for (int64_t j = 0; j < 16; ++j) blk[j] = static_cast<uint8_t>((u[j] & 0xf) | ((u[j + 16] & 0xf) << 4));
    for (int64_t i = 16; i < 24; ++i) blk[i] = 0;
    // Top bits (quant_formats.h): byte k of top dword d, pair p = (c odd ? 2 : 0) + (high half).
    for (int64_t j = 0; j < kQuantBlock; ++j) {
      const int64_t i = j & 15, c = i / 4, k = i & 3, d = c / 2;
      const int pair = static_cast<int>((c & 1) * 2 + (j >= 16 ? 1 : 0));
      blk[16 + 4 * d + k] = static_cast<uint8_t>(blk[16 + 4 * d + k] | ((u[j] >> 4) << (2 * pair)));
    }
  }
}

void RepackCompressedTensorsQ4Row(const int32_t* words, int64_t cols, uint8_t* packed) {
  const int64_t nb = QuantBlocks(cols);
  std::memset(packed, 0x88, static_cast<size_t>(nb * 16));  // padding = nibble 8 = q 0
  for (int64_t k = 0; k < cols; ++k) {
    const uint32_t word = static_cast<uint32_t>(words[k / 8]);
    const uint8_t nib = static_cast<uint8_t>((word >> (4 * (k % 8))) & 0xfu);
    const int64_t b = k / kQuantBlock, j = k % kQuantBlock;
    uint8_t& byte = packed[b * 16 + (j & 15)];
    byte = j < 16 ? static_cast<uint8_t>((byte & 0xf0) | nib)
                  : static_cast<uint8_t>((byte & 0x0f) | (nib << 4));
  }
}

uint64_t WeightBytes(WeightType type, int64_t rows, int64_t cols) {
  const uint64_t r = static_cast<uint64_t>(rows), c = static_cast<uint64_t>(cols);
  const uint64_t nb = static_cast<uint64_t>(QuantBlocks(cols));
  switch (type) {
    case WeightType::F32: return r * c * 4;
    case WeightType::BF16:
    case WeightType::F16: return r * c * 2;
    case WeightType::Q8: return r * nb * (32 + 4);
    case WeightType::Q4: return r * nb * (16 + 2);
    case WeightType::Q6: return r * nb * (24 + 2);
  }
  return 0;
}

namespace {
struct QuantStorage {
  std::vector<uint8_t> data;
  std::vector<uint8_t> scales;
};
}  // namespace

WeightRef QuantizeMatrix(const WeightRef& src, WeightType target, ThreadPool* pool) {
  auto st = std::make_shared<QuantStorage>();
  const int64_t rows = src.rows, cols = src.cols, nb = QuantBlocks(cols);
  size_t row_bytes = 0, row_scale_bytes = 0;
  switch (target) {
    case WeightType::Q8: row_bytes = static_cast<size_t>(nb * 32); row_scale_bytes = static_cast<size_t>(nb * 4); break;
    case WeightType::Q4: row_bytes = static_cast<size_t>(nb * 16); row_scale_bytes = static_cast<size_t>(nb * 2); break;
    case WeightType::Q6: row_bytes = static_cast<size_t>(nb * 24); row_scale_bytes = static_cast<size_t>(nb * 2); break;
    case WeightType::BF16: row_bytes = static_cast<size_t>(cols * 2); break;
    default: return src;  // F32/F16 targets: nothing to prepare
  }
  st->data.resize(row_bytes * static_cast<size_t>(rows));
  st->scales.resize(row_scale_bytes * static_cast<size_t>(rows));
  auto body = [&](size_t begin, size_t end) {
    std::vector<float> row(static_cast<size_t>(cols));
    std::vector<int8_t> q8_row(target == WeightType::Q8 ? static_cast<size_t>(nb * 32) : 0);
    std::vector<float> q8_scales(target == WeightType::Q8 ? static_cast<size_t>(nb) : 0);
    std::vector<uint8_t> q4_row(target == WeightType::Q4 || target == WeightType::Q6
                                    ? static_cast<size_t>(nb * (target == WeightType::Q6 ? 24 : 16)) : 0);
    std::vector<uint16_t> q4_scales(target == WeightType::Q4 || target == WeightType::Q6 ? static_cast<size_t>(nb) : 0);
    for (size_t r = begin; r < end; ++r) {
      src.row_to_f32(static_cast<int64_t>(r), row.data());
      uint8_t* d = st->data.data() + r * row_bytes;
      if (target == WeightType::Q8) {  // quantized in row order, stored in panels
        QuantizeRowQ8(row.data(), cols, q8_row.data(), q8_scales.data());
        StoreQ8Row(q8_row.data(), q8_scales.data(), rows, nb, static_cast<int64_t>(r),
                   reinterpret_cast<int8_t*>(st->data.data()), reinterpret_cast<float*>(st->scales.data()));
      } else if (target == WeightType::Q4) {  // quantized in row order, stored in panels
        QuantizeRowQ4(row.data(), cols, q4_row.data(), q4_scales.data());
        StoreQ4Row(q4_row.data(), q4_scales.data(), rows, nb, static_cast<int64_t>(r), st->data.data(),
                   reinterpret_cast<uint16_t*>(st->scales.data()));
      } else if (target == WeightType::Q6) {
        QuantizeRowQ6(row.data(), cols, q4_row.data(), q4_scales.data());
        StoreQ6Row(q4_row.data(), q4_scales.data(), rows, nb, static_cast<int64_t>(r), st->data.data(),
                   reinterpret_cast<uint16_t*>(st->scales.data()));
      } else {
        uint16_t* o = reinterpret_cast<uint16_t*>(d);
        for (int64_t k = 0; k < cols; ++k) o[k] = f32_to_bf16(row[static_cast<size_t>(k)]);
      }
    }
  };
  ParallelFor(pool, static_cast<size_t>(rows), body, 8);
  WeightRef w;
  w.type = target;
  w.rows = rows;
  w.cols = cols;
  w.data = st->data.data();
  w.scales = st->scales.empty() ? nullptr : st->scales.data();
  w.owner = st;
  return w;
}

void QuantizeActivations(const float* x, int64_t n_rows, int64_t cols, QuantizedActivations* out) {
  const int64_t nb = QuantBlocks(cols), kp = nb * kQuantBlock;
  out->n_rows = n_rows;
  out->blocks = nb;
  out->q.assign(static_cast<size_t>(n_rows * kp), 0);
  out->s.assign(static_cast<size_t>(n_rows * nb), 0.0f);
  for (int64_t i = 0; i < n_rows; ++i) {
    const float* xr = x + i * cols;
    int16_t* qr = out->q.data() + i * kp;
    float* sr = out->s.data() + i * nb;
    for (int64_t b = 0; b < nb; ++b) {
      const int64_t k0 = b * kQuantBlock, n = std::min(kQuantBlock, cols - k0);
      sr[b] = QuantizeBlockAbsmax<int16_t, 32767, Rounding::kHalfAwayFromZero, Reciprocal::kOfScale>(
          xr + k0, n, qr + k0);
    }
  }
}

}  // namespace glance::kernels
