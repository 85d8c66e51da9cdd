// StreamDecoder: only complete UTF-8 comes out, and the stream equals the batch decode.
#include <gtest/gtest.h>

#include "core/text/stream_decoder.h"
#include "core/text/utf8.h"
#include "core/util/error.h"
#include "tests/text/text_test_util.h"

namespace glance {
namespace {

const Tokenizer& Tiny() {
  static const Tokenizer t = Tokenizer::FromFile(test::TinyA("tokenizer.json"));
  return t;
}

// Streams `ids` and checks every chunk is valid UTF-8 and the total equals Decode().
std::vector<std::string> StreamAll(const std::vector<int32_t>& ids, bool skip_special = false) {
  StreamDecoder d(Tiny(), skip_special);
  std::vector<std::string> chunks;
  for (int32_t id : ids) chunks.push_back(d.Push(id));
  chunks.push_back(d.Flush());
  std::string all;
  for (const auto& c : chunks) {
    EXPECT_EQ(text::FindInvalidUtf8(c), std::string::npos) << "chunk is not valid UTF-8";
    all += c;
  }
  EXPECT_EQ(all, Tiny().Decode(ids, skip_special));
  return chunks;
}

TEST(StreamDecoder, MultibyteCharactersSplitAcrossTokens) {
  // Emoji with skin tone, CJK, Devanagari and combining marks: byte tokens split them.
  for (const std::string text : {"😀👍🏽🚀 emoji ❤️", "你好，世界！今天天气很好。", "नमस्ते दुनिया",
                                 "x\xCC\x81y \xCC\x81" "abc a\xE1\xB8\x85\xCC\x88" "c"}) {
    SCOPED_TRACE(text);
    const auto ids = Tiny().Encode(text);
    bool split_somewhere = false;
    for (int32_t id : ids)
      if (text::FindInvalidUtf8(Tiny().TokenBytes(id)) != std::string::npos) split_somewhere = true;
    EXPECT_TRUE(split_somewhere) << "test text should contain a character split across tokens";
    const auto chunks = StreamAll(ids);
    std::string all;
    for (const auto& c : chunks) all += c;
    EXPECT_EQ(all, Tiny().Decode(ids));
  }
}

TEST(StreamDecoder, HoldsBackIncompleteTail) {
  const auto ids = Tiny().Encode("😀");
  ASSERT_GE(ids.size(), 2u);
  StreamDecoder d(Tiny());
  for (size_t i = 0; i + 1 < ids.size(); ++i) EXPECT_EQ(d.Push(ids[i]), "");
  EXPECT_EQ(d.Push(ids.back()), "😀");
  EXPECT_EQ(d.Flush(), "");
}

TEST(StreamDecoder, FlushReplacesDanglingBytes) {
  const auto ids = Tiny().Encode("😀");
  StreamDecoder d(Tiny());
  EXPECT_EQ(d.Push(ids[0]), "");
  EXPECT_EQ(d.Flush(), "\xEF\xBF\xBD");
  EXPECT_EQ(d.Flush(), "");
}

TEST(StreamDecoder, InvalidSequencesMatchBatchDecode) {
  // Start of an emoji followed by ASCII: the broken prefix becomes U+FFFD in both paths.
  const auto emoji = Tiny().Encode("😀");
  auto ids = Tiny().Encode("ab");
  ids.insert(ids.begin() + 1, emoji[0]);
  StreamAll(ids);
}

TEST(StreamDecoder, SpecialTokensAndSkipping) {
  const auto ids = Tiny().Encode("<|im_start|>user\nHi 你好<|im_end|>");
  StreamAll(ids, false);
  StreamAll(ids, true);
  StreamDecoder d(Tiny());
  EXPECT_THROW(d.Push(-1), Error);
}

}  // namespace
}  // namespace glance
