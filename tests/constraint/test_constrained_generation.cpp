// Constrained decoding through a real Session (core/engine/session.h, json_constraint.h,
// logprobs.h) on random-weight models, whose answers are anything but JSON on their own:
//   * answers sampled at temperature 1 under 31 schemas (tests/constraint/schemas.json) are
//     written to a file and judged by an independent validator, ajv (validate_with_ajv.mjs),
//     with two negative controls the validator must catch: unconstrained answers, and answers
//     constrained only to "any JSON object";
//   * speculative decoding under a constraint keeps greedy answers token for token, and its
//     sampled answers stay whole documents;
//   * logprobs equal a log-softmax computed here from the raw logits, masked by this test's own
//     per-token check of the automaton.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/engine/engine.h"
#include "core/engine/json_constraint.h"
#include "core/engine/session.h"
#include "core/lm/language_model.h"
#include "core/model/random_model.h"
#include "core/text/json_automaton.h"
#include "core/text/json_grammar.h"
#include "core/text/json_string_rule.h"
#include "core/text/tokenizer.h"
#include "tests/model/temp_dir.h"

namespace glance {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::shared_ptr<const Engine> Load(const std::string& dir) {
  EngineOptions o;
  o.threads = 2;
  o.backend = BackendKind::kCpu;
  o.precision = Precision::kF32;
  return Engine::Load(dir, o);
}

std::shared_ptr<const Engine> TinyA() {
  static std::shared_ptr<const Engine> e = Load(std::string(GLANCE_TEST_DATA) + "/tiny-a");
  return e;
}

// make-model --shape tiny with its random MTP layer (speculative decoding needs one).
std::shared_ptr<const Engine> RandomTinyWithMtp() {
  static glance::test::TempDir dir;
  static std::shared_ptr<const Engine> e = [] {
    MakeModelOptions o;
    o.out_dir = dir.path();
    o.seed = 29;
    o.threads = 2;
    MakeRandomModel(o);
    return Load(dir.path());
  }();
  return e;
}

GenerateOptions Sampled(uint64_t seed, int max_tokens, float temperature = 1.0f) {
  GenerateOptions o;
  SamplingParams p;
  p.greedy = false;
  p.temperature = temperature;
  o.sampling = p;
  o.seed = seed;
  o.max_new_tokens = max_tokens;
  o.enable_thinking = false;
  o.capture_attention = false;
  return o;
}

std::vector<std::string> SchemaTexts() {
  std::ifstream in(std::string(GLANCE_TEST_SOURCE) + "/schemas.json");
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<std::string> out;
  for (const auto& s : nlohmann::ordered_json::parse(ss.str())) out.push_back(s.dump());
  return out;
}

// Runs a shell command; its output (stdout and stderr as the command redirects them).
std::string RunNode(const std::string& cmd) {
  std::string output;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
    if (::pclose(p) != 0) output += "\n(node exited with an error)";
  }
  return output;
}

constexpr int kAnswersPerSchema = 17;  // x 31 schemas = 527 answers

// The schema without its string rules (pattern, format, minLength, maxLength): the control that
// shows ajv enforces them.
nlohmann::ordered_json WithoutStringRules(nlohmann::ordered_json s) {
  if (s.is_object()) {
    for (const char* k : {"pattern", "format", "minLength", "maxLength"}) s.erase(k);
    for (auto& [key, v] : s.items()) v = WithoutStringRules(v);
  } else if (s.is_array()) {
    for (auto& v : s) v = WithoutStringRules(v);
  }
  return s;
}

