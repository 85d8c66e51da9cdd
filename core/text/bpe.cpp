#include "core/text/bpe.h"

#include <functional>
#include <limits>
#include <queue>

#include "core/util/error.h"

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

// Merging with a min-heap of candidate pairs keyed (rank, position), as HF tokenizers'
// models/bpe/word.rs merge_all does: popping the lowest rank, leftmost on ties, is the same
// order the plain "scan for the best pair" loop takes, but each merge costs O(log n) instead of
// O(n), so one long pre-token (1 MB of "thethe...") takes O(n log n) rather than O(n^2). The
// symbols form a linked list over their byte positions; a heap entry whose left or right symbol
// has changed since it was pushed is stale and skipped. Each merge pushes at most two entries,
// so the work per pre-token is bounded by about 3n heap operations.
void BpeModel::EncodeUncached(std::string_view word, std::vector<int32_t>& out) const {
  struct Symbol {
    int32_t id;
    int32_t prev;  // index of the previous live symbol, -1 at the start
    int32_t next;  // index of the next live symbol, -1 at the end
    bool alive;
  };
  struct Candidate {
    int32_t rank;
    int32_t pos;     // index of the left symbol
    int32_t left;    // ids the pair had when pushed
    int32_t right;
    int32_t merged;
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  if (word.empty()) return;
  if (word.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    throw Error("a single word of " + std::to_string(word.size()) + " bytes is too long to tokenize");
  const auto n = static_cast<int32_t>(word.size());
  std::vector<Symbol> sym(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i)
    sym[static_cast<size_t>(i)] = {byte_ids_[static_cast<unsigned char>(word[static_cast<size_t>(i)])], i - 1,
                                   i + 1 < n ? i + 1 : -1, true};
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  auto push_pair = [&](int32_t pos) {
    const Symbol& l = sym[static_cast<size_t>(pos)];
    if (l.next < 0) return;
    const Symbol& r = sym[static_cast<size_t>(l.next)];
    auto it = merges_.find(Key(l.id, r.id));
    if (it != merges_.end()) heap.push({it->second.rank, pos, l.id, r.id, it->second.merged});
  };
  for (int32_t i = 0; i + 1 < n; ++i) push_pair(i);
  while (!heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    Symbol& l = sym[static_cast<size_t>(c.pos)];
    if (!l.alive || l.id != c.left || l.next < 0) continue;
    Symbol& r = sym[static_cast<size_t>(l.next)];
    if (r.id != c.right) continue;
    l.id = c.merged;
    r.alive = false;
    l.next = r.next;
    if (r.next >= 0) sym[static_cast<size_t>(r.next)].prev = c.pos;
    if (l.prev >= 0) push_pair(l.prev);
    push_pair(c.pos);
  }
  for (int32_t i = 0; i >= 0; i = sym[static_cast<size_t>(i)].next) out.push_back(sym[static_cast<size_t>(i)].id);
}

}  // namespace glance::text
