#pragma once
// Flags shared by the commands that run the model (caption, chat): model folder, threads,
// sampling and image mode, turned into Engine/Session options.
#include <cstdio>
#include <memory>
#include <set>
#include <string>

#include "app/cli/arg_parser.h"
#include "core/engine/engine.h"
#include "core/engine/session.h"

namespace glance::cli {

inline std::set<std::string> SessionValueFlags() {
  return {"model", "threads", "max-tokens", "mode", "temperature", "top-k", "top-p", "min-p",
          "repetition-penalty", "presence-penalty", "seed", "system", "thinking", "backend"};
}

inline ImageModeChoice ParseMode(const ArgParser& p) {
  const std::string m = p.Get("mode", "fast");
  if (m == "fast") return ImageModeChoice::kFast;
  if (m == "detail") return ImageModeChoice::kDetail;
  throw Error("--mode must be fast or detail, got '" + m + "'");
}

inline GenerateOptions ParseGenerateOptions(const ArgParser& p) {
  GenerateOptions o;
  o.max_new_tokens = static_cast<int>(p.GetInt("max-tokens", 128));
  if (o.max_new_tokens < 1) throw Error("--max-tokens must be at least 1");
  auto& s = o.sampling;
  s.greedy = !p.Has("temperature");
  s.temperature = static_cast<float>(p.GetDouble("temperature", 1.0));
  s.top_k = static_cast<int>(p.GetInt("top-k", 0));
  s.top_p = static_cast<float>(p.GetDouble("top-p", 1.0));
  s.min_p = static_cast<float>(p.GetDouble("min-p", 0.0));
  s.repetition_penalty = static_cast<float>(p.GetDouble("repetition-penalty", 1.0));
  s.presence_penalty = static_cast<float>(p.GetDouble("presence-penalty", 0.0));
  s.seed = static_cast<uint64_t>(p.GetInt("seed", 0));
  s.Validate();
  if (auto t = p.Get("thinking")) {
    if (*t == "on") o.enable_thinking = true;
    else if (*t == "off") o.enable_thinking = false;
    else if (*t != "default") throw Error("--thinking must be on, off or default");
  }
  return o;
}

// Loads --model (or the bundled demo, saying so on stderr).
inline std::shared_ptr<const Engine> LoadEngineFromFlags(const ArgParser& p) {
  EngineOptions eo;
  eo.threads = static_cast<int>(p.GetInt("threads", 0));
  eo.backend = p.Get("backend", "auto");
  std::string dir = p.Get("model", "");
  if (dir.empty()) {
    dir = DefaultDemoModelDir();
    std::fprintf(stderr,
                 "note: no --model given; using the bundled demo model (random weights: its text is "
                 "gibberish) from %s\n", dir.c_str());
  }
  return Engine::Load(dir, eo);
}

}  // namespace glance::cli
