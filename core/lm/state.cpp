#include "core/lm/state.h"

#include <algorithm>

#include "kernels/cpu/attention.h"
#include "kernels/cpu/numeric.h"

namespace glance::lm {

namespace {
// `rows` regrown to new_cap rows per head, the first `used` rows of each head kept.
template <class T>
void Regrow(std::vector<T>& rows, int64_t heads, int64_t old_cap, int64_t new_cap, int64_t used,
            int64_t dim) {
  std::vector<T> grown(static_cast<size_t>(heads * new_cap * dim));
  for (int64_t h = 0; h < heads; ++h)
    std::copy_n(rows.data() + h * old_cap * dim, used * dim, grown.data() + h * new_cap * dim);
  rows.swap(grown);
}
}  // namespace

void KvCache::Reserve(int64_t n, int64_t used) {
  if (n <= capacity) return;
  const int64_t new_cap = std::max<int64_t>({n, 2 * capacity, 64});
  if (type == KvType::kF16) {
    Regrow(keys_f16, n_kv_heads, capacity, new_cap, used, head_dim);
    Regrow(values_f16, n_kv_heads, capacity, new_cap, used, head_dim);
  } else {
    Regrow(keys, n_kv_heads, capacity, new_cap, used, head_dim);
    Regrow(values, n_kv_heads, capacity, new_cap, used, head_dim);
  }
  capacity = new_cap;
}

void KvCache::SetKey(int64_t head, int64_t pos, const float* row) {
  if (type == KvType::kF16)
    kernels::RoundToF16(row, head_dim, keys_f16.data() + offset(head, pos));
  else
    std::copy_n(row, head_dim, key_row(head, pos));
}

void KvCache::SetValue(int64_t head, int64_t pos, const float* row) {
  if (type == KvType::kF16)
    kernels::RoundToF16(row, head_dim, values_f16.data() + offset(head, pos));
  else
    std::copy_n(row, head_dim, value_row(head, pos));
}

void KvCache::GetKey(int64_t head, int64_t pos, float* row) const {
  if (type == KvType::kF16)
    std::transform(key_row_f16(head, pos), key_row_f16(head, pos) + head_dim, row, kernels::f16_to_f32);
  else
    std::copy_n(key_row(head, pos), head_dim, row);
}

void KvCache::GetValue(int64_t head, int64_t pos, float* row) const {
  if (type == KvType::kF16)
    std::transform(value_row_f16(head, pos), value_row_f16(head, pos) + head_dim, row, kernels::f16_to_f32);
  else
    std::copy_n(value_row(head, pos), head_dim, row);
}

size_t KvCache::ByteSize() const {
  return (keys.size() + values.size()) * sizeof(float) +
         (keys_f16.size() + values_f16.size()) * sizeof(uint16_t);
}

LmState::LmState(const TextConfig& cfg, KvType kv_type) {
  const size_t n = static_cast<size_t>(cfg.num_hidden_layers);
  linear.resize(n);
  kv.resize(n);
  for (size_t i = 0; i < n && i < cfg.layer_types.size(); ++i) {
    if (cfg.layer_types[i] == LayerType::kLinearAttention) {
      linear[i].conv_tail.assign(
          static_cast<size_t>(cfg.conv_dim() * (cfg.linear_conv_kernel_dim - 1)), 0.0f);
      linear[i].recurrent.assign(static_cast<size_t>(int64_t{cfg.linear_num_value_heads} *
                                                     cfg.linear_key_head_dim *
                                                     cfg.linear_value_head_dim),
                                 0.0f);
    } else {
      kv[i].n_kv_heads = cfg.num_key_value_heads;
      kv[i].head_dim = cfg.head_dim;
      kv[i].type = kv_type;
    }
  }
}

void LmState::Reset() {
  for (auto& l : linear) {
    std::fill(l.conv_tail.begin(), l.conv_tail.end(), 0.0f);
    std::fill(l.recurrent.begin(), l.recurrent.end(), 0.0f);
  }
  n_tokens = 0;
  rope_delta = 0;
  mtp.n_rows = 0;
  mtp.last_hidden.clear();
  hidden.Clear();
}

void LmState::KeepTokens(int64_t n, int64_t n_before, const RowStates& row_states, const float* hidden_row) {
  const int64_t dropped = n_tokens - n;
  if (dropped == 0) return;
  const size_t row = static_cast<size_t>(n - n_before - 1);
  for (size_t li = 0; li < linear.size(); ++li)
    if (!linear[li].recurrent.empty()) linear[li] = row_states.layers[li][row];
  n_tokens = n;  // KV rows past n_tokens are unused (the next forward overwrites them)
  if (mtp.active) {
    mtp.n_rows = std::max<int64_t>(0, mtp.n_rows - dropped);
    if (hidden_row) mtp.last_hidden.assign(hidden_row, hidden_row + mtp.last_hidden.size());
  }
}

size_t LmState::ByteSize() const {
  size_t bytes = sizeof(*this);
  for (const auto& l : linear) bytes += (l.conv_tail.size() + l.recurrent.size()) * sizeof(float);
  for (const auto& c : kv) bytes += c.ByteSize();
  bytes += mtp.kv.ByteSize() + mtp.last_hidden.size() * sizeof(float);
  bytes += hidden.ByteSize();
  return bytes;
}

void HiddenAttentionState::Clear() {
  positions.clear();
  layers.clear();
  pending_first = pending_rows = 0;
  pending_tracked.clear();
}

size_t HiddenAttentionState::ByteSize() const {
  size_t bytes = positions.size() * sizeof(int64_t) + pending_tracked.size();
  for (const Layer& l : layers) {
    for (const auto& w : l.w) bytes += w.size() * sizeof(float);
    for (const auto& z : l.z) bytes += z.size() * sizeof(float);
    bytes += (l.k.size() + l.beta.size() + l.g.size()) * sizeof(float);
  }
  return bytes;
}

}  // namespace glance::lm
