// Encoding speed on English prose, one core: `bench_tokenizer [tokenizer.json] [MB]`.
// Not a ctest test (timings vary by machine); run by hand. Also reports load time, which
// matters for the real 248k-token Qwen3.5 tokenizer.
#include <chrono>
#include <cstdio>
#include <string>

#include "core/text/tokenizer.h"
#include "core/util/error.h"

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : std::string(GLANCE_TEST_DATA) + "/tiny-a/tokenizer.json";
  const double megabytes = argc > 2 ? std::stod(argv[2]) : 8.0;
  using Clock = std::chrono::steady_clock;
  try {
    auto t0 = Clock::now();
    const glance::Tokenizer tok = glance::Tokenizer::FromFile(path);
    const double load_s = std::chrono::duration<double>(Clock::now() - t0).count();

    // Varied English prose: paragraphs that differ, so the word cache sees realistic reuse.
    const char* sentences[] = {
        "The quick brown fox jumps over the lazy dog while the farmer watches from the porch. ",
        "In 1998, researchers at the university published a paper on distributed systems. ",
        "She couldn't believe it: the train was late again, and the meeting started at nine! ",
        "Photographs of the harbour show fishing boats, gulls, and a lighthouse painted red. ",
        "\"What do you think?\" he asked, turning the old map over in his weathered hands.\n\n",
        "Modern compilers optimise loops aggressively; still, memory bandwidth often limits speed. "};
    std::string text;
    for (size_t i = 0; text.size() < static_cast<size_t>(megabytes * 1e6); ++i) {
      text += sentences[i % 6];
      text += "Item " + std::to_string(i) + " ";
    }
    tok.Encode(text.substr(0, 100000));  // warm up
    t0 = Clock::now();
    const auto ids = tok.Encode(text);
    const double enc_s = std::chrono::duration<double>(Clock::now() - t0).count();
    t0 = Clock::now();
    const std::string back = tok.Decode(ids);
    const double dec_s = std::chrono::duration<double>(Clock::now() - t0).count();
    std::printf("{\"tokenizer\": \"%s\", \"vocab\": %zu, \"load_s\": %.3f, \"bytes\": %zu, \"tokens\": %zu, "
                "\"encode_MB_per_s\": %.2f, \"decode_MB_per_s\": %.2f, \"roundtrip_ok\": %s}\n",
                path.c_str(), tok.size(), load_s, text.size(), ids.size(),
                static_cast<double>(text.size()) / 1e6 / enc_s, static_cast<double>(text.size()) / 1e6 / dec_s,
                back == text ? "true" : "false");
    return back == text ? 0 : 1;
  } catch (const glance::Error& e) {
    std::fprintf(stderr, "bench_tokenizer: %s\n", e.what());
    return 1;
  }
}
