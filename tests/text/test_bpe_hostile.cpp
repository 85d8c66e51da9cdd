// BPE merge order against a plain reference, and the cost of one very long word (issue 12,
// item 6): the heap-based merge must give the ids the textbook loop gives, and 1 MB of one word
// must tokenize in seconds, not minutes.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <random>

#include "core/text/tokenizer.h"
#include "tests/text/text_test_util.h"

namespace glance {
namespace {

using test::ReadJson;
using test::TinyA;

const Tokenizer& Tiny() {
  static const Tokenizer t = Tokenizer::FromFile(TinyA("tokenizer.json"));
  return t;
}

// The textbook BPE (Sennrich et al. 2016; HF tokenizers' documented semantics) over strings,
// straight from tokenizer.json: start from single characters, repeatedly merge the adjacent
// pair of lowest merge rank, leftmost on ties. O(n^2); for lowercase ASCII the byte-level
// alphabet is the letters themselves, so no byte mapping is needed.
class ReferenceBpe {
 public:
  ReferenceBpe() {
    const auto j = ReadJson(TinyA("tokenizer.json"));
    for (auto it = j["model"]["vocab"].begin(); it != j["model"]["vocab"].end(); ++it)
      vocab_[it.key()] = it.value().get<int32_t>();
    int32_t rank = 0;
    for (const auto& m : j["model"]["merges"]) {
      std::pair<std::string, std::string> p;
      if (m.is_string()) {
        const std::string s = m.get<std::string>();
        p = {s.substr(0, s.find(' ')), s.substr(s.find(' ') + 1)};
      } else {
        p = {m[0].get<std::string>(), m[1].get<std::string>()};
      }
      ranks_.emplace(p, rank++);
    }
  }
  std::vector<int32_t> Encode(const std::string& word) const {
    std::vector<std::string> sym;
    for (char c : word) sym.emplace_back(1, c);
    for (;;) {
      size_t best = sym.size();
      int32_t best_rank = INT32_MAX;
      for (size_t i = 0; i + 1 < sym.size(); ++i) {
        auto it = ranks_.find({sym[i], sym[i + 1]});
        if (it != ranks_.end() && it->second < best_rank) {
          best_rank = it->second;
          best = i;
        }
      }
      if (best == sym.size()) break;
      sym[best] += sym[best + 1];
      sym.erase(sym.begin() + static_cast<long>(best) + 1);
    }
    std::vector<int32_t> ids;
    for (const auto& s : sym) ids.push_back(vocab_.at(s));
    return ids;
  }

 private:
  std::map<std::string, int32_t> vocab_;
  std::map<std::pair<std::string, std::string>, int32_t> ranks_;
};

TEST(BpeMergeOrder, MatchesTheTextbookLoopOnRandomWords) {
  const ReferenceBpe ref;
  std::mt19937 rng(12);
  int compared = 0;
  for (const std::string alphabet : {"the", "theaqsn", "abcdefghijklmnopqrstuvwxyz", "a"}) {
    for (int n = 0; n < 150; ++n) {
      std::string word;
      const size_t len = 1 + rng() % 300;
      for (size_t i = 0; i < len; ++i) word += alphabet[rng() % alphabet.size()];
      ASSERT_EQ(Tiny().Encode(word), ref.Encode(word)) << word;
      ++compared;
    }
  }
  std::string thethe;
  for (int i = 0; i < 500; ++i) thethe += "the";
  EXPECT_EQ(Tiny().Encode(thethe), ref.Encode(thethe));
  EXPECT_EQ(compared, 600);
  // Negative control: the reference is sensitive to merge order (reversed word, different ids).
  EXPECT_NE(ref.Encode("thethethe"), ref.Encode("ehtehteht"));
}

double SecondsToEncode(const std::string& text, std::vector<int32_t>* ids) {
  const auto t0 = std::chrono::steady_clock::now();
  *ids = Tiny().Encode(text);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(BpeMergeOrder, OneMegabyteWordTakesSeconds) {
  // Before the heap, 100 kB of this took 29 s and 1 MB more than 300 s (quadratic).
  std::string thethe;
  while (thethe.size() < (1u << 20)) thethe += "the";
  std::vector<int32_t> ids;
  const double s = SecondsToEncode(thethe, &ids);
  EXPECT_LT(s, 10.0) << "1 MB of 'thethe...' took " << s << " s";
  EXPECT_EQ(Tiny().Decode(ids), thethe);
  // Random letters and a single repeated byte: other merge shapes, same bound.
  std::mt19937 rng(7);
  std::string random;
  for (size_t i = 0; i < (1u << 20); ++i) random += static_cast<char>('a' + rng() % 26);
  EXPECT_LT(SecondsToEncode(random, &ids), 10.0);
  EXPECT_EQ(Tiny().Decode(ids), random);
  EXPECT_LT(SecondsToEncode(std::string(1u << 20, 'a'), &ids), 10.0);
}

}  // namespace
}  // namespace glance
