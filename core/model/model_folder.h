#pragma once
// What a model folder holds, checked against its config: the data behind `glance-cli info`.
// Opening is cheap (config parse + safetensors headers via mmap; no tensor data is read).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/model/config.h"

namespace glance {

struct ModelFolderReport {
  struct File {
    std::string name;  // relative to the folder
    uint64_t bytes = 0;
  };
  std::string dir;
  ModelConfig config;
  int64_t tensor_count = 0;
  int64_t parameters = 0;                        // elements over all tensors
  std::map<std::string, uint64_t> bytes_by_dtype;  // "BF16" -> bytes of tensor data
  std::vector<File> weight_files;
  // Side files the engine needs for a chat (present or not; none of them is checked for content).
  bool has_tokenizer = false;          // tokenizer.json
  bool has_preprocessor = false;       // preprocessor_config.json
  std::string chat_template_source;    // "chat_template.jinja", "chat_template.json",
                                       // "tokenizer_config.json", or empty when absent
  // Against Qwen35TensorManifest(config):
  std::vector<std::string> missing_tensors;     // expected, absent
  std::vector<std::string> shape_mismatches;    // "name: file [a, b], config [c, d]"
  std::vector<std::string> unexpected_tensors;  // present, not expected (mtp.* excluded)
  int64_t ignored_tensors = 0;                  // mtp.* that the MTP drafter does not use
  bool has_mtp = false;                         // an MTP layer (mtp.fc.weight) for speculative decoding

  bool weights_match_config() const { return missing_tensors.empty() && shape_mismatches.empty(); }
};

// Throws glance::Error naming what is missing when `dir` is not a model folder (no folder,
// no config.json, no weights) or when config.json / the weights are invalid.
ModelFolderReport InspectModelFolder(const std::string& dir);

// "(L,L,L,F)x6" for a periodic layer pattern, else every layer ("L,F,L,...").
std::string LayerPatternString(const std::vector<LayerType>& types);

}  // namespace glance
