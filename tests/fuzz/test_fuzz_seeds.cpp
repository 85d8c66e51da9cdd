// The fuzzers start from their seeds; a seed the reader refuses at the header only exercises the
// header check. Seeds written by tests/fuzz/make_seeds.py in a reader's own format must therefore
// be accepted by that reader — this catches a format bump (e.g. the weight cache's version) that
// make_seeds.py did not follow.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/model/weight_cache.h"
#include "core/text/json_automaton.h"
#include "core/text/json_grammar.h"
#include "core/util/read_file.h"
#include "server/api_error.h"
#include "server/chat_request.h"
#include "server/data_url.h"

namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& p) { return glance::ReadWholeFile(p.string(), "cannot open the seed"); }

// Whether the weight cache reader accepts `bytes` as a cache file (seeds use the key "k").
bool LoadsAsWeightCache(const std::string& bytes) {
  const fs::path dir = fs::temp_directory_path() / ("glance-seed-check-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream out(dir / "k.bin", std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  bool loaded = false;
  {
    glance::WeightCache cache(dir.string(), "k");
    loaded = cache.loaded();
  }
  fs::remove_all(dir);
  return loaded;
}

TEST(FuzzSeeds, EveryWeightCacheSeedIsAcceptedByTheReader) {
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(GLANCE_FUZZ_SEEDS) / "weight_cache")) {
    EXPECT_TRUE(LoadsAsWeightCache(ReadAll(entry.path())))
        << entry.path() << " is refused by the weight cache reader (re-run tests/fuzz/make_seeds.py?)";
    ++checked;
  }
  EXPECT_GE(checked, 3);
}

TEST(FuzzSeeds, NegativeControlAnotherVersionIsRefused) {
  std::string bytes = ReadAll(fs::path(GLANCE_FUZZ_SEEDS) / "weight_cache" / "f32.bin");
  ASSERT_TRUE(LoadsAsWeightCache(bytes));
  bytes[8] = static_cast<char>(bytes[8] + 1);  // the uint32 version right after "GLWCACHE"
  EXPECT_FALSE(LoadsAsWeightCache(bytes));
}

// The server's request seeds: every *.json is a request the reader accepts, and the bare data
// URL decodes to an image.
TEST(FuzzSeeds, EveryChatRequestSeedIsAcceptedByTheReader) {
  const fs::path dir = fs::path(GLANCE_FUZZ_SEEDS) / "chat_request";
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    EXPECT_NO_THROW(glance::server::ParseChatRequest(ReadAll(entry.path()), {})) << entry.path();
    ++checked;
  }
  EXPECT_GE(checked, 3);
  EXPECT_FALSE(glance::server::ParseImageDataUrl(ReadAll(dir / "data_url.txt"), "seed").bytes.empty());
}

TEST(FuzzSeeds, NegativeControlARequestEndingWithTheAnswerIsRefused) {
  const std::string body = ReadAll(fs::path(GLANCE_FUZZ_SEEDS) / "chat_request" / "text.json");
  ASSERT_NO_THROW(glance::server::ParseChatRequest(body, {}));
  std::string changed = body;
  changed.replace(changed.find("\"user\""), 6, "\"assistant\"");
  EXPECT_THROW(glance::server::ParseChatRequest(changed, {}), glance::server::ApiError);
}

// The JSON schema seeds ("<schema>\0<document>"): each schema compiles and accepts its document,
// so the fuzzer starts past the compiler into the automaton.
bool SchemaSeedAccepted(const std::string& seed) {
  const size_t nul = seed.find('\0');
  if (nul == std::string::npos) return false;
  const glance::text::JsonAutomaton a(glance::text::CompileJsonSchemaText(seed.substr(0, nul), "seed"));
  return a.Accepts(seed.substr(nul + 1));
}

TEST(FuzzSeeds, EveryJsonSchemaSeedCompilesAndAcceptsItsDocument) {
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(GLANCE_FUZZ_SEEDS) / "json_schema")) {
    EXPECT_TRUE(SchemaSeedAccepted(ReadAll(entry.path()))) << entry.path();
    ++checked;
  }
  EXPECT_GE(checked, 4);
  // Negative control: the document cut short is refused.
  const std::string seed = ReadAll(fs::path(GLANCE_FUZZ_SEEDS) / "json_schema" / "object");
  EXPECT_FALSE(SchemaSeedAccepted(seed.substr(0, seed.size() - 1)));
}

}  // namespace
