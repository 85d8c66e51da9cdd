// Tokenizer files the loader must refuse with a clear glance::Error (never crash).
#include <filesystem>

#include <gtest/gtest.h>

#include "core/text/tokenizer.h"
#include "core/util/error.h"
#include "tests/text/text_test_util.h"

namespace glance {
namespace {

namespace fs = std::filesystem;
using test::ReadFile;
using test::ReadJson;
using test::TinyA;
using test::WriteFile;

class TokenizerErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("glance_text_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Loads `json_text` from a file and returns the error message ("" if it loaded).
  std::string LoadError(const std::string& json_text) {
    const std::string path = (dir_ / "tokenizer.json").string();
    WriteFile(path, json_text);
    try {
      Tokenizer::FromFile(path);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST_F(TokenizerErrors, TheGoldenFileLoads) { EXPECT_EQ(LoadError(ReadFile(TinyA("tokenizer.json"))), ""); }

TEST_F(TokenizerErrors, MissingFile) {
  try {
    Tokenizer::FromFile((dir_ / "nope.json").string());
    FAIL();
  } catch (const Error& e) {
    EXPECT_TRUE(Contains(e.what(), "nope.json")) << e.what();
  }
}

TEST_F(TokenizerErrors, EmptyFile) { EXPECT_TRUE(Contains(LoadError(""), "empty")); }

TEST_F(TokenizerErrors, TruncatedJson) {
  const std::string full = ReadFile(TinyA("tokenizer.json"));
  const std::string err = LoadError(full.substr(0, full.size() / 2));
  EXPECT_TRUE(Contains(err, "not valid JSON")) << err;
  EXPECT_TRUE(Contains(err, "tokenizer.json")) << err;
}

TEST_F(TokenizerErrors, WordPieceModelIsRefused) {
  const std::string wordpiece = R"({"version":"1.0","added_tokens":[],"normalizer":null,
    "pre_tokenizer":{"type":"BertPreTokenizer"},"decoder":{"type":"WordPiece","prefix":"##"},
    "model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##",
             "max_input_chars_per_word":100,"vocab":{"[UNK]":0,"a":1,"##b":2}}})";
  const std::string err = LoadError(wordpiece);
  EXPECT_FALSE(err.empty());
  EXPECT_TRUE(Contains(err, "pre_tokenizer") || Contains(err, "WordPiece")) << err;
}

TEST_F(TokenizerErrors, UnigramModelIsRefused) {
  auto j = ReadJson(TinyA("tokenizer.json"));
  j["model"] = {{"type", "Unigram"}, {"unk_id", 0}, {"vocab", {{"<unk>", 0.0}, {"a", -1.0}}}};
  const std::string err = LoadError(j.dump());
  EXPECT_TRUE(Contains(err, "model.type 'Unigram'")) << err;
}

TEST_F(TokenizerErrors, MissingSplitRegexIsRefused) {
  auto j = ReadJson(TinyA("tokenizer.json"));
  j["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}};
  EXPECT_TRUE(Contains(LoadError(j.dump()), "no Split step"));
  j.erase("pre_tokenizer");
  EXPECT_TRUE(Contains(LoadError(j.dump()), "pre_tokenizer is missing"));
}

TEST_F(TokenizerErrors, OtherSplitBehaviourIsRefused) {
  auto j = ReadJson(TinyA("tokenizer.json"));
  j["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Removed";
  EXPECT_TRUE(Contains(LoadError(j.dump()), "behavior 'Removed'"));
}

TEST_F(TokenizerErrors, BadRegexIsRefused) {
  auto j = ReadJson(TinyA("tokenizer.json"));
  j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "([a-z";
  EXPECT_TRUE(Contains(LoadError(j.dump()), "does not compile"));
}

TEST_F(TokenizerErrors, MergeWithUnknownTokenIsRefused) {
  auto j = ReadJson(TinyA("tokenizer.json"));
  j["model"]["merges"].push_back({"zz\xC3\xA6", "qq"});
  EXPECT_TRUE(Contains(LoadError(j.dump()), "missing from model.vocab"));
}

TEST_F(TokenizerErrors, VocabWithoutByteAlphabetIsRefused) {
  auto j = ReadJson(TinyA("tokenizer.json"));
  j["model"]["vocab"].erase("\xC4\x8A");  // "Ċ" (byte 0x0A)
  j["model"]["merges"] = nlohmann::json::array();
  EXPECT_TRUE(Contains(LoadError(j.dump()), "byte 10"));
}

TEST_F(TokenizerErrors, UnsupportedNormalizerIsRefused) {
  auto j = ReadJson(TinyA("tokenizer.json"));
  j["normalizer"] = {{"type", "NFKC"}};
  EXPECT_TRUE(Contains(LoadError(j.dump()), "normalizer 'NFKC'"));
}

TEST_F(TokenizerErrors, WrongJsonTypesAreRefusedNotCrashed) {
  EXPECT_TRUE(Contains(LoadError("[1,2,3]"), "not a JSON object"));
  auto j = ReadJson(TinyA("tokenizer.json"));
  j["model"]["vocab"] = "oops";
  EXPECT_FALSE(LoadError(j.dump()).empty());
  j = ReadJson(TinyA("tokenizer.json"));
  j["added_tokens"][0]["id"] = "x";
  EXPECT_FALSE(LoadError(j.dump()).empty());
}

}  // namespace
}  // namespace glance

// ---- Issue 12 item 1: every id is bounded by the number of tokens the file defines. ----
namespace glance {
namespace {

// tiny-a defines 4063 vocab entries and 33 added tokens: ids 0..4095.
TEST_F(TokenizerErrors, AddedTokenIdsOutsideTheFileAreRefused) {
  const std::string base = ReadFile(TinyA("tokenizer.json"));
  // Ids that wrap to negative through int32 (2^32-1, 2^32+5), that index past the table (2^31,
  // 2^63, 2^64-1), or that would size the id table far beyond the file (10^8, INT32_MAX, 4096).
  const std::vector<std::string> ids = {"4294967295", "4294967301", "2147483648", "9223372036854775808",
                                        "18446744073709551615", "100000000", "2147483647", "4096", "-1",
                                        "-9223372036854775808"};
  for (const std::string& id : ids) {
    auto j = nlohmann::json::parse(base);
    // Parse the id text as JSON so unsigned 64-bit values stay unsigned, as in a real file.
    j["added_tokens"][5]["id"] = nlohmann::json::parse(id);
    const std::string err = LoadError(j.dump());
    EXPECT_TRUE(Contains(err, "tokenizer.json")) << id << ": " << err;
    EXPECT_TRUE(Contains(err, "outside 0..4095")) << id << ": " << err;
  }
  // The largest id the file can hold is still fine (an added token moved to the top slot).
  auto j = nlohmann::json::parse(base);
  int64_t top = -1;
  for (const auto& a : j["added_tokens"]) top = std::max<int64_t>(top, a["id"].get<int64_t>());
  EXPECT_EQ(top, 4095);
}

TEST_F(TokenizerErrors, VocabIdsOutsideTheFileAreRefused) {
  const std::string base = ReadFile(TinyA("tokenizer.json"));
  for (const std::string id : {"50000000", "2147483647", "4294967295", "18446744073709551615", "-2147483648", "5000"}) {
    auto j = nlohmann::json::parse(base);
    j["model"]["vocab"]["glance-test-token"] = nlohmann::json::parse(id);
    const std::string err = LoadError(j.dump());
    EXPECT_TRUE(Contains(err, "model.vocab[\"glance-test-token\"]")) << id << ": " << err;
    EXPECT_TRUE(Contains(err, "outside 0..4096")) << id << ": " << err;  // 4097 tokens with the new one
  }
  // Control: a new vocab entry inside the range loads.
  auto j = nlohmann::json::parse(base);
  j["model"]["vocab"]["glance-test-token"] = 4096;
  EXPECT_EQ(LoadError(j.dump()), "");
}

}  // namespace
}  // namespace glance