TEST(ConstrainedSampling, AjvFindsEverySampledAnswerValidAndCatchesTheControls) {
  const std::string node_dir = GLANCE_CONSTRAINT_NODE_DIR;
  if (!fs::exists(node_dir + "/node_modules/ajv/package.json") || !fs::exists(node_dir + "/node_modules/ajv-formats/package.json"))
    GTEST_FAIL() << "ajv and ajv-formats are not installed in " << node_dir << " (ctest runs constraint_npm_setup first)";
  const auto engine = TinyA();
  JsonConstraintCache cache(engine->tokenizer());
  const std::vector<std::string> schemas = SchemaTexts();
  ASSERT_GE(schemas.size(), 20u);
  const std::string samples_path = node_dir + "/samples.jsonl";
  std::ofstream samples(samples_path, std::ios::trunc);
  auto write = [&](size_t schema, const char* kind, const std::string& text) {
    samples << json{{"schema", schema}, {"kind", kind}, {"text", text}}.dump(-1, ' ', false, json::error_handler_t::replace)
            << "\n";
  };
  int answers = 0, tokens = 0, whole_objects = 0, ruled = 0, whole_unruled = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < schemas.size(); ++i) {
    const auto spec = cache.ForSchemaText(schemas[i], "schemas.json #" + std::to_string(i));
    for (int k = 0; k < kAnswersPerSchema; ++k) {
      Session s(engine);
      GenerateOptions o = Sampled(1000 * i + static_cast<uint64_t>(k), 3000);
      o.constraint = spec;
      const TurnResult r = s.Send("Answer in JSON.", o);
      EXPECT_EQ(r.stop_reason, "eos") << "schema " << i << " answer " << k << " did not end: " << r.text.substr(0, 300);
      EXPECT_TRUE(spec->automaton().Accepts(r.text)) << r.text;
      write(i, "constrained", r.text);
      ++answers;
      tokens += static_cast<int>(r.tokens.size());
    }
    // Control: the schema without its string rules; the first of three answers that ends.
    const auto ordered = nlohmann::ordered_json::parse(schemas[i]);
    if (WithoutStringRules(ordered) != ordered) {
      ++ruled;
      const auto unruled = cache.ForSchemaText(WithoutStringRules(ordered).dump(), "without string rules");
      for (uint64_t attempt = 0; attempt < 3; ++attempt) {
        Session u(engine);
        GenerateOptions o = Sampled(300 * i + attempt, 800);
        o.constraint = unruled;
        const TurnResult r = u.Send("Answer in JSON.", o);
        if (r.stop_reason != "eos") continue;
        write(i, "without_string_rules", r.text);
        ++whole_unruled;
        break;
      }
    }
    // Controls: the same model without the schema's mask.
    Session plain(engine);
    write(i, "unconstrained", plain.Send("Answer in JSON.", Sampled(7 + i, 40)).text);
    // A random model's any-object answers can nest without end: the first of three that ends
    // within 1000 tokens is judged (a cut-off one would be invalid for the wrong reason).
    for (uint64_t attempt = 0; attempt < 3; ++attempt) {
      Session object(engine);
      GenerateOptions o = Sampled(100 * i + attempt, 1000);
      o.constraint = cache.AnyObject();
      const TurnResult r = object.Send("Answer in JSON.", o);
      if (r.stop_reason != "eos") continue;
      write(i, "json_object", r.text);
      ++whole_objects;
      break;
    }
  }
  samples.close();
  std::printf("%d constrained answers, %d tokens, %.1f s\n", answers, tokens,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  const std::string out = RunNode("cd '" + node_dir + "' && node validate_with_ajv.mjs '" + std::string(GLANCE_TEST_SOURCE) +
                                  "/schemas.json' '" + samples_path + "' 2>&1");
  std::printf("%s", out.c_str());
  std::map<std::string, std::pair<int, int>> tally;  // kind -> (valid, invalid)
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    char kind[64];
    int valid = 0, invalid = 0;
    if (std::sscanf(line.c_str(), "ajv %63s valid %d invalid %d", kind, &valid, &invalid) == 3) tally[kind] = {valid, invalid};
  }
  ASSERT_EQ(tally.size(), 4u) << out;
  EXPECT_EQ(tally["constrained"].first, answers);
  EXPECT_EQ(tally["constrained"].second, 0);
  EXPECT_GE(answers, 500);
  // Negative controls: the validator catches answers made without the schema.
  EXPECT_EQ(tally["unconstrained"].first, 0);
  EXPECT_EQ(tally["unconstrained"].second, static_cast<int>(schemas.size()));
  EXPECT_GE(whole_objects, 8);
  EXPECT_EQ(tally["json_object"].first + tally["json_object"].second, whole_objects);
  EXPECT_GE(tally["json_object"].second, whole_objects / 2);
  // ... and the string rules: answers to the schemas without them break them (ajv-formats on).
  EXPECT_GE(ruled, 7);
  EXPECT_GE(whole_unruled, ruled / 2);
  EXPECT_EQ(tally["without_string_rules"].first, 0);
  EXPECT_EQ(tally["without_string_rules"].second, whole_unruled);
}

