#include "core/lm/state.h"

#include <algorithm>

namespace glance::lm {

void KvCache::Reserve(int64_t n, int64_t used) {
  if (n <= capacity) return;
  const int64_t new_cap = std::max<int64_t>({n, 2 * capacity, 64});
  std::vector<float> nk(static_cast<size_t>(n_kv_heads * new_cap * head_dim));
  std::vector<float> nv(nk.size());
  for (int64_t h = 0; h < n_kv_heads; ++h) {
    const size_t src = static_cast<size_t>(h * capacity * head_dim);
    const size_t dst = static_cast<size_t>(h * new_cap * head_dim);
    const size_t len = static_cast<size_t>(used * head_dim);
    std::copy_n(keys.data() + src, len, nk.data() + dst);
    std::copy_n(values.data() + src, len, nv.data() + dst);
  }
  keys.swap(nk);
  values.swap(nv);
  capacity = new_cap;
}

LmState::LmState(const TextConfig& cfg) {
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
  for (const auto& c : kv) bytes += (c.keys.size() + c.values.size()) * sizeof(float);
  bytes += (mtp.kv.keys.size() + mtp.kv.values.size() + mtp.last_hidden.size()) * sizeof(float);
  return bytes;
}

}  // namespace glance::lm
