// Reads a Hugging Face tokenizer.json into Tokenizer::Impl (qwen35.md §5.1).
// Only the pipeline Qwen3.5 uses is accepted; anything else is refused with the field named,
// because silently tokenizing differently from the model's training would corrupt every answer.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/text/byte_level.h"
#include "core/text/tokenizer_impl.h"
#include "core/util/error.h"
#include "core/util/json_field.h"
#include "core/util/read_file.h"

namespace glance {
namespace {

using json = nlohmann::json;

std::string TypeOf(const json& j) {
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) return "";
  return j["type"].get<std::string>();
}

[[noreturn]] void Fail(const std::string& source, const std::string& what) {
  throw Error(source + ": " + what);
}

// normalizer: null or NFC (possibly inside a one-element Sequence).
bool ReadNormalizer(const json& root, const std::string& src) {
  if (!HasField(root, "normalizer")) return false;
  const json& n = root["normalizer"];
  const std::string type = TypeOf(n);
  if (type == "NFC") return true;
  if (type == "Sequence" && n.contains("normalizers") && n["normalizers"].is_array()) {
    bool nfc = false;
    for (const json& s : n["normalizers"]) {
      if (TypeOf(s) != "NFC") Fail(src, "normalizer '" + TypeOf(s) + "' is not supported (only NFC)");
      nfc = true;
    }
    return nfc;
  }
  Fail(src, "normalizer '" + type + "' is not supported (only NFC)");
}

// pre_tokenizer: Sequence[Split(Regex, Isolated), ByteLevel(use_regex=false)] as in Qwen3.5.
std::string ReadSplitRegex(const json& root, const std::string& src) {
  if (!root.contains("pre_tokenizer") || !root["pre_tokenizer"].is_object())
    Fail(src, "pre_tokenizer is missing; a Split pre-tokenizer with a Regex is required");
  const json& p = root["pre_tokenizer"];
  std::vector<json> steps;
  if (TypeOf(p) == "Sequence" && p.contains("pretokenizers") && p["pretokenizers"].is_array())
    steps.assign(p["pretokenizers"].begin(), p["pretokenizers"].end());
  else
    steps.push_back(p);
  std::string regex;
  bool byte_level = false;
  for (const json& s : steps) {
    const std::string type = TypeOf(s);
    if (type == "Split") {
      if (!regex.empty()) Fail(src, "pre_tokenizer has more than one Split; not supported");
      if (!s.contains("pattern") || !s["pattern"].is_object() || !s["pattern"].contains("Regex") ||
          !s["pattern"]["Regex"].is_string())
        Fail(src, "pre_tokenizer Split has no pattern.Regex string");
      regex = s["pattern"]["Regex"].get<std::string>();
      if (s.value("behavior", std::string()) != "Isolated")
        Fail(src, "pre_tokenizer Split behavior '" + s.value("behavior", std::string()) +
                      "' is not supported (only Isolated)");
      if (s.value("invert", false)) Fail(src, "pre_tokenizer Split invert=true is not supported");
    } else if (type == "ByteLevel") {
      if (s.value("use_regex", true))
        Fail(src, "pre_tokenizer ByteLevel with use_regex=true is not supported (expected the "
                  "regex in a Split step and use_regex=false)");
      if (s.value("add_prefix_space", false))
        Fail(src, "pre_tokenizer ByteLevel add_prefix_space=true is not supported");
      byte_level = true;
    } else {
      Fail(src, "pre_tokenizer step '" + type + "' is not supported (expected Split + ByteLevel)");
    }
  }
  if (regex.empty()) Fail(src, "pre_tokenizer has no Split step with a Regex pattern");
  if (!byte_level) Fail(src, "pre_tokenizer has no ByteLevel step; only byte-level BPE is supported");
  return regex;
}

void CheckDecoder(const json& root, const std::string& src) {
  if (!HasField(root, "decoder")) return;
  const std::string type = TypeOf(root["decoder"]);
  if (type != "ByteLevel") Fail(src, "decoder '" + type + "' is not supported (only ByteLevel)");
}

// Every id must lie below the number of tokens the file defines (vocab entries plus added
// tokens): real tokenizers number their tokens densely from 0, and the id table is sized by the
// largest id, so this keeps a lying id (4294967295, 2^31, 10^8) from becoming a negative index or
// an allocation out of proportion to the file.
int32_t ReadId(const json& v, size_t id_limit, const std::string& src, const std::string& where) {
  if (!v.is_number_integer()) Fail(src, where + " id " + v.dump().substr(0, 40) + " is not an integer");
  const bool negative = !v.is_number_unsigned() && v.get<int64_t>() < 0;
  if (negative || v.get<uint64_t>() >= id_limit)
    Fail(src, where + " id " + v.dump() + " is outside 0.." + std::to_string(id_limit - 1) +
                  " (the file defines " + std::to_string(id_limit) + " tokens)");
  return static_cast<int32_t>(v.get<uint64_t>());
}

// Vocab entries plus added tokens; capped at INT32_MAX so an id always fits an int32_t.
size_t IdLimit(const json& root) {
  size_t n = 0;
  if (root.contains("model") && root["model"].is_object() && root["model"].contains("vocab") &&
      root["model"]["vocab"].is_object())
    n += root["model"]["vocab"].size();
  if (root.contains("added_tokens") && root["added_tokens"].is_array()) n += root["added_tokens"].size();
  return std::min<size_t>(n, static_cast<size_t>(INT32_MAX));
}

void SetToken(Tokenizer::Impl& t, int32_t id, const std::string& text, Tokenizer::Impl::Kind kind) {
  if (static_cast<size_t>(id) >= t.id_to_text.size()) {
    t.id_to_text.resize(static_cast<size_t>(id) + 1);
    t.kind.resize(static_cast<size_t>(id) + 1, Tokenizer::Impl::Kind::kHole);
  }
  t.id_to_text[static_cast<size_t>(id)] = text;
  t.kind[static_cast<size_t>(id)] = kind;
}

void ReadModel(const json& root, Tokenizer::Impl& t, size_t id_limit) {
  const std::string& src = t.source;
  if (!root.contains("model") || !root["model"].is_object()) Fail(src, "no 'model' object");
  const json& m = root["model"];
  const std::string type = TypeOf(m);
  if (type != "BPE")
    Fail(src, "model.type '" + type + "' is not supported; only byte-level BPE tokenizers work");
  if (!m.value("continuing_subword_prefix", json()).is_null() &&
      !m["continuing_subword_prefix"].get<std::string>().empty())
    Fail(src, "model.continuing_subword_prefix is not supported");
  if (!m.value("end_of_word_suffix", json()).is_null() &&
      !m["end_of_word_suffix"].get<std::string>().empty())
    Fail(src, "model.end_of_word_suffix is not supported");
  if (m.contains("dropout") && !m["dropout"].is_null())
    Fail(src, "model.dropout is set; BPE dropout is a training feature and is not supported");
  t.ignore_merges = m.value("ignore_merges", false);

  if (!m.contains("vocab") || !m["vocab"].is_object()) Fail(src, "model.vocab is missing");
  const json& vocab = m["vocab"];
  t.vocab.reserve(vocab.size());
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    const int32_t id = ReadId(it.value(), id_limit, src, "model.vocab[" + json(it.key()).dump() + "]");
    t.vocab.emplace(it.key(), id);
    SetToken(t, id, it.key(), Tokenizer::Impl::Kind::kVocab);
  }

