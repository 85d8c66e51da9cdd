#pragma once
// Byte-pair encoding of one pre-tokenized word (HF tokenizers models/bpe/model.rs): start from
// one symbol per byte and repeatedly merge the adjacent pair of lowest merge rank (leftmost on
// ties) until no pair has a merge. Works in id space: a merge is (left id, right id) -> merged id.
// Thread contract: Add* only during loading; Encode is safe from many threads (cache mutex).
#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace glance::text {

class BpeModel {
 public:
  // Id of the single-byte token for each byte value (byte-level alphabet).
  void SetByteIds(const std::array<int32_t, 256>& ids) { byte_ids_ = ids; }
  void ReserveMerges(size_t n) { merges_.reserve(n); }
  // Rank = order of calls. Returns false if the pair already had a merge (first one wins, as HF).
  bool AddMerge(int32_t left, int32_t right, int32_t merged);
  size_t merge_count() const { return merges_.size(); }

  // Appends the ids of `word` (raw bytes of one pre-token) to `out`.
  void Encode(std::string_view word, std::vector<int32_t>& out) const;

 private:
  struct Merge {
    int32_t rank;
    int32_t merged;
  };
  static uint64_t Key(int32_t l, int32_t r) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(l)) << 32) | static_cast<uint32_t>(r);
  }
  void EncodeUncached(std::string_view word, std::vector<int32_t>& out) const;

  std::array<int32_t, 256> byte_ids_{};
  std::unordered_map<uint64_t, Merge> merges_;

  // Per-word cache: prose repeats words constantly, so most words skip BPE entirely.
  static constexpr size_t kMaxCachedWordBytes = 64;
  static constexpr size_t kMaxCacheEntries = 200000;
  mutable std::mutex cache_mutex_;
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  mutable std::unordered_map<std::string, std::vector<int32_t>, Hash, std::equal_to<>> cache_;
};

}  // namespace glance::text
