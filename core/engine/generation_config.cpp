// SamplingFromGenerationConfig and FreshSeed (sampler.h).
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "core/engine/sampler.h"
#include "core/util/error.h"
#include "core/util/json_field.h"
#include "core/util/read_file.h"

namespace glance {

using nlohmann::json;

SamplingParams SamplingFromGenerationConfig(const std::string& path) {
  SamplingParams p;  // greedy
  if (!std::filesystem::is_regular_file(path)) return p;
  json j = ReadJsonFile(path, path + ": cannot read");
  if (!j.is_object()) throw Error(path + " is not a JSON object");
  auto number = [&](const char* key, float fallback) { return OptionalField<float>(j, key, fallback, path); };
  if (j.contains("do_sample") && !j["do_sample"].is_boolean())
    throw Error(path + ": 'do_sample' is not true or false");
  if (!j.value("do_sample", false)) return p;
  // Hugging Face GenerationConfig defaults for the fields a sampling config leaves out.
  p.greedy = false;
  p.temperature = number("temperature", 1.0f);
  p.top_k = OptionalField<int>(j, "top_k", 50, path);  // a whole number an int holds (json_field.h)
  p.top_p = number("top_p", 1.0f);
  p.min_p = number("min_p", 0.0f);
  p.repetition_penalty = number("repetition_penalty", 1.0f);
  try {
    p.Validate();
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  return p;
}

uint64_t FreshSeed() {
  thread_local std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

}  // namespace glance