  const auto& map = text::GetByteLevelMap();
  std::array<int32_t, 256> byte_ids{};
  for (int b = 0; b < 256; ++b) {
    auto it = t.vocab.find(map.CharFor(static_cast<uint8_t>(b)));
    if (it == t.vocab.end())
      Fail(src, "model.vocab lacks the byte-level token for byte " + std::to_string(b) +
                    "; not a byte-level BPE vocabulary");
    byte_ids[static_cast<size_t>(b)] = it->second;
  }
  t.bpe.SetByteIds(byte_ids);

  if (!m.contains("merges") || !m["merges"].is_array()) Fail(src, "model.merges is missing");
  const json& merges = m["merges"];
  t.bpe.ReserveMerges(merges.size());
  std::string left, right;
  for (size_t i = 0; i < merges.size(); ++i) {
    const json& e = merges[i];
    // Older files write "a b"; newer ones write ["a", "b"] (tokenizers >= 0.20).
    if (e.is_string()) {
      const std::string& s = e.get_ref<const std::string&>();
      const size_t sp = s.find(' ');
      if (sp == std::string::npos || s.find(' ', sp + 1) != std::string::npos)
        Fail(src, "model.merges[" + std::to_string(i) + "] '" + s + "' is not 'left right'");
      left.assign(s, 0, sp);
      right.assign(s, sp + 1);
    } else if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) {
      left = e[0].get<std::string>();
      right = e[1].get<std::string>();
    } else {
      Fail(src, "model.merges[" + std::to_string(i) + "] is neither \"a b\" nor [a, b]");
    }
    auto l = t.vocab.find(left), r = t.vocab.find(right), lr = t.vocab.find(left + right);
    if (l == t.vocab.end() || r == t.vocab.end() || lr == t.vocab.end())
      Fail(src, "model.merges[" + std::to_string(i) + "] ('" + left + "', '" + right +
                    "') uses a token missing from model.vocab");
    t.bpe.AddMerge(l->second, r->second, lr->second);
  }
}

