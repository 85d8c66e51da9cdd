#include "core/text/bpe.h"

#include <limits>

namespace glance::text {

bool BpeModel::AddMerge(int32_t left, int32_t right, int32_t merged) {
  const auto rank = static_cast<int32_t>(merges_.size());
  return merges_.emplace(Key(left, right), Merge{rank, merged}).second;
}

void BpeModel::Encode(std::string_view word, std::vector<int32_t>& out) const {
  if (word.size() > kMaxCachedWordBytes) {
    EncodeUncached(word, out);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    auto it = cache_.find(word);  // string_view lookup: no allocation on a hit
    if (it != cache_.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  const size_t start = out.size();
  EncodeUncached(word, out);
  std::vector<int32_t> ids(out.begin() + static_cast<std::ptrdiff_t>(start), out.end());
  std::lock_guard<std::mutex> lock(cache_mutex_);
  if (cache_.size() >= kMaxCacheEntries) cache_.clear();  // bound memory on huge inputs
  cache_.emplace(std::string(word), std::move(ids));
}

void BpeModel::EncodeUncached(std::string_view word, std::vector<int32_t>& out) const {
  constexpr int32_t kNoMerge = std::numeric_limits<int32_t>::max();
  std::vector<int32_t> sym;
  sym.reserve(word.size());
  for (char c : word) sym.push_back(byte_ids_[static_cast<unsigned char>(c)]);
  // rank[i] = rank of merging sym[i] with sym[i+1]; recomputed only next to each merge.
  auto rank_of = [&](size_t i, int32_t* merged) {
    auto it = merges_.find(Key(sym[i], sym[i + 1]));
    if (it == merges_.end()) return kNoMerge;
    if (merged) *merged = it->second.merged;
    return it->second.rank;
  };
  std::vector<int32_t> rank(sym.size() > 0 ? sym.size() - 1 : 0);
  for (size_t i = 0; i + 1 < sym.size(); ++i) rank[i] = rank_of(i, nullptr);
  while (sym.size() > 1) {
    size_t best = 0;
    for (size_t i = 1; i < rank.size(); ++i)
      if (rank[i] < rank[best]) best = i;
    if (rank[best] == kNoMerge) break;
    int32_t merged = 0;
    rank_of(best, &merged);
    sym[best] = merged;
    sym.erase(sym.begin() + static_cast<std::ptrdiff_t>(best) + 1);
    rank.erase(rank.begin() + static_cast<std::ptrdiff_t>(best));
    if (best > 0) rank[best - 1] = rank_of(best - 1, nullptr);
    if (best < rank.size()) rank[best] = rank_of(best, nullptr);
  }
  out.insert(out.end(), sym.begin(), sym.end());
}

}  // namespace glance::text