// Random strings of each string rule (a walk over its DFA through live states, every code point
// of a chosen range equally likely, so non-ASCII and control characters come too), written as
// JSON by the automaton's own check and validated by ajv; the control validates each rule's
// strings against the next rule's schema.
std::string Utf8(uint32_t cp) {
  std::string o;
  if (cp < 0x80) o += static_cast<char>(cp);
  else if (cp < 0x800) o += static_cast<char>(0xC0 | (cp >> 6)), o += static_cast<char>(0x80 | (cp & 0x3F));
  else if (cp < 0x10000)
    o += static_cast<char>(0xE0 | (cp >> 12)), o += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), o += static_cast<char>(0x80 | (cp & 0x3F));
  else
    o += static_cast<char>(0xF0 | (cp >> 18)), o += static_cast<char>(0x80 | ((cp >> 12) & 0x3F)),
        o += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), o += static_cast<char>(0x80 | (cp & 0x3F));
  return o;
}

std::string RandomString(const text::StringRule& r, std::mt19937& rng) {
  std::string out;
  int32_t s = 0;
  uint32_t count = 0;
  while (true) {
    if (r.CanClose(s, count) && rng() % 4 == 0) return out;
    const uint32_t next = r.Bump(count);
    std::vector<const text::CodePointDfa::Range*> live;
    if (next != UINT32_MAX)
      for (uint32_t k = r.dfa.begin[static_cast<size_t>(s)]; k < r.dfa.begin[static_cast<size_t>(s) + 1]; ++k)
        if (r.Live(r.dfa.ranges[k].next, next)) live.push_back(&r.dfa.ranges[k]);
    if (live.empty()) return out;  // CanClose holds here (the state is live)
    const auto* pick = live[rng() % live.size()];
    const uint32_t cp = pick->lo + static_cast<uint32_t>(rng() % (pick->hi - pick->lo + 1));
    out += Utf8(cp);
    s = pick->next;
    count = next;
  }
}

TEST(ConstrainedSampling, RandomStringsOfEveryStringRuleAreValidForAjv) {
  const std::string node_dir = GLANCE_CONSTRAINT_NODE_DIR;
  if (!fs::exists(node_dir + "/node_modules/ajv-formats/package.json"))
    GTEST_FAIL() << "ajv-formats is not installed in " << node_dir << " (ctest runs constraint_npm_setup first)";
  json schemas = json::array();
  for (const std::string& f : text::SupportedFormats()) schemas.push_back({{"type", "string"}, {"format", f}});
  for (const char* p : {"^[^\\x00-\\x7F]{1,4}$", "^\\d{2}(?:\\.\\d+)?$", "^(?:[A-Z][a-z]*|_)+$", "x.y|^\\s+$", "^[^a-z]*$",
                        "^\\w+@\\w+$", "(?<y>19|20)\\d\\d$"})
    schemas.push_back({{"type", "string"}, {"pattern", p}, {"maxLength", 12}});
  schemas.push_back({{"type", "string"}, {"minLength", 3}, {"maxLength", 5}});
  const std::string schemas_path = node_dir + "/rule_schemas.json", samples_path = node_dir + "/rule_samples.jsonl";
  std::ofstream(schemas_path) << schemas.dump();
  std::ofstream samples(samples_path, std::ios::trunc);
  std::mt19937 rng(29);
  int walks = 0;
  for (size_t i = 0; i < schemas.size(); ++i) {
    const auto grammar = text::CompileJsonSchema(schemas[i]);
    ASSERT_EQ(grammar->string_rules.size(), 1u);
    const text::JsonAutomaton a(grammar);
    for (int k = 0; k < 60; ++k) {
      const std::string doc = json(RandomString(grammar->string_rules[0], rng)).dump();
      ASSERT_TRUE(a.Accepts(doc)) << schemas[i].dump() << " " << doc;
      samples << json{{"schema", i}, {"kind", "walk"}, {"text", doc}}.dump() << "\n";
      samples << json{{"schema", (i + 1) % schemas.size()}, {"kind", "next_rule"}, {"text", doc}}.dump() << "\n";
      ++walks;
    }
  }
  samples.close();
  const std::string out = RunNode("cd '" + node_dir + "' && node validate_with_ajv.mjs '" + schemas_path + "' '" + samples_path + "' 2>&1");
  std::printf("%s", out.c_str());
  std::map<std::string, std::pair<int, int>> tally;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    char kind[64];
    int valid = 0, invalid = 0;
    if (std::sscanf(line.c_str(), "ajv %63s valid %d invalid %d", kind, &valid, &invalid) == 3) tally[kind] = {valid, invalid};
  }
  ASSERT_EQ(tally.size(), 2u) << out;
  EXPECT_EQ(tally["walk"].first, walks);
  EXPECT_EQ(tally["walk"].second, 0);
  EXPECT_GE(tally["next_rule"].second, walks * 9 / 10);  // the control: another rule's strings fail
}

