#include "core/model/config_check.h"

#include <charconv>

#include "core/model/safetensors.h"
#include "core/util/error.h"

namespace glance {
namespace {

// 1 + the largest N among tensors named "<prefix>N.<rest>" (0 when there are none). Bounded by
// the number of tensors in the files, whatever the names say.
int64_t CountIndexed(const TensorStore& store, const std::string& prefix) {
  int64_t count = 0;
  for (auto it = store.all().lower_bound(prefix); it != store.all().end(); ++it) {
    const std::string& name = it->first;
    if (name.compare(0, prefix.size(), prefix) != 0) break;
    int64_t index = -1;
    const char* first = name.data() + prefix.size();
    const char* last = name.data() + name.size();
    const auto [end, ec] = std::from_chars(first, last, index);
    if (ec == std::errc() && end != first && end < last && *end == '.' && index >= count)
      count = index + 1;
  }
  return count;
}

}  // namespace

void CheckConfigCountsAgainstWeights(const ModelConfig& config, const TensorStore& store,
                                     const std::string& config_path) {
  const std::string where = " in " + store.origin();
  const int64_t layers = CountIndexed(store, "model.language_model.layers.");
  if (config.text.num_hidden_layers > layers)
    throw Error(config_path + ": field 'text_config.num_hidden_layers' is " +
                std::to_string(config.text.num_hidden_layers) + " but the weights" + where + " hold " +
                std::to_string(layers) + " language-model layers");
  // The vision tower is stored as model.visual.* (or visual.* in older exports).
  const std::string visual = store.Find("model.visual.patch_embed.proj.weight") ? "model.visual." : "visual.";
  const int64_t blocks = CountIndexed(store, visual + "blocks.");
  if (config.vision.depth > blocks)
    throw Error(config_path + ": field 'vision_config.depth' is " + std::to_string(config.vision.depth) +
                " but the weights" + where + " hold " + std::to_string(blocks) + " vision blocks");
  if (const TensorView* pos = store.Find(visual + "pos_embed.weight");
      pos && !pos->shape.empty() && pos->shape[0] != config.vision.num_position_embeddings)
    throw Error(config_path + ": field 'vision_config.num_position_embeddings' is " +
                std::to_string(config.vision.num_position_embeddings) + " but " + visual + "pos_embed.weight" +
                where + " has " + std::to_string(pos->shape[0]) + " rows");
}

}  // namespace glance
