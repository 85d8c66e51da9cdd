// glance-cli info [MODEL_DIR] [--json]: what a model folder holds, checked against its config.
// Without a folder it describes the bundled demo model, as the other commands fall back to it.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "core/engine/engine.h"
#include "core/model/model_folder.h"

namespace {

using glance::ModelFolderReport;
using nlohmann::json;

std::string HumanBytes(uint64_t b) {
  char buf[32];
  const double v = static_cast<double>(b);
  if (b >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.2f GiB", v / double(1ull << 30));
  else if (b >= (1ull << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", v / double(1ull << 20));
  else if (b >= 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", v / 1024.0);
  else std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
  return buf;
}

json ToJson(const ModelFolderReport& r) {
  const auto& t = r.config.text;
  const auto& v = r.config.vision;
  json files = json::array();
  for (const auto& f : r.weight_files) files.push_back({{"name", f.name}, {"bytes", f.bytes}});
  return {
      {"dir", r.dir},
      {"model_type", r.config.model_type},
      {"text",
       {{"layers", t.num_hidden_layers},
        {"layer_pattern", glance::LayerPatternString(t.layer_types)},
        {"hidden_size", t.hidden_size},
        {"intermediate_size", t.intermediate_size},
        {"attention_heads", t.num_attention_heads},
        {"kv_heads", t.num_key_value_heads},
        {"head_dim", t.head_dim},
        {"linear_key_heads", t.linear_num_key_heads},
        {"linear_value_heads", t.linear_num_value_heads},
        {"vocab_size", t.vocab_size},
        {"tie_word_embeddings", t.tie_word_embeddings}}},
      {"vision",
       {{"depth", v.depth},
        {"hidden_size", v.hidden_size},
        {"heads", v.num_heads},
        {"intermediate_size", v.intermediate_size},
        {"out_hidden_size", v.out_hidden_size}}},
      {"tensors", r.tensor_count},
      {"parameters", r.parameters},
      {"bytes_by_dtype", r.bytes_by_dtype},
      {"files", files},
      {"tokenizer", r.has_tokenizer},
      {"preprocessor_config", r.has_preprocessor},
      {"chat_template", r.chat_template_source.empty() ? json(nullptr) : json(r.chat_template_source)},
      {"missing_tensors", r.missing_tensors},
      {"shape_mismatches", r.shape_mismatches},
      {"unexpected_tensors", r.unexpected_tensors},
      {"ignored_mtp_tensors", r.ignored_tensors},
      {"mtp_layer", r.has_mtp},
      {"weights_match_config", r.weights_match_config()},
  };
}

void PrintList(const char* title, const std::vector<std::string>& items) {
  if (items.empty()) return;
  std::printf("  %s (%zu):\n", title, items.size());
  const size_t shown = items.size() < 10 ? items.size() : 10;
  for (size_t i = 0; i < shown; ++i) std::printf("    %s\n", items[i].c_str());
  if (shown < items.size()) std::printf("    ... and %zu more\n", items.size() - shown);
}

void PrintText(const ModelFolderReport& r) {
  const auto& t = r.config.text;
  const auto& v = r.config.vision;
  std::printf("%s\n", r.dir.c_str());
  std::printf("  model      %s (Qwen3_5ForConditionalGeneration)\n", r.config.model_type.c_str());
  std::printf("  text       %d layers %s, hidden %lld, MLP %lld, heads %d q / %d kv x %d, "
              "linear heads %d k / %d v, vocab %lld, tied embeddings %s\n",
              t.num_hidden_layers, glance::LayerPatternString(t.layer_types).c_str(),
              static_cast<long long>(t.hidden_size), static_cast<long long>(t.intermediate_size),
              t.num_attention_heads, t.num_key_value_heads, t.head_dim, t.linear_num_key_heads,
              t.linear_num_value_heads, static_cast<long long>(t.vocab_size), t.tie_word_embeddings ? "yes" : "no");
  std::printf("  vision     depth %d, hidden %lld, heads %d, MLP %lld, out %lld\n", v.depth,
              static_cast<long long>(v.hidden_size), v.num_heads, static_cast<long long>(v.intermediate_size),
              static_cast<long long>(v.out_hidden_size));
  std::printf("  tensors    %lld, %lld parameters (%.3f B)\n", static_cast<long long>(r.tensor_count),
              static_cast<long long>(r.parameters), static_cast<double>(r.parameters) / 1e9);
  for (const auto& [dtype, bytes] : r.bytes_by_dtype)
    std::printf("  %-10s %s\n", dtype.c_str(), HumanBytes(bytes).c_str());
  for (const auto& f : r.weight_files) std::printf("  file       %s (%s)\n", f.name.c_str(), HumanBytes(f.bytes).c_str());
  std::printf("  tokenizer  %s\n", r.has_tokenizer ? "tokenizer.json" : "MISSING tokenizer.json");
  std::printf("  template   %s\n", r.chat_template_source.empty() ? "MISSING (no chat_template.jinja)"
                                                                   : r.chat_template_source.c_str());
  std::printf("  images     %s\n", r.has_preprocessor ? "preprocessor_config.json"
                                                      : "MISSING preprocessor_config.json");
  std::printf("  MTP layer  %s\n", r.has_mtp ? "yes (speculative decoding: --speculative mtp)" : "no");
  if (r.ignored_tensors) std::printf("  ignored    %lld mtp.* tensors\n", static_cast<long long>(r.ignored_tensors));
  std::printf("  weights    %s\n", r.weights_match_config() ? "match config.json" : "DO NOT match config.json");
  PrintList("missing tensors", r.missing_tensors);
  PrintList("shape mismatches", r.shape_mismatches);
  PrintList("unexpected tensors", r.unexpected_tensors);
}

int RunInfo(const glance::cli::Args& args) {
  glance::cli::ArgParser p(args, {}, {"json"});
  if (p.positional().size() > 1) throw glance::Error("info takes one MODEL_DIR (usage: glance-cli info [MODEL_DIR] [--json])");
  std::string dir;
  if (p.positional().empty()) {
    dir = glance::DefaultDemoModelDir();
    std::fprintf(stderr, "note: no MODEL_DIR given; describing the bundled demo model in %s\n", dir.c_str());
  } else {
    dir = p.positional()[0];
  }
  const ModelFolderReport r = glance::InspectModelFolder(dir);
  if (p.Has("json")) std::printf("%s\n", ToJson(r).dump(2).c_str());
  else PrintText(r);
  return r.weights_match_config() ? 0 : 1;
}

glance::cli::Register reg("info", "info [MODEL_DIR] [--json]",
                          "describe a model folder: config, tensors, parameters, files", RunInfo);

}  // namespace