TEST(ConstrainedGeneration, SpeculativeDecodingKeepsGreedyAnswersAndSampledOnesWhole) {
  const auto engine = RandomTinyWithMtp();
  ASSERT_TRUE(engine->lm().has_mtp());
  JsonConstraintCache cache(engine->tokenizer());
  const auto spec = cache.ForSchemaText(
      R"({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"array","items":{"type":"integer"}}},"required":["a","b"],"additionalProperties":false})",
      "schema");
  int drafted = 0;
  for (int drafts : {1, 3}) {
    GenerateOptions o;
    o.sampling = SamplingParams::Greedy();
    o.max_new_tokens = 120;
    o.enable_thinking = false;
    o.capture_attention = false;
    o.constraint = spec;
    Session plain(engine), spec_session(engine);
    const TurnResult a = plain.Send("JSON please.", o);
    o.speculative_draft_tokens = drafts;
    const TurnResult b = spec_session.Send("JSON please.", o);
    EXPECT_EQ(a.tokens, b.tokens) << drafts << " drafts: " << a.text << " vs " << b.text;
    drafted += b.stats.drafted;
  }
  EXPECT_GT(drafted, 0);  // speculation really ran
  for (uint64_t seed = 0; seed < 8; ++seed) {
    GenerateOptions o = Sampled(seed, 3000);
    o.constraint = spec;
    o.speculative_draft_tokens = 2;
    Session s(engine);
    const TurnResult r = s.Send("JSON please.", o);
    EXPECT_EQ(r.stop_reason, "eos");
    EXPECT_TRUE(spec->automaton().Accepts(r.text)) << r.text;
  }
}

// log-softmax(logits / t) over the ids `allowed` says may come, most likely first.
std::vector<std::pair<float, int32_t>> Reference(const std::vector<float>& logits, const std::vector<bool>& allowed, float t) {
  double max_l = -1e30;
  for (size_t i = 0; i < allowed.size(); ++i)
    if (allowed[i]) max_l = std::max(max_l, static_cast<double>(logits[i]));
  double sum = 0.0;
  for (size_t i = 0; i < allowed.size(); ++i)
    if (allowed[i]) sum += std::exp((static_cast<double>(logits[i]) - max_l) / static_cast<double>(t));
  std::vector<std::pair<float, int32_t>> out;
  for (size_t i = 0; i < allowed.size(); ++i)
    if (allowed[i])
      out.push_back({static_cast<float>((static_cast<double>(logits[i]) - max_l) / static_cast<double>(t) - std::log(sum)),
                     static_cast<int32_t>(i)});
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
  return out;
}

void CheckLogprobs(bool constrained, float temperature, float compare_temperature, bool expect_equal) {
  const auto engine = TinyA();
  const Tokenizer& tok = engine->tokenizer();
  JsonConstraintCache cache(tok);
  const auto spec = cache.AnyObject();
  text::JsonState state = spec->automaton().Start();
  const auto& stops = engine->stop_ids();
  GenerateOptions o = Sampled(5, 40, temperature);
  o.top_logprobs = 5;
  if (constrained) o.constraint = spec;
  std::vector<std::vector<bool>> allowed_at;
  std::vector<std::vector<float>> rows;
  StreamCallbacks cb;
  cb.on_logits = [&](std::span<const float> l) {
    rows.emplace_back(l.begin(), l.end());
    std::vector<bool> allowed(tok.size(), true);
    if (constrained)
      for (size_t id = 0; id < tok.size(); ++id) {
        const bool stop = std::find(stops.begin(), stops.end(), static_cast<int32_t>(id)) != stops.end();
        if (stop) {
          allowed[id] = spec->automaton().CanEnd(state);
          continue;
        }
        text::JsonState t = state;
        allowed[id] = !tok.IsSpecial(static_cast<int32_t>(id)) && spec->automaton().Feed(t, tok.TokenBytes(static_cast<int32_t>(id)));
      }
    allowed_at.push_back(std::move(allowed));
  };
  cb.on_logprobs = [&](const GeneratedLogprobs& lp) {
    if (constrained) spec->automaton().Feed(state, tok.TokenBytes(lp.chosen.token));
  };
  Session s(engine);
  const TurnResult r = s.Send("Answer in JSON.", o, cb);
  ASSERT_EQ(r.logprobs.size(), r.tokens.size());
  bool all_equal = true;
  for (size_t step = 0; step < r.logprobs.size(); ++step) {
    const GeneratedLogprobs& lp = r.logprobs[step];
    EXPECT_EQ(lp.chosen.token, r.tokens[step]);
    const auto ref = Reference(rows[step], allowed_at[step], compare_temperature);
    ASSERT_EQ(lp.top.size(), std::min<size_t>(5, ref.size()));
    float chosen_ref = NAN;
    for (const auto& [v, id] : ref)
      if (id == lp.chosen.token) chosen_ref = v;
    all_equal = all_equal && std::fabs(chosen_ref - lp.chosen.logprob) < 1e-4f;
    for (size_t k = 0; k < lp.top.size(); ++k)
      all_equal = all_equal && lp.top[k].token == ref[k].second && std::fabs(lp.top[k].logprob - ref[k].first) < 1e-4f;
  }
  EXPECT_EQ(all_equal, expect_equal);
}

