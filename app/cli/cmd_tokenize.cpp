// glance-cli tokenize MODEL_DIR [--decode]
// Encodes UTF-8 text from stdin to a JSON array of token ids, or with --decode turns a JSON
// array of ids from stdin back into text. For checking prompts against other tokenizers.
#include <cstdio>
#include <iostream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "app/cli/arg_parser.h"
#include "core/text/tokenizer.h"

namespace glance::cli {
namespace {

std::string ReadStdin() {
  std::string s((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  if (std::cin.bad()) throw Error("cannot read stdin");
  return s;
}

int RunTokenize(const Args& args) {
  ArgParser p(args, {}, {"decode"});
  if (p.positional().size() != 1)
    throw Error("expected exactly one MODEL_DIR (usage: glance-cli tokenize MODEL_DIR [--decode])");
  const Tokenizer tok = Tokenizer::FromFile(p.positional()[0] + "/tokenizer.json");
  const std::string input = ReadStdin();
  if (!p.Has("decode")) {
    std::printf("%s\n", nlohmann::json(tok.Encode(input)).dump().c_str());
    return 0;
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(input);
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("--decode expects a JSON array of token ids on stdin: ") + e.what());
  }
  if (!j.is_array()) throw Error("--decode expects a JSON array of token ids on stdin");
  std::vector<int32_t> ids;
  for (const auto& v : j) {
    if (!v.is_number_integer() || v.get<int64_t>() < INT32_MIN || v.get<int64_t>() > INT32_MAX)
      throw Error("--decode: " + v.dump() + " is not a token id");
    ids.push_back(v.get<int32_t>());
  }
  const std::string text = tok.Decode(ids);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

Register reg("tokenize", "tokenize MODEL_DIR [--decode]",
             "text on stdin -> JSON token ids (or --decode: JSON ids -> text)", RunTokenize);

}  // namespace
}  // namespace glance::cli