void ReadAddedTokens(const json& root, Tokenizer::Impl& t, size_t id_limit) {
  if (!HasField(root, "added_tokens")) return;
  const json& added = root["added_tokens"];
  if (!added.is_array()) Fail(t.source, "added_tokens is not an array");
  for (const json& a : added) {
    if (!a.is_object() || !a.contains("id") || !a["id"].is_number_integer() ||
        !a.contains("content") || !a["content"].is_string())
      Fail(t.source, "added_tokens entry without integer id and string content: " + a.dump().substr(0, 200));
    const int32_t id = ReadId(a["id"], id_limit, t.source, "added_tokens");
    const std::string content = a["content"].get<std::string>();
    if (content.empty()) Fail(t.source, "added_tokens id " + std::to_string(id) + " is empty");
    // HF's lstrip/rstrip/single_word options change matching; Qwen3.5 uses none of them.
    if (a.value("lstrip", false) || a.value("rstrip", false) || a.value("single_word", false))
      Fail(t.source, "added token '" + content + "' uses lstrip/rstrip/single_word; not supported");
    const bool special = a.value("special", false);
    SetToken(t, id, content, special ? Tokenizer::Impl::Kind::kSpecial : Tokenizer::Impl::Kind::kAdded);
    t.added[content] = id;
  }
  for (const auto& [content, id] : t.added)
    t.added_by_first_byte[static_cast<unsigned char>(content[0])].push_back(id);
  for (auto& list : t.added_by_first_byte)
    std::sort(list.begin(), list.end(), [&](int32_t a, int32_t b) {
      const auto& ta = t.id_to_text[static_cast<size_t>(a)];
      const auto& tb = t.id_to_text[static_cast<size_t>(b)];
      return ta.size() != tb.size() ? ta.size() > tb.size() : ta < tb;
    });
}

}  // namespace

Tokenizer Tokenizer::FromJsonText(std::string_view json_text, const std::string& source_name) {
  json root;
  try {
    root = json::parse(json_text.begin(), json_text.end());
  } catch (const json::exception& e) {
    throw Error(source_name + ": not valid JSON (truncated or corrupt file?): " + e.what());
  }
  if (!root.is_object()) throw Error(source_name + ": top level is not a JSON object");
  auto impl = std::make_unique<Impl>();
  impl->source = source_name;
  try {
    impl->nfc = ReadNormalizer(root, source_name);
    impl->splitter.emplace(ReadSplitRegex(root, source_name), source_name);
    CheckDecoder(root, source_name);
    const size_t id_limit = IdLimit(root);
    ReadModel(root, *impl, id_limit);
    ReadAddedTokens(root, *impl, id_limit);
  } catch (const json::exception& e) {  // a field of the wrong JSON type
    throw Error(source_name + ": unexpected tokenizer.json structure: " + e.what());
  }
  return Tokenizer(std::move(impl));
}

Tokenizer Tokenizer::FromFile(const std::string& path) {
  const std::string text = ReadWholeFile(path, path + ": cannot open tokenizer file");
  if (text.empty()) throw Error(path + ": tokenizer file is empty");
  return FromJsonText(text, path);
}

}  // namespace glance