TEST(Logprobs, AreTheTemperatureScaledDistributionOfEachStep) { CheckLogprobs(false, 0.7f, 0.7f, true); }
TEST(Logprobs, UnderAConstraintCoverOnlyTheAllowedTokens) { CheckLogprobs(true, 1.0f, 1.0f, true); }
TEST(Logprobs, NegativeControlAnotherTemperatureDiffers) {
  CheckLogprobs(false, 0.7f, 1.0f, false);
}

// glance-cli caption --json-schema FILE: a folder's captions are JSON objects in the .jsonl,
// each accepted by the schema; a schema with a keyword it cannot enforce is refused by name.
TEST(CaptionCli, JsonSchemaCaptionsAFolderIntoJsonObjects) {
  glance::test::TempDir dir;
  const fs::path images = fs::path(dir.path()) / "images";
  fs::create_directories(images);
  fs::copy_file(std::string(GLANCE_TEST_DATA) + "/tiny-a/image.png", images / "a.png");
  fs::copy_file(std::string(GLANCE_SOURCE_RESOURCES) + "/demo-image.png", images / "b.png");
  const std::string schema_text =
      R"({"type":"object","properties":{"objects":{"type":"array","maxItems":3,"items":{"type":"object","properties":{"shape":{"enum":["circle","square","star"]},"colour":{"enum":["red","blue"]}},"required":["shape","colour"],"additionalProperties":false}}},"required":["objects"],"additionalProperties":false})";
  const std::string schema = (fs::path(dir.path()) / "schema.json").string();
  std::ofstream(schema) << schema_text;
  const std::string out = (fs::path(dir.path()) / "captions.jsonl").string();
  const std::string cli = std::string(GLANCE_BINARY_DIR) + "/app/glance-cli";
  const std::string common = " --model '" + std::string(GLANCE_TEST_DATA) + "/tiny-a' --temperature 1 --seed 5 --max-tokens 600";
  const std::string log = RunNode("'" + cli + "' caption '" + images.string() + "' --out '" + out + "' --json-schema '" +
                                  schema + "'" + common + " 2>&1");
  const text::JsonAutomaton automaton(text::CompileJsonSchemaText(schema_text, "schema"));
  std::ifstream in(out);
  int lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    const nlohmann::ordered_json row = nlohmann::ordered_json::parse(line);  // keeps the key order written
    ASSERT_TRUE(row["caption"].is_object()) << line;  // a JSON object, not a string holding one
    EXPECT_TRUE(automaton.Accepts(row["caption"].dump())) << line;
  }
  EXPECT_EQ(lines, 2) << log;
  // Refused before the model loads, naming the flag, the file and the keyword.
  const std::string bad = (fs::path(dir.path()) / "bad.json").string();
  std::ofstream(bad) << R"({"type":"object","properties":{"when":{"type":"string","format":"uri"}}})";
  const std::string refused = RunNode("'" + cli + "' caption '" + images.string() + "' --out '" + out + "' --json-schema '" +
                                      bad + "'" + common + " 2>&1");
  EXPECT_NE(refused.find("--json-schema " + bad + ": JSON schema at #/properties/when/format: keyword 'format' \"uri\""), std::string::npos) << refused;
  EXPECT_NE(refused.find("exited with an error"), std::string::npos) << refused;
}

}  // namespace
}  // namespace glance
